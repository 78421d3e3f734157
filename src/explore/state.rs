//! A working state: the vector plus the offsets of its process and channel records, with the
//! accessors the interpreter uses. Offsets are recomputed by one scan when a vector is loaded;
//! creating a process or channel appends, a dying process truncates.

use super::layout::{Layout, CHAN_TAG};
use crate::explore::Pid;

#[derive(Clone, Debug, Default)]
pub struct State {
    pub v: Vec<u8>,
    /// Offset of each process record, indexed by pid.
    pub procs: Vec<u32>,
    /// Offset of each channel record, indexed by channel id - 1.
    pub chans: Vec<u32>,
    /// Bytes of a location (the layout's `loc_width`).
    pub lw: u8,
}

impl State {
    /// Loads a vector, finding its records.
    pub fn load(&mut self, layout: &Layout, bytes: &[u8]) {
        self.lw = layout.loc_width as u8;
        self.v.clear();
        self.v.extend_from_slice(bytes);
        self.rescan(layout);
    }

    pub fn copy_from(&mut self, other: &State) {
        self.v.clear();
        self.v.extend_from_slice(&other.v);
        self.procs.clear();
        self.procs.extend_from_slice(&other.procs);
        self.chans.clear();
        self.chans.extend_from_slice(&other.chans);
        self.lw = other.lw;
    }

    pub fn rescan(&mut self, layout: &Layout) {
        self.lw = layout.loc_width as u8;
        self.procs.clear();
        self.chans.clear();
        let mut at = layout.records_at as usize;
        while at < self.v.len() {
            let tag = self.v[at];
            if tag & CHAN_TAG != 0 {
                self.chans.push(at as u32);
                at += layout.chans[(tag & !CHAN_TAG) as usize].record_size();
            } else {
                self.procs.push(at as u32);
                at += layout.procs[tag as usize].record_size();
            }
        }
    }

    /// The tag of every process and channel record, in vector order: what a state's size
    /// in pan's layout depends on.
    pub fn tags(&self, out: &mut Vec<u8>) {
        out.clear();
        let (mut i, mut j) = (0, 0);
        while i < self.procs.len() || j < self.chans.len() {
            let at = match (self.procs.get(i), self.chans.get(j)) {
                (Some(&p), c) if c.is_none_or(|&c| p < c) => {
                    i += 1;
                    p
                }
                (_, Some(&c)) => {
                    j += 1;
                    c
                }
                _ => break,
            };
            out.push(self.v[at as usize]);
        }
    }

    #[inline]
    pub fn nr_pr(&self) -> usize {
        self.procs.len()
    }

    /// The pids of the running processes, lowest first.
    #[inline]
    pub fn pids(&self) -> impl DoubleEndedIterator<Item = Pid> + ExactSizeIterator {
        0..self.procs.len() as Pid
    }

    #[inline]
    pub fn ptype(&self, pid: Pid) -> usize {
        self.v[self.procs[usize::from(pid)] as usize] as usize
    }

    /// The index of process `pid`'s location in its proctype's automaton.
    #[inline]
    pub fn loc(&self, pid: Pid) -> u32 {
        let at = self.procs[usize::from(pid)] as usize + 1;
        if self.lw == 1 {
            self.v[at] as u32
        } else {
            u16::from_le_bytes([self.v[at], self.v[at + 1]]) as u32
        }
    }

    #[inline]
    pub fn set_loc(&mut self, pid: Pid, loc: u32) {
        let at = self.procs[usize::from(pid)] as usize + 1;
        if self.lw == 1 {
            self.v[at] = loc as u8;
        } else {
            self.v[at..at + 2].copy_from_slice(&(loc as u16).to_le_bytes());
        }
    }

    /// Offset of a process's locals.
    #[inline]
    pub fn locals_at(&self, layout: &Layout, pid: Pid) -> usize {
        let t = self.ptype(pid);
        self.procs[usize::from(pid)] as usize + layout.procs[t].header as usize
    }

    pub fn priority(&self, layout: &Layout, pid: Pid, default: i32) -> i32 {
        if layout.uses_priority {
            self.v[self.procs[usize::from(pid)] as usize + 1 + self.lw as usize] as i32
        } else {
            default
        }
    }

    pub fn set_priority(&mut self, layout: &Layout, pid: Pid, prio: i32) {
        if layout.uses_priority {
            self.v[self.procs[usize::from(pid)] as usize + 1 + self.lw as usize] = prio as u8;
        }
    }

    /// Channel record offset for a channel id (1-based), if it exists.
    #[inline]
    pub fn chan(&self, id: i32) -> Option<usize> {
        if id < 1 {
            return None;
        }
        self.chans.get(id as usize - 1).map(|&o| o as usize)
    }

    #[inline]
    pub fn chan_type(&self, at: usize) -> usize {
        (self.v[at] & !CHAN_TAG) as usize
    }

    #[inline]
    pub fn chan_len(&self, at: usize) -> usize {
        self.v[at + 1] as usize
    }

    /// Removes the message of `size` bytes at `msg` from the buffer at `at`: the ones after
    /// it move up, and the freed slot at the end is zeroed.
    #[inline]
    pub fn take_message(&mut self, at: usize, msg: usize, size: usize) {
        let end = at + 2 + self.chan_len(at) * size;
        self.v.copy_within(msg + size..end, msg);
        self.v[end - size..end].fill(0);
        self.v[at + 1] -= 1;
    }

    /// Appends a new empty channel of type `t`; returns its id.
    pub fn add_chan(&mut self, layout: &Layout, t: u8) -> i32 {
        let at = self.v.len();
        let size = layout.chans[t as usize].record_size();
        self.v.resize(at + size, 0);
        self.v[at] = CHAN_TAG | t;
        self.chans.push(at as u32);
        self.chans.len() as i32
    }

    /// Removes process `pid` (the last one) and everything created after it.
    pub fn remove_last_proc(&mut self, pid: Pid) {
        let at = self.procs[usize::from(pid)];
        self.v.truncate(at as usize);
        self.procs.truncate(usize::from(pid));
        while self.chans.last().is_some_and(|&c| c >= at) {
            self.chans.pop();
        }
    }
}
