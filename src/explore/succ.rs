//! Successor generation in pan's order: processes from the highest pid down, each process's
//! options at its location in order (`unless` escapes first and taking priority, `else` only
//! when nothing before it moved), a second pass with `timeout` true when nothing moved at all,
//! rendezvous send and receive as one transition, and priorities (only enabled processes of
//! the highest priority move).

use crate::program::expr::LStmt;
use crate::program::Edge;

use super::eval::{Ctx, Fault};
use super::exec::{Flag, Step, MAX_FIELDS};
use super::machine::{EdgeNo, Machine};
use super::state::State;

/// One successor: where its vector is in the generator's byte stack and the step that made it.
#[derive(Clone, Copy, Debug)]
pub struct Succ {
    pub start: u64,
    pub len: u32,
    pub pid: u8,
    pub edge: EdgeNo,
    /// The receiving half of a rendezvous: (pid, edge).
    pub rv: Option<(u8, EdgeNo)>,
    /// The process that moved last keeps exclusive control (an atomic sequence continues).
    pub atomic: bool,
    /// An error the step reported while completing (a failed assertion, say).
    pub flag: Option<Flag>,
}

impl Succ {
    /// The process that holds control after this step.
    pub fn mover(&self) -> u8 {
        self.rv.map(|(p, _)| p).unwrap_or(self.pid)
    }
}

/// A step that could not complete.
#[derive(Clone, Debug)]
pub struct FaultAt {
    pub pid: u8,
    pub edge: EdgeNo,
    pub rv: Option<(u8, EdgeNo)>,
    pub fault: Fault,
}

/// The generator's stacks: successors of every frame on the search path, in order.
#[derive(Default)]
pub struct Gen {
    pub bytes: Vec<u8>,
    pub items: Vec<Succ>,
    pub faults: Vec<FaultAt>,
    /// A rendezvous offer found no receiver (pan still explored the offer's state).
    pub failed_offer: bool,
    scratch: State,
    scratch2: State,
}

impl Gen {
    pub fn bytes_of(&self, s: &Succ) -> &[u8] {
        &self.bytes[s.start as usize..s.start as usize + s.len as usize]
    }

    pub fn truncate(&mut self, items: usize, bytes: usize) {
        self.items.truncate(items);
        self.bytes.truncate(bytes);
    }
}

impl Machine<'_> {
    /// Appends the successors of `st` to `g` (only process `only`'s when it holds atomic
    /// control) and faults to `g.faults`. Returns how many steps were executable.
    pub fn successors(&self, st: &State, only: Option<usize>, g: &mut Gen) -> usize {
        let n = self.pass(st, only, false, g);
        if n == 0 && only.is_none() {
            return self.pass(st, None, true, g);
        }
        n
    }

    fn pass(&self, st: &State, only: Option<usize>, timeout: bool, g: &mut Gen) -> usize {
        let items0 = g.items.len();
        let faults0 = g.faults.len();
        let mut n = 0;
        let mut top = i32::MIN;
        let nr = st.nr_pr();
        for pid in (0..nr).rev() {
            if only.is_some_and(|o| o != pid) {
                continue;
            }
            let k = self.proc_succ(st, pid, timeout, g);
            if k > 0 && self.layout.uses_priority {
                top = top.max(self.prio(st, pid));
            }
            n += k;
        }
        if self.layout.uses_priority && n > 0 {
            let keep = |pid: u8| self.prio(st, pid as usize) >= top;
            let mut w = items0;
            for r in items0..g.items.len() {
                if keep(g.items[r].pid) {
                    g.items[w] = g.items[r];
                    w += 1;
                }
            }
            g.items.truncate(w);
            let mut kept = Vec::new();
            for f in g.faults.drain(faults0..) {
                if keep(f.pid) {
                    kept.push(f);
                }
            }
            g.faults.extend(kept);
            n = (g.items.len() - items0) + (g.faults.len() - faults0);
        }
        n
    }

    fn prio(&self, st: &State, pid: usize) -> i32 {
        let t = st.ptype(pid);
        st.priority(&self.layout, pid, self.prog.procs[t].priority as i32)
    }

    /// Whether process `pid` has an executable step (for `enabled()`).
    pub fn enabled(&self, st: &State, pid: usize) -> bool {
        let mut g = Gen::default();
        self.proc_succ(st, pid, false, &mut g) > 0
    }

    fn proc_succ(&self, st: &State, pid: usize, timeout: bool, g: &mut Gen) -> usize {
        let Some(loc) = self.location(st, pid) else {
            return 0;
        };
        if loc.edges.is_empty() || !self.provided(st, pid) {
            return 0;
        }
        let t = st.ptype(pid);
        let lno = self.loc_no(st, pid);
        let cx = Ctx { pid, timeout };
        let mut n = 0;
        let mut escaped: Option<u32> = None;
        for (k, e) in loc.edges.iter().enumerate() {
            if escaped.is_some_and(|g| g != e.escape_group) {
                break;
            }
            let no = self.edge_no(t, lno, k);
            let moved = match &e.stmt {
                LStmt::Else if n > 0 => continue,
                LStmt::Send { chan, .. } | LStmt::Recv { chan, .. } => {
                    match self.is_rendezvous(st, cx, chan) {
                        Err(f) => {
                            g.faults.push(FaultAt {
                                pid: pid as u8,
                                edge: no,
                                rv: None,
                                fault: f,
                            });
                            1
                        }
                        Ok(true) if matches!(e.stmt, LStmt::Send { .. }) => {
                            self.rendezvous(st, cx, e, no, g)
                        }
                        // A rendezvous receive moves only together with its sender.
                        Ok(true) => 0,
                        Ok(false) => self.simple(st, cx, e, no, g),
                    }
                }
                _ => self.simple(st, cx, e, no, g),
            };
            if moved > 0 {
                n += moved;
                if e.escape {
                    escaped = Some(e.escape_group);
                }
            }
        }
        n
    }

    /// Executes one ordinary edge; pushes its successor or fault. Returns 1 when it moved.
    fn simple(&self, st: &State, cx: Ctx, e: &Edge, no: EdgeNo, g: &mut Gen) -> usize {
        g.scratch.copy_from(st);
        match self.exec(&mut g.scratch, cx, e) {
            Ok(Step::Blocked) => 0,
            Ok(step) => {
                if !matches!(e.stmt, LStmt::End) {
                    g.scratch.set_loc(cx.pid, self.target(no));
                }
                self.set_last(&mut g.scratch, cx.pid);
                let start = g.bytes.len() as u64;
                g.bytes.extend_from_slice(&g.scratch.v);
                g.items.push(Succ {
                    start,
                    len: g.scratch.v.len() as u32,
                    pid: cx.pid as u8,
                    edge: no,
                    rv: None,
                    atomic: e.atomic,
                    flag: match step {
                        Step::Flagged(f) => Some(f),
                        _ => None,
                    },
                });
                1
            }
            Err(f) => {
                g.faults.push(FaultAt {
                    pid: cx.pid as u8,
                    edge: no,
                    rv: None,
                    fault: f,
                });
                1
            }
        }
    }

    fn set_last(&self, st: &mut State, pid: usize) {
        if let Some(a) = self.layout.last_at {
            st.v[a as usize] = pid as u8;
        }
    }

    /// A rendezvous send: one successor per receive (any process, highest pid first) that can
    /// take the message. Returns how many steps were executable.
    fn rendezvous(&self, st: &State, cx: Ctx, e: &Edge, no: EdgeNo, g: &mut Gen) -> usize {
        let LStmt::Send { chan, args, .. } = &e.stmt else {
            return 0;
        };
        let fault = |g: &mut Gen, f: Fault, rv| {
            g.faults.push(FaultAt {
                pid: cx.pid as u8,
                edge: no,
                rv,
                fault: f,
            });
            1
        };
        let mut vals = [0i32; MAX_FIELDS];
        let (n, id, at) = match (|| {
            let n = self.message(st, cx, args, &mut vals)?;
            let id = self.read_var(st, cx, chan)?;
            let at = self.chan_of(st, cx, chan)?;
            Ok::<_, Fault>((n, id, at))
        })() {
            Ok(x) => x,
            Err(f) => return fault(g, f, None),
        };
        let fields = &self.layout.chans[st.chan_type(at)].fields;
        for (i, f) in fields.iter().enumerate().take(n) {
            vals[i] = f.truncate(vals[i]);
        }
        let vals = &vals[..n.min(fields.len())];
        let Gen {
            bytes,
            items,
            faults,
            failed_offer,
            scratch,
            scratch2,
        } = g;
        scratch.copy_from(st);
        scratch.set_loc(cx.pid, self.target(no));
        self.set_last(scratch, cx.pid);
        let mut count = 0;
        for q in (0..scratch.nr_pr()).rev() {
            if q == cx.pid {
                continue;
            }
            let Some(lq) = self.location(scratch, q) else {
                continue;
            };
            if !lq
                .edges
                .iter()
                .any(|x| matches!(x.stmt, LStmt::Recv { .. }))
            {
                continue;
            }
            if !self.provided(scratch, q) {
                continue;
            }
            let tq = scratch.ptype(q);
            let lno = self.loc_no(scratch, q);
            let cq = Ctx {
                pid: q,
                timeout: cx.timeout,
            };
            for (k, re) in lq.edges.iter().enumerate() {
                let LStmt::Recv {
                    chan: rc, args: ra, ..
                } = &re.stmt
                else {
                    continue;
                };
                let rno = self.edge_no(tq, lno, k);
                let ok = (|| {
                    if self.read_var(scratch, cq, rc)? != id {
                        return Ok(false);
                    }
                    self.rendezvous_matches(scratch, cq, ra, vals, fields)
                })();
                match ok {
                    Ok(false) => continue,
                    Ok(true) => {}
                    Err(f) => {
                        faults.push(FaultAt {
                            pid: cx.pid as u8,
                            edge: no,
                            rv: Some((q as u8, rno)),
                            fault: f,
                        });
                        count += 1;
                        continue;
                    }
                }
                scratch2.copy_from(scratch);
                let flag = match self.recv_fields(scratch, cq, ra, fields.len()) {
                    Ok(Step::Flagged(f)) => Some(f),
                    Ok(_) if n < fields.len() => Some(Flag::SendFields),
                    Ok(_) => None,
                    Err(f) => {
                        faults.push(FaultAt {
                            pid: cx.pid as u8,
                            edge: no,
                            rv: Some((q as u8, rno)),
                            fault: f,
                        });
                        count += 1;
                        continue;
                    }
                };
                if let Err(f) = self.assign_message(scratch2, cq, ra, vals) {
                    faults.push(FaultAt {
                        pid: cx.pid as u8,
                        edge: no,
                        rv: Some((q as u8, rno)),
                        fault: f,
                    });
                    count += 1;
                    continue;
                }
                scratch2.set_loc(q, self.target(rno));
                self.set_last(scratch2, q);
                let start = bytes.len() as u64;
                bytes.extend_from_slice(&scratch2.v);
                items.push(Succ {
                    start,
                    len: scratch2.v.len() as u32,
                    pid: cx.pid as u8,
                    edge: no,
                    rv: Some((q as u8, rno)),
                    atomic: re.atomic,
                    flag,
                });
                count += 1;
            }
        }
        if count == 0 {
            *failed_offer = true;
        }
        count
    }
}
