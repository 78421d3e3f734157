//! Weak fairness (pan -f) in a product whose system turns are read from a recorded state
//! graph (`Rider::system_graph`): the processes a turn tries, told to `fair` in the order
//! the executed turn's cursor announces them (`Cursor::fair`), from what the record keeps.
//!
//! The record keeps a stored state's first pass as groups, one per process that did
//! something, highest pid first; the processes between two groups were tried and did not
//! move, so they are announced as the executed cursor announces them (a `provided` clause
//! or a priority could skip one unrecorded: such models are searched). The pass with
//! `timeout` true has no groups, but each of its events names the process tried (a step's
//! and a fault's `pid`). A state inside an atomic run tries its one process. When rule 2
//! leaves a process that did not move after others moved, pan tries the processes again
//! from its `From`: the pass is read again from its start, what the processes above that
//! one did left unread (a group, or an event with the atomic run it enters). Where the
//! record cannot say what the executed turn would see (a failed rendezvous offer in the
//! pass with `timeout`, whose sender it does not name, or a group in a pass the claim did
//! not allow), the search gives up and the claim is searched.

use super::product::TIMEOUT;
use super::{Rider, Search};
use crate::explore::event::{Event, To};

/// Where the reading of a recorded system turn stands, for weak fairness.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Reading {
    /// Not a recorded turn (or not opened yet).
    #[default]
    Closed,
    /// The first pass: groups.
    First,
    /// A claim's turn with `timeout` allowed: its one pass is the record's pass with
    /// `timeout` true, after the first pass (which moved nothing).
    Waiting,
    /// The pass with `timeout` true: each event names its process.
    Tail,
    /// Every pass the executed turn announces is over.
    Over,
    /// A state inside an atomic run: its one process (in `ann`), not announced yet.
    Inside,
    /// ... announced.
    InsideTold,
}

impl<R: Rider> Search<'_, '_, R> {
    /// The system turn of frame `fi` opens on its loaded state (`tau`: the frame's bits).
    pub(super) fn fair_open(&mut self, fi: usize, tau: u8) {
        let top = self.cur.nr_pr() as i16 - 1;
        let read = match tau & TIMEOUT != 0 && !self.solo {
            true => Reading::Waiting,
            false => Reading::First,
        };
        if let Some(s) = self.fair_store() {
            let f = s.get_mut(fi);
            (f.read, f.ann, f.top) = (read, top, top);
        }
    }

    /// The frame about to be pushed at `fi` is a state inside a recorded atomic run, which
    /// process `only` keeps.
    pub(super) fn fair_inside(&mut self, fi: usize, only: u8) {
        if let Some(s) = self.fair_store() {
            let f = s.get_mut(fi);
            (f.read, f.ann) = (Reading::Inside, i16::from(only));
        }
    }

    /// Frame `fi`'s recorded turn is about to handle `ev`: the processes the executed turn
    /// tries before it are announced. False when the event is not to be handled: the pass
    /// restarted (or the event's group is one a restart leaves out), or the search gave up.
    pub(super) fn fair_read(&mut self, fi: usize, ev: &Event) -> bool {
        let Some(s) = self.fair_store() else {
            return true;
        };
        let f = s.get(fi);
        let moved = self.frames.get_ref(fi).cursor.moved > 0;
        let set = |s: &mut Self, read: Reading, ann: i16| {
            if let Some(st) = s.fair_store() {
                let g = st.get_mut(fi);
                (g.read, g.ann) = (read, ann);
            }
        };
        let pid = match ev {
            Event::Step { step, .. } | Event::Fault { step, .. } => Some(i16::from(step.pid)),
            _ => None,
        };
        match (f.read, ev) {
            (Reading::Inside, _) if pid.is_some() || matches!(ev, Event::End(_)) => {
                // (Its events are its process's: `pid` is the same.)
                set(self, Reading::InsideTold, -1);
                self.fair_turn(fi, Some(f.ann as u8), false);
                self.fair_read(fi, ev)
            }
            (Reading::InsideTold, Event::End(_)) => {
                set(self, Reading::Over, -1);
                // (One process tried: nothing moved before it, so no restart.)
                self.fair_turn(fi, None, false).is_none() || self.give_up_graph()
            }
            (Reading::First, Event::Group { pid: Some(p), .. }) => {
                if i16::from(*p) > f.ann {
                    // Above the process a restart tries from.
                    self.rider.skip_group();
                    return false;
                }
                self.announce_to(fi, i16::from(*p), false)
            }
            (Reading::First, Event::Group { pid: None, .. }) => {
                if !self.announce_to(fi, 0, false) {
                    return false;
                }
                if let Some(from) = self.fair_turn(fi, None, false) {
                    self.fair_restart(fi, from, false);
                    return false;
                }
                // Without a claim the pass with `timeout` follows a first pass that moved
                // nothing; a claim's turn ends there (the claim allows `timeout`).
                match self.solo && !moved {
                    true => set(self, Reading::Tail, f.top),
                    false => set(self, Reading::Over, -1),
                }
                true
            }
            (Reading::Waiting, Event::Group { pid: Some(_), .. }) => self.give_up_graph(),
            (Reading::Waiting, Event::Group { pid: None, .. }) => {
                set(self, Reading::Tail, f.top);
                true
            }
            (Reading::Tail, Event::Offer) => self.give_up_graph(),
            (Reading::Tail, _) if pid.is_some() => {
                let p = pid.unwrap_or(0);
                if f.trying().is_some_and(|t| i16::from(t) == p) {
                    return true;
                }
                if p > f.ann {
                    // Above the process a restart tries from (pids come down a pass).
                    if matches!(ev, Event::Step { to: To::Atomic, .. }) {
                        self.rider.skip_run();
                    }
                    return false;
                }
                self.announce_to(fi, p, true)
            }
            (Reading::Tail, Event::End(_)) => {
                if !self.announce_to(fi, 0, true) {
                    return false;
                }
                if let Some(from) = self.fair_turn(fi, None, false) {
                    self.fair_restart(fi, from, true);
                    return false;
                }
                set(self, Reading::Over, -1);
                true
            }
            _ => true,
        }
    }

    /// Announces frame `fi`'s processes from the next one down to `p`; false when rule 2
    /// restarted the pass (the first, or `tail` the pass with `timeout` true).
    fn announce_to(&mut self, fi: usize, p: i16, tail: bool) -> bool {
        loop {
            let Some(s) = self.fair_store() else {
                return true;
            };
            let ann = s.get(fi).ann;
            if ann < p {
                return true;
            }
            s.get_mut(fi).ann = ann - 1;
            if let Some(from) = self.fair_turn(fi, Some(ann as u8), false) {
                self.fair_restart(fi, from, tail);
                return false;
            }
        }
    }

    /// Frame `fi`'s pass (the first, or `tail` the one with `timeout` true) is tried again
    /// from process `from` down.
    fn fair_restart(&mut self, fi: usize, from: i32, tail: bool) {
        self.rider.restart_system(tail);
        if let Some(s) = self.fair_store() {
            let f = s.get_mut(fi);
            f.ann = from.clamp(-1, i32::from(f.top)) as i16;
        }
    }
}
