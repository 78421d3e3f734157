//! Two pieces of work that share nothing, one on a second thread and one on this one: what
//! an incremental run reads and writes around its search (the lookups beside the builder,
//! the states' sort beside the graph's finish, one half of a graph's events beside the
//! other), where the machine's second core would otherwise wait.

/// Runs `a` on a thread named `name` while `b` runs here. `a`'s result is None when no
/// thread could be had or `a` failed there: the caller then does that work itself, so the
/// outcome never depends on the thread.
pub(crate) fn beside<A: Send, B>(
    name: &str,
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B,
) -> (Option<A>, B) {
    std::thread::scope(|s| {
        let on_thread = std::thread::Builder::new()
            .name(name.into())
            .spawn_scoped(s, a);
        let b = b();
        (on_thread.ok().and_then(|h| h.join().ok()), b)
    })
}
