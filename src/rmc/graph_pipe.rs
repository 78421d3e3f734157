//! The state graph built beside the search, on a second thread. Building the graph (delta
//! encoding vectors, encoding events, interning footprints) is work the search never reads
//! back while it runs: every call the recorder makes on the `GraphBuilder` during a search is
//! a command without an answer. So the recorder can queue those commands in batches and a
//! worker thread can apply them, in order, to the builder; the builder then ends up exactly
//! as if the calls had been made inline, and the search thread pays only for queueing.
//! Batches are recycled, so that the steady state allocates nothing.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::sync::Arc;

use crate::explore::event::Event;
use crate::explore::machine::Machine;

use super::graph::Names;

use super::graph::NONE;
use super::graph_build::GraphBuilder;

/// Commands in a batch before it is handed over: large enough that the hand-over is rare,
/// small enough that a batch stays in the cache.
const BATCH: usize = 4096;
/// Batches queued before the search waits for the worker (bounds the memory in flight).
const QUEUED: usize = 4;

/// One call on the builder.
#[derive(Clone, Copy)]
enum Cmd {
    Open {
        id: u32,
        old: u32,
        verbatim: bool,
    },
    /// The vector's canonical bytes and tags lie next in the batch's bytes.
    Vector {
        canon: u32,
        tags: u32,
    },
    Touch(u32),
    /// The blocked processes lie next in the batch's list.
    Event {
        ev: Event,
        blocked: u32,
    },
    Close(u32),
    Broken,
}

#[derive(Default)]
struct Batch {
    cmds: Vec<Cmd>,
    bytes: Vec<u8>,
    blocked: Vec<(usize, usize, u32)>,
}

impl Batch {
    fn clear(&mut self) {
        self.cmds.clear();
        self.bytes.clear();
        self.blocked.clear();
    }

    fn apply(&self, b: &mut GraphBuilder, m: &Names) {
        let (mut at, mut bl) = (0usize, 0usize);
        for c in &self.cmds {
            match *c {
                Cmd::Open { id, old, verbatim } => {
                    b.open(id, (old != NONE).then_some(old), verbatim)
                }
                Cmd::Vector { canon, tags } => {
                    let (c, t) = (canon as usize, tags as usize);
                    b.vector(&self.bytes[at..at + c], &self.bytes[at + c..at + c + t]);
                    at += c + t;
                }
                Cmd::Touch(l) => b.touch(l),
                Cmd::Event { ev, blocked } => {
                    let n = blocked as usize;
                    b.event(m, &ev, &self.blocked[bl..bl + n]);
                    bl += n;
                }
                Cmd::Close(id) => b.close(id),
                Cmd::Broken => b.broken = true,
            }
        }
    }
}

/// The search thread's end of the pipe.
pub struct GraphPipe {
    batch: Batch,
    to_worker: Option<SyncSender<Batch>>,
    spare: Receiver<Batch>,
    /// The builder's memory, as the worker last saw it.
    memory: Arc<AtomicU64>,
    /// The worker is gone (it panicked): the graph cannot be trusted.
    lost: Arc<AtomicBool>,
}

/// The worker's end: what it needs to apply batches.
pub struct GraphWorker {
    builder: GraphBuilder,
    from_search: Receiver<Batch>,
    spare: Sender<Batch>,
    memory: Arc<AtomicU64>,
}

/// A pipe and the worker it feeds; the worker runs `GraphWorker::run` on its thread.
pub fn pipe(builder: GraphBuilder) -> (GraphPipe, GraphWorker) {
    let (to_worker, from_search) = sync_channel(QUEUED);
    let (spare_tx, spare) = channel();
    let memory = Arc::new(AtomicU64::new(builder.memory()));
    (
        GraphPipe {
            batch: Batch::default(),
            to_worker: Some(to_worker),
            spare,
            memory: memory.clone(),
            lost: Arc::new(AtomicBool::new(false)),
        },
        GraphWorker {
            builder,
            from_search,
            spare: spare_tx,
            memory,
        },
    )
}

impl GraphWorker {
    /// Applies every batch, in order, until the search closes the pipe; the builder is then
    /// as the same calls made inline would have left it.
    pub fn run(mut self, m: &Names) -> GraphBuilder {
        while let Ok(mut batch) = self.from_search.recv() {
            batch.apply(&mut self.builder, m);
            self.memory.store(self.builder.memory(), Ordering::Relaxed);
            batch.clear();
            // The search may be gone already; the batch is then simply dropped.
            let _ = self.spare.send(batch);
        }
        self.builder
    }
}

impl GraphPipe {
    #[inline]
    fn push(&mut self, c: Cmd) {
        self.batch.cmds.push(c);
        if self.batch.cmds.len() >= BATCH {
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
            self.lost.store(true, Ordering::Relaxed);
            self.batch.clear();
        }
    }

    pub fn open(&mut self, id: u32, old: Option<u32>, verbatim: bool) {
        self.push(Cmd::Open {
            id,
            old: old.unwrap_or(NONE),
            verbatim,
        });
    }

    pub fn vector(&mut self, canon: &[u8], tags: &[u8]) {
        self.batch.bytes.extend_from_slice(canon);
        self.batch.bytes.extend_from_slice(tags);
        self.push(Cmd::Vector {
            canon: canon.len() as u32,
            tags: tags.len() as u32,
        });
    }

    #[inline]
    pub fn touch(&mut self, loc: u32) {
        self.push(Cmd::Touch(loc));
    }

    pub fn event(&mut self, ev: &Event, blocked: &[(usize, usize, u32)]) {
        self.batch.blocked.extend_from_slice(blocked);
        self.push(Cmd::Event {
            ev: *ev,
            blocked: blocked.len() as u32,
        });
    }

    pub fn close(&mut self, id: u32) {
        self.push(Cmd::Close(id));
    }

    pub fn broken(&mut self) {
        self.push(Cmd::Broken);
    }

    /// The builder's memory as last seen, plus the batches in flight.
    pub fn memory(&self) -> u64 {
        let batch = (BATCH * std::mem::size_of::<Cmd>()) as u64;
        self.memory.load(Ordering::Relaxed) + (QUEUED as u64 + 2) * batch
    }

    /// Hands over what is queued and closes the pipe: the worker finishes and returns the
    /// builder. Whether every command arrived.
    pub fn close_pipe(&mut self) -> bool {
        if !self.batch.cmds.is_empty() {
            self.hand_over();
        }
        self.to_worker = None;
        !self.lost.load(Ordering::Relaxed)
    }
}

/// Runs `search` with the builder on a worker thread fed through a pipe (`search` gives the
/// pipe to whatever issues the commands, and hands it back), and returns what `search`
/// returned and the builder, `None` if the worker failed or the pipe was not handed back.
pub fn beside<T>(
    m: &Machine,
    builder: GraphBuilder,
    search: impl FnOnce(GraphPipe) -> (T, Option<GraphPipe>),
) -> (T, Option<GraphBuilder>) {
    let (pipe, worker) = pipe(builder);
    let names = Names::of(m);
    std::thread::scope(|s| {
        // If no thread can be started, the worker is dropped with its end of the pipe: the
        // search still runs, and only its graph is lost.
        let h = std::thread::Builder::new()
            .name("git-rmc-graph".into())
            .spawn_scoped(s, move || worker.run(&names));
        let (out, pipe) = search(pipe);
        let complete = pipe.is_some_and(|mut p| p.close_pipe());
        let built = h.ok().and_then(|h| h.join().ok()).filter(|_| complete);
        (out, built)
    })
}
