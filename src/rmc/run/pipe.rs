//! A one-way pipe of commands from the search thread to a worker thread, in batches that are
//! recycled (the steady state allocates nothing), with a bounded queue (the worker never
//! falls far behind). What rides along a search and never answers it can be done beside it
//! this way: the worker applies the commands in order, so its result is the one the same
//! calls made inline would give.

use crate::explore::event::Event;
use crate::explore::trail::TrailStep;
use crate::explore::Blocked;
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};

/// Commands in a batch before it is handed over: large enough that the hand-over (which
/// wakes the worker, a system call on the search's thread) is rare, small enough that the
/// batches in flight (`in_flight`: 1 MB of 40-byte commands, reserved four times over
/// from the memory budget for the vectors they carry) do not weigh on a small model's
/// recording run. With the batch's lines asked for ahead of the writes (`Tx::push`),
/// recording, max of nine interleaved runs (s), 2048 / 4096 / 8192: elevator 04 0.392 /
/// 0.377 / 0.375, ring_election N=9 1.949 / 1.863 / 1.840, philosophers N=5 0.347 /
/// 0.321 / 0.323, MESI 0.877 / 0.860 / 0.853 (8192 doubles the reservation for 1 % more).
/// (Before the prefetch, ring: 1024 took 2.32 to 2.42 s, 2048 2.18 to 2.31, 4096 2.15 to
/// 2.49.)
const BATCH: usize = 4096;
/// Commands ahead of the next one whose memory a push asks for (`Tx::push`).
const AHEAD: usize = 8;
/// Batches queued before the search waits for the worker.
const QUEUED: usize = 4;

/// Commands, and the bytes and blocked processes they carry, in order.
pub struct Batch<C> {
    pub cmds: Vec<C>,
    pub bytes: Vec<u8>,
    pub blocked: Vec<Blocked>,
    /// The large parts of rare commands, so that the common ones stay small (a command's
    /// bytes cross to the worker's core and back with every batch).
    pub events: Vec<Event>,
    pub steps: Vec<Option<TrailStep>>,
}

impl<C> Default for Batch<C> {
    fn default() -> Self {
        Batch {
            cmds: Vec::new(),
            bytes: Vec::new(),
            blocked: Vec::new(),
            events: Vec::new(),
            steps: Vec::new(),
        }
    }
}

impl<C> Batch<C> {
    fn clear(&mut self) {
        self.cmds.clear();
        self.events.clear();
        self.steps.clear();
        self.bytes.clear();
        self.blocked.clear();
    }
}

/// The search's end.
pub struct Tx<C> {
    /// The batch being filled: push bytes and blocked processes here, then the command.
    pub batch: Batch<C>,
    to_worker: Option<SyncSender<Batch<C>>>,
    spare: Receiver<Batch<C>>,
    lost: bool,
}

/// The worker's end.
pub struct Rx<C> {
    from_search: Receiver<Batch<C>>,
    spare: Sender<Batch<C>>,
}

pub fn pipe<C>() -> (Tx<C>, Rx<C>) {
    let (to_worker, from_search) = sync_channel(QUEUED);
    let (spare_tx, spare) = channel();
    (
        Tx {
            batch: Batch::default(),
            to_worker: Some(to_worker),
            spare,
            lost: false,
        },
        Rx {
            from_search,
            spare: spare_tx,
        },
    )
}

/// Bytes a pipe holds at most in batches of commands of type `C` (their own bytes aside).
pub fn in_flight<C>() -> u64 {
    ((QUEUED + 2) * BATCH * std::mem::size_of::<C>()) as u64
}

impl<C> Tx<C> {
    /// Queues a command (after the bytes and blocked processes it carries).
    #[inline]
    pub fn push(&mut self, c: C) {
        let n = self.batch.cmds.len();
        // The batch's memory was last read by the worker, on the other core: a write to it
        // waits for the line to come back. Asked for a few commands ahead, it is on its way.
        if n + AHEAD < self.batch.cmds.capacity() {
            crate::explore::pages::prefetch_for_write(
                self.batch.cmds.as_ptr().wrapping_add(n + AHEAD),
            );
        }
        self.batch.cmds.push(c);
        if n + 1 >= BATCH {
            self.hand_over();
        }
    }

    fn hand_over(&mut self) {
        let next = self.spare.try_recv().unwrap_or_default();
        let full = std::mem::replace(&mut self.batch, next);
        let sent = self
            .to_worker
            .as_ref()
            .is_some_and(|tx| tx.send(full).is_ok());

        if !sent {
            // The worker is gone (it panicked): what it would have built is lost.
            self.lost = true;
            self.batch.clear();
        }
    }

    /// Hands over what is queued and closes the pipe, so that the worker finishes. Whether
    /// every command was handed over.
    pub fn close(&mut self) -> bool {
        if !self.batch.cmds.is_empty() {
            self.hand_over();
        }
        self.to_worker = None;
        !self.lost
    }
}

impl<C> Rx<C> {
    /// Applies `f` to every batch, in order, until the search closes the pipe.
    pub fn each(self, mut f: impl FnMut(&Batch<C>)) {
        while let Ok(mut batch) = self.from_search.recv() {
            f(&batch);
            batch.clear();
            // The search may be gone already; the batch is then simply dropped.
            let _ = self.spare.send(batch);
        }
    }
}

/// Runs `search` on this thread with the search's end of a pipe, and `work` on a second
/// thread with the worker's end. `search` hands its end back when it is done (None if it
/// could not), which closes the pipe so that `work` finishes. Returns what `search`
/// returned and what `work` made: None if no thread could be started, the worker panicked,
/// a command was lost, or `work` itself gave up.
pub fn beside<C: Send, W: Send, T>(
    name: &str,
    work: impl FnOnce(Rx<C>) -> Option<W> + Send,
    search: impl FnOnce(Tx<C>) -> (T, Option<Tx<C>>),
) -> (T, Option<W>) {
    let (tx, rx) = pipe();
    std::thread::scope(|s| {
        // If no thread can be started, `work` is dropped with the worker's end: the search
        // still runs, and what the worker would have made is lost.
        let h = std::thread::Builder::new()
            .name(name.into())
            .spawn_scoped(s, move || work(rx));
        let (out, tx) = search(tx);
        let complete = tx.is_some_and(|mut tx| tx.close());
        let made = h
            .ok()
            .and_then(|h| h.join().ok())
            .flatten()
            .filter(|_| complete);
        (out, made)
    })
}
