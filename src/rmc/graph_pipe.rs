//! The state graph built beside a search that reuses a record (prune, replay), on a second
//! thread. Building the graph (delta encoding vectors, encoding events, interning
//! footprints) is work the search never reads back while it runs: every call the recorder
//! makes on the `GraphBuilder` during a search is a command without an answer, so it goes
//! through a `pipe` to a worker that applies the calls in order to the builder, which then
//! ends up exactly as if they had been made inline.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::explore::event::Event;
use crate::explore::machine::Machine;

use super::graph::{Names, NONE};
use super::graph_build::GraphBuilder;
use super::pipe::{self, Batch, Rx, Tx};

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

fn apply(batch: &Batch<Cmd>, b: &mut GraphBuilder, names: &Names) {
    let (mut at, mut bl) = (0usize, 0usize);
    for c in &batch.cmds {
        match *c {
            Cmd::Open { id, old, verbatim } => b.open(id, (old != NONE).then_some(old), verbatim),
            Cmd::Vector { canon, tags } => {
                let (c, t) = (canon as usize, tags as usize);
                b.vector(&batch.bytes[at..at + c], &batch.bytes[at + c..at + c + t]);
                at += c + t;
            }
            Cmd::Touch(l) => b.touch(l),
            Cmd::Event { ev, blocked } => {
                let n = blocked as usize;
                b.event(names, &ev, &batch.blocked[bl..bl + n]);
                bl += n;
            }
            Cmd::Close(id) => b.close(id),
            Cmd::Broken => b.broken = true,
        }
    }
}

/// The search thread's end: the builder's calls, queued.
pub struct GraphPipe {
    tx: Tx<Cmd>,
    /// The builder's memory, as the worker last saw it.
    memory: Arc<AtomicU64>,
}

impl GraphPipe {
    pub fn open(&mut self, id: u32, old: Option<u32>, verbatim: bool) {
        self.tx.push(Cmd::Open {
            id,
            old: old.unwrap_or(NONE),
            verbatim,
        });
    }

    pub fn vector(&mut self, canon: &[u8], tags: &[u8]) {
        self.tx.batch.bytes.extend_from_slice(canon);
        self.tx.batch.bytes.extend_from_slice(tags);
        self.tx.push(Cmd::Vector {
            canon: canon.len() as u32,
            tags: tags.len() as u32,
        });
    }

    #[inline]
    pub fn touch(&mut self, loc: u32) {
        self.tx.push(Cmd::Touch(loc));
    }

    pub fn event(&mut self, ev: &Event, blocked: &[(usize, usize, u32)]) {
        self.tx.batch.blocked.extend_from_slice(blocked);
        self.tx.push(Cmd::Event {
            ev: *ev,
            blocked: blocked.len() as u32,
        });
    }

    pub fn close(&mut self, id: u32) {
        self.tx.push(Cmd::Close(id));
    }

    pub fn broken(&mut self) {
        self.tx.push(Cmd::Broken);
    }

    /// The builder's memory as last seen, plus the batches in flight.
    pub fn memory(&self) -> u64 {
        self.memory.load(Ordering::Relaxed) + pipe::in_flight::<Cmd>()
    }
}

/// Runs `search` with the builder on a worker thread fed through a pipe (`search` gives the
/// pipe to whatever issues the calls, and hands it back), and returns what `search`
/// returned and the builder, `None` if the worker failed or the pipe was not handed back.
pub fn beside<T>(
    m: &Machine,
    mut builder: GraphBuilder,
    search: impl FnOnce(GraphPipe) -> (T, Option<GraphPipe>),
) -> (T, Option<GraphBuilder>) {
    let names = Names::of(m);
    let memory = Arc::new(AtomicU64::new(builder.memory()));
    let seen = memory.clone();
    let work = move |rx: Rx<Cmd>| {
        rx.each(|batch| {
            apply(batch, &mut builder, &names);
            seen.store(builder.memory(), Ordering::Relaxed);
        });
        Some(builder)
    };
    pipe::beside("git-rmc-graph", work, |tx| {
        let (out, pipe) = search(GraphPipe { tx, memory });
        (out, pipe.map(|p| p.tx))
    })
}
