//! Successor generation in pan's order, one successor at a time (as pan's search loop does, so
//! that a level of the search costs a cursor, not a list of states): processes from the
//! highest pid down, each process's options at its location in order (`unless` escapes first
//! and taking priority, `else` only when nothing before it moved), a second pass with
//! `timeout` true when nothing moved at all, a rendezvous send and its receive as one
//! transition, and priorities (only enabled processes of the highest priority move).
//! `successors` collects them all, for trails and shortest paths.

use crate::explore::Pid;
use crate::program::expr::LStmt;

use super::eval::{Ctx, Fault};
use super::exec::{Flag, Step, MAX_FIELDS};
use super::machine::{EdgeKind, EdgeNo, Machine};
use super::state::State;
use super::trace::{Dir, Msg};

/// One successor: the step that made it (its state is where the generator put it).
#[derive(Clone, Copy, Debug)]
pub struct Succ {
    /// Where `successors` put the state in `Gen::bytes`.
    pub start: u64,
    pub len: u32,
    pub pid: Pid,
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

    /// The step, as a trail names it.
    #[inline]
    pub fn step(&self) -> super::trail::TrailStep {
        super::trail::TrailStep {
            pid: self.pid,
            edge: self.edge,
            rv: self.rv,
        }
    }
}

/// A step that could not complete.
#[derive(Clone, Debug)]
pub struct FaultAt {
    pub pid: Pid,
    pub edge: EdgeNo,
    pub rv: Option<(u8, EdgeNo)>,
    pub fault: Fault,
    /// An error the step reported before its fault (an assertion that failed inside a
    /// `d_step` that then blocked): reported first.
    pub flag: Option<Flag>,
}

impl FaultAt {
    /// The step the fault happened in, as a trail names it.
    pub fn step(&self) -> super::trail::TrailStep {
        super::trail::TrailStep {
            pid: self.pid,
            edge: self.edge,
            rv: self.rv,
        }
    }
}

/// What the generator produced next.
#[derive(Debug)]
pub enum Next {
    /// A successor, in the `out` state.
    Succ(Succ),
    /// A step that could not complete.
    Fault(FaultAt),
    /// An error pan reports while the statement simply does not execute (a poll or a
    /// copying receive of a rendezvous channel); the enumeration goes on.
    Report(FaultAt),
    /// The first pass is about to try process `pid` (None: that pass is over), for a
    /// cursor that announces its groups (`Cursor::grouped`).
    Group(Option<u8>),
    /// No more successors.
    Done,
}

/// What a cursor announces (`Next::Group`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Groups {
    No,
    /// Each process of the first pass, and that pass's end (`Cursor::grouped`).
    Record,
    /// Each process of any pass, and the pass's end (`Cursor::fair`).
    Fair,
    /// `Fair`, and the process announced last was skipped (`provided`, priorities).
    FairSkipped,
}

/// Where one state's successor enumeration stands (pan's per-level loop variables).
///
/// Every frame of a search holds one, and a search can be millions of frames deep (a
/// philosophers model with 2.2 million states reaches depth 2.3 million), so it is kept
/// small: its counters saturate at 255, as only whether they are 0 (or above 1) decides
/// anything.
#[derive(Clone, Copy, Debug)]
pub struct Cursor {
    /// The process holding atomic control, the only one tried.
    only: Option<u8>,
    /// The second pass, with `timeout` true.
    timeout: bool,
    /// Priorities are ignored (probing a single process).
    no_priority: bool,
    /// How many `enabled()` probes enclose this enumeration.
    nest: u8,
    /// The process being tried, counting down; negative when the pass is over.
    pid: i16,
    /// The next edge of its location.
    edge: u32,
    /// Whether `pid` was checked for `provided` and priority.
    entered: bool,
    /// Steps `pid` executed at this location (for `else`).
    proc_moved: u8,
    /// The `unless` escape group `pid` took (0: none).
    escaped: u32,
    /// Steps executed in this pass (for `timeout`).
    pass_moved: u8,
    /// Steps executed in all (none: a deadlock, or a blocked atomic sequence).
    pub moved: u8,
    /// Highest priority of an enabled process in this pass.
    top: i32,
    /// A rendezvous send being paired: its edge index, and the next receiver to try.
    rv_edge: u32,
    rv_next: Option<u8>,
    rv_next_edge: u32,
    rv_matched: u8,
    /// A rendezvous offer found no receiver (pan still explored the offer's state), and
    /// the process that offered.
    pub failed_offer: bool,
    offer_group: Option<u8>,
    /// Announce each process of the first pass, and the pass's end (`Next::Group`).
    groups: Groups,
    announced: bool,
    tail_announced: bool,
}

impl Cursor {
    /// A fresh enumeration of `st`'s successors; `only` when a process holds atomic control.
    pub fn new(st: &State, only: Option<u8>) -> Cursor {
        Cursor {
            only,
            timeout: false,
            no_priority: false,
            nest: 0,
            pid: st.nr_pr() as i16 - 1,
            edge: 0,
            entered: false,
            proc_moved: 0,
            escaped: 0,
            pass_moved: 0,
            moved: 0,
            top: i32::MIN,
            rv_edge: 0,
            rv_next: None,
            rv_next_edge: 0,
            rv_matched: 0,
            failed_offer: false,
            offer_group: None,
            groups: Groups::No,
            announced: false,
            tail_announced: false,
        }
    }

    /// The system's turn in a product with a never claim, with `timeout` as the claim's
    /// turn before left it. There the claim's turn decides when `timeout` holds: a pass
    /// without `timeout` that moved nothing ends the turn (`in_timeout_pass`).
    pub fn product(st: &State, only: Option<u8>, timeout: bool) -> Cursor {
        Cursor {
            timeout,
            ..Cursor::new(st, only)
        }
    }

    /// The product's system turn under weak fairness (pan -f): each process the pass tries
    /// is announced before it is tried (`Next::Group(Some(pid))`, not the processes an
    /// atomic sequence shuts out), and the end of the pass (`Next::Group(None)`).
    pub fn fair(self) -> Cursor {
        Cursor {
            groups: Groups::Fair,
            ..self
        }
    }

    /// Under weak fairness: whether the process announced last was skipped by its
    /// `provided` clause or a priority (and forgets it).
    pub fn take_skipped(&mut self) -> bool {
        let skipped = self.groups == Groups::FairSkipped;
        if skipped {
            self.groups = Groups::Fair;
        }
        skipped
    }

    /// Weak fairness tries the processes again from process `from` down (pan's
    /// `II = INI_P`), the moves counted so far kept.
    pub fn restart(&mut self, st: &State, from: i32) {
        self.pid = from.clamp(-1, st.nr_pr() as i32 - 1) as i16;
        self.edge = 0;
        self.entered = false;
        self.announced = false;
        self.tail_announced = false;
        self.proc_moved = 0;
        self.escaped = 0;
    }

    /// Whether the enumeration is in its pass with `timeout` true (the second pass when
    /// the first moved nothing, or all of a product's turn that has `timeout`).
    pub fn in_timeout_pass(&self) -> bool {
        self.timeout
    }

    /// A claim's turn keeps where its own enumeration stands in its frame's cursor, which
    /// it does not otherwise use: its next option and how many moved in this pass.
    pub fn claim_option(&self) -> (u32, u32) {
        (self.edge, u32::from(self.proc_moved))
    }

    pub fn set_claim_option(&mut self, next: u32, moved: u32) {
        self.edge = next;
        self.proc_moved = moved.min(255) as u8;
    }

    /// A fresh enumeration of a stored state's successors that announces each process of
    /// the first pass before it tries it, and the end of that pass (`Next::Group`).
    pub fn grouped(st: &State) -> Cursor {
        Cursor {
            groups: Groups::Record,
            ..Cursor::new(st, None)
        }
    }

    /// Whether this enumeration announces its groups.
    pub fn is_grouped(&self) -> bool {
        self.groups == Groups::Record
    }

    /// The group the successor, fault or report just returned belongs to: the process
    /// being tried in the first pass of a stored state's enumeration (None: the second
    /// pass, or the enumeration of a state inside an atomic sequence).
    pub fn group_of_last(&self) -> Option<Option<u8>> {
        if self.only.is_some() {
            return None;
        }
        Some((!self.timeout).then_some(self.pid as u8))
    }

    /// The group of the rendezvous offer that failed last (as `group_of_last`).
    pub fn group_of_offer(&self) -> Option<Option<u8>> {
        if self.only.is_some() {
            return None;
        }
        Some(self.offer_group)
    }

    /// The process just announced is not tried: its moves come from elsewhere (a record).
    pub fn skip_process(&mut self) {
        self.next_proc();
    }

    /// A move of the process being skipped, taken from elsewhere: it counts for the pass
    /// and the state as the interpreter's own would (whether the timeout pass runs, whether
    /// the state is an end state).
    pub fn count_move(&mut self) {
        self.pass_moved = self.pass_moved.saturating_add(1);
        self.moved = self.moved.saturating_add(1);
    }

    /// A step of a product's system turn taken outside the cursor (a move, or a fault of an
    /// executed step, read from a recorded system graph): it counts as the cursor's own
    /// would.
    pub fn count_step(&mut self) {
        self.moved = self.moved.saturating_add(1);
    }

    /// A cursor that enumerates nothing: a replayed frame's, whose events come from a
    /// record.
    pub fn idle() -> Cursor {
        Cursor::new(&State::default(), None)
    }

    fn next_proc(&mut self) {
        self.pid -= 1;
        self.edge = 0;
        self.entered = false;
        self.announced = false;
        self.proc_moved = 0;
        self.escaped = 0;
    }
}

/// Scratch for collecting every successor of a state.
#[derive(Default)]
pub struct Gen {
    pub bytes: Vec<u8>,
    pub items: Vec<Succ>,
    pub faults: Vec<FaultAt>,
    /// A rendezvous offer found no receiver.
    pub failed_offer: bool,
    out: State,
    tmp: State,
}

impl Gen {
    pub fn bytes_of(&self, s: &Succ) -> &[u8] {
        &self.bytes[s.start as usize..s.start as usize + s.len as usize]
    }

    pub fn clear(&mut self) {
        self.bytes.clear();
        self.items.clear();
        self.faults.clear();
        self.failed_offer = false;
    }
}

impl Machine<'_> {
    /// Collects every successor of `st` into `g` (only process `only`'s when it holds atomic
    /// control) and faults into `g.faults`. Returns how many steps were executable, up to
    /// 255 (callers ask whether there were any).
    pub fn successors(&self, st: &State, only: Option<usize>, g: &mut Gen) -> usize {
        let mut c = Cursor::new(st, only.map(|p| p as u8));
        let Gen {
            bytes,
            items,
            faults,
            failed_offer,
            out,
            tmp,
        } = g;
        loop {
            match self.next(st, &mut c, out, tmp) {
                Next::Succ(mut s) => {
                    s.start = bytes.len() as u64;
                    s.len = out.v.len() as u32;
                    bytes.extend_from_slice(&out.v);
                    items.push(s);
                }
                Next::Fault(f) | Next::Report(f) => faults.push(f),
                Next::Group(_) => {}
                Next::Done => break,
            }
        }
        *failed_offer |= c.failed_offer;
        c.moved as usize
    }

    /// Whether process `pid` has an executable step (for `enabled()` and priorities);
    /// `nest` counts the `enabled()` probes this one is inside. A probe that meets pan's
    /// fatal `enabled()` of the running process, or nests too deep, fails with it.
    pub fn can_move(&self, st: &State, pid: Pid, timeout: bool, nest: u8) -> Result<bool, Fault> {
        let mut c = Cursor::new(st, Some(pid));
        c.no_priority = true;
        c.timeout = timeout;
        c.nest = nest;
        let (mut out, mut tmp) = (State::default(), State::default());
        loop {
            return match self.next(st, &mut c, &mut out, &mut tmp) {
                Next::Done => Ok(false),
                Next::Report(_) | Next::Group(_) => continue,
                Next::Fault(FaultAt {
                    fault: f @ (Fault::EnabledSelf | Fault::Unsupported(_)),
                    ..
                }) => Err(f),
                _ => Ok(true),
            };
        }
    }

    fn prio(&self, st: &State, pid: Pid) -> i32 {
        let t = st.ptype(pid);
        st.priority(&self.layout, pid, self.prog.procs[t].priority as i32)
    }

    /// The next successor of `st` in pan's order, built in `out` (`tmp` is scratch).
    pub fn next(&self, st: &State, c: &mut Cursor, out: &mut State, tmp: &mut State) -> Next {
        loop {
            if c.rv_next.is_some() {
                if let Some(r) = self.next_receiver(st, c, out, tmp) {
                    return r;
                }
                if c.rv_matched == 0 {
                    c.failed_offer = true;
                    c.offer_group = (!c.timeout).then_some(c.pid as u8);
                }
                continue;
            }
            if c.pid < 0 {
                if matches!(c.groups, Groups::Fair | Groups::FairSkipped) && !c.tail_announced {
                    c.tail_announced = true;
                    return Next::Group(None);
                }
                if c.groups == Groups::Record && !c.timeout && !c.tail_announced {
                    c.tail_announced = true;
                    return Next::Group(None);
                }
                if c.pass_moved == 0 && !c.timeout && c.only.is_none() {
                    let (failed_offer, offer_group) = (c.failed_offer, c.offer_group);
                    *c = Cursor {
                        timeout: true,
                        failed_offer,
                        offer_group,
                        // (A record's groups are of the first pass only.)
                        groups: match c.groups {
                            Groups::Fair | Groups::FairSkipped => c.groups,
                            _ => Groups::No,
                        },
                        ..Cursor::new(st, None)
                    };
                    continue;
                }
                return Next::Done;
            }
            let pid = c.pid as Pid;
            if !c.entered {
                if matches!(c.groups, Groups::Fair | Groups::FairSkipped)
                    && !c.announced
                    && c.only.is_none_or(|o| o as Pid == pid)
                {
                    c.announced = true;
                    return Next::Group(Some(pid as u8));
                }
                if c.groups == Groups::Record && !c.timeout && !c.announced {
                    c.announced = true;
                    return Next::Group(Some(pid as u8));
                }
                c.entered = true;
                if c.pid as usize == st.nr_pr() - 1 || c.only.is_some() {
                    self.start_pass(st, c);
                }
                let skip = c.only.is_some_and(|o| o as Pid != pid)
                    || !self.provided(st, pid)
                    || (self.layout.uses_priority && !c.no_priority && self.prio(st, pid) < c.top);
                if skip {
                    if c.groups == Groups::Fair && c.announced {
                        // pan skips it after weak fairness's rule 2 (`CONTINUE0`).
                        c.groups = Groups::FairSkipped;
                    }
                    c.next_proc();
                    continue;
                }
            }
            // (The location's edges are read from the packed table: the program's own
            // edges are trees, and most edges tried do not move.)
            let no = match self.edge_range(st, pid) {
                Some((first, end)) if first + c.edge < end => first + c.edge,
                _ => {
                    c.next_proc();
                    continue;
                }
            };
            let e = *self.hot(no);
            if c.escaped != 0 && c.escaped != e.escape_group {
                c.next_proc();
                continue;
            }
            let k = c.edge;
            c.edge += 1;
            let t = st.ptype(pid);
            let cx = Ctx {
                pid,
                timeout: c.timeout,
                stutter: false,
                nest: c.nest,
            };
            // The buffer a send or receive that may move works on.
            let mut chan_at = None;
            if e.kind == EdgeKind::Else && c.proc_moved > 0 {
                continue;
            }
            let chan = match (e.kind, &e.edge.stmt) {
                (EdgeKind::Chan, LStmt::Send { chan, .. } | LStmt::Recv { chan, .. }) => Some(chan),
                _ => None,
            };
            if let Some(chan) = chan {
                self.soft.set(None);
                // (The channel is read once here for both questions: a rendezvous, and
                // else a buffer the statement surely blocks on.)
                let at = match self.chan_of(st, cx, chan) {
                    Ok(at) => at,
                    Err(f) => {
                        moved(c, e.escape, e.escape_group);
                        return fault(pid, no, None, f);
                    }
                };
                match self.layout.chans[st.chan_type(at)].capacity == 0 {
                    true if matches!(e.edge.stmt, LStmt::Send { .. }) => {
                        c.rv_edge = k;
                        c.rv_next = Some(st.nr_pr() as u8);
                        c.rv_next_edge = 0;
                        c.rv_matched = 0;
                        if self.trace.is_some() {
                            // pan's trace sees the send once per offer, taken or not.
                            match self.offer_event(st, cx, &e.edge.stmt) {
                                Ok(None) => {}
                                Ok(Some(hit)) => return report(pid, no, hit.fault()),
                                Err(f) => {
                                    c.rv_next = None;
                                    moved(c, e.escape, e.escape_group);
                                    return fault(pid, no, None, f);
                                }
                            }
                        }
                        continue;
                    }
                    // pan: "polling rv chan"; such a receive never executes.
                    true if matches!(e.edge.stmt, LStmt::Recv { copy: true, .. }) => {
                        return report(pid, no, Fault::CopyRendezvous);
                    }
                    // A rendezvous receive moves only together with its sender.
                    true => continue,
                    false => {
                        let len = st.chan_len(at);
                        let blocked = match e.edge.stmt {
                            LStmt::Send { .. } => {
                                len as u32 >= self.layout.chans[st.chan_type(at)].capacity
                            }
                            _ => len == 0,
                        };
                        if blocked {
                            if let Some(f) = self.soft.take() {
                                return report(pid, no, f);
                            }
                            continue;
                        }
                        chan_at = Some(at);
                    }
                }
            }
            self.soft.set(None);
            // A condition is evaluated once: its value decides, and executing it changes
            // nothing.
            // (A compiled condition never reads the statement's tree.)
            let cond = match (e.kind, self.cond(no)) {
                (EdgeKind::Cond, Some(code)) => Some(code.eval(self, st, cx)),
                (EdgeKind::Cond, None) => match &e.edge.stmt {
                    LStmt::Expr(x) => Some(self.eval(st, cx, x)),
                    _ => None,
                },
                _ => None,
            };
            let blocked = match &cond {
                Some(v) => matches!(v, Ok(0)),
                None => self.surely_blocked(st, cx, &e.edge.stmt),
            };
            if blocked {
                if let Some(f) = self.soft.take() {
                    return report(pid, no, f);
                }
                continue;
            }
            out.copy_from(st);
            let done = match (cond, self.assign(no), e.kind) {
                (Some(v), ..) => v.map(|_| Step::Done),
                (None, Some(a), _) => a.exec(self, out, cx).map(|()| Step::Done),
                (None, None, EdgeKind::Assert) => match self.cond(no) {
                    Some(code) => code.eval(self, out, cx).map(|v| match v {
                        0 => Step::Flagged(Flag::Assertion),
                        _ => Step::Done,
                    }),
                    None => self.exec(out, cx, e.edge),
                },
                (None, None, _) => match chan_at {
                    Some(at) => match self.recv_code(no) {
                        Some(r) => r.exec(self, out, cx, at),
                        None => self.exec_on_chan(out, cx, &e.edge.stmt, at),
                    },
                    None => self.exec(out, cx, e.edge),
                },
            };
            match done {
                Ok(Step::Blocked) => {
                    if let Some(f) = self.soft.take() {
                        return report(pid, no, f);
                    }
                    continue;
                }
                Ok(step) => {
                    if e.kind != EdgeKind::End {
                        out.set_loc(pid, self.target(no));
                    }
                    self.set_last(out, pid);
                    moved(c, e.escape, e.escape_group);
                    let mut flag = match step {
                        Step::Flagged(f) => Some(f),
                        _ => None,
                    };
                    if self.soft.take().is_some() {
                        flag = match flag {
                            None => Some(Flag::PollRendezvous),
                            Some(Flag::Assertion) => Some(Flag::PollThenAssertion),
                            f => f,
                        };
                    }
                    // pan: "non-determinism in D_proctype" at a second move from one state.
                    if flag.is_none() && c.proc_moved > 1 && self.prog.procs[t].deterministic {
                        flag = Some(Flag::DProctype);
                    }
                    return Next::Succ(Succ {
                        start: 0,
                        len: 0,
                        pid: pid as u8,
                        edge: no,
                        rv: None,
                        atomic: e.atomic,
                        flag,
                    });
                }
                Err(f) => {
                    self.soft.set(None);
                    moved(c, e.escape, e.escape_group);
                    return fault(pid, no, None, f);
                }
            }
        }
    }

    /// At the start of a pass: with priorities, the highest priority of a process that can
    /// move (pan lets only those move).
    fn start_pass(&self, st: &State, c: &mut Cursor) {
        if !self.layout.uses_priority || c.no_priority || c.top != i32::MIN {
            return;
        }
        c.top = st
            .pids()
            .filter(|&p| c.only.is_none_or(|o| o as Pid == p))
            .filter(|&p| {
                self.provided(st, p) && self.can_move(st, p, c.timeout, c.nest).unwrap_or(true)
            })
            .map(|p| self.prio(st, p))
            .max()
            .unwrap_or(i32::MIN + 1);
    }

    /// The next receiver (any other process, highest pid first) that takes the pending
    /// rendezvous offer; None when there is none left.
    fn next_receiver(
        &self,
        st: &State,
        c: &mut Cursor,
        out: &mut State,
        tmp: &mut State,
    ) -> Option<Next> {
        let (mut q, mut k) = (c.rv_next?, c.rv_next_edge);
        c.rv_next = None;
        let pid = c.pid as Pid;
        let loc = self.location(st, pid)?;
        let e = loc.edges.get(c.rv_edge as usize)?;
        let no = self.edge_no(st.ptype(pid), st.loc(pid), c.rv_edge as usize);
        let LStmt::Send { chan, args, .. } = &e.stmt else {
            return None;
        };
        let cx = Ctx {
            pid,
            timeout: c.timeout,
            stutter: false,
            nest: c.nest,
        };
        let mut vals = [0i32; MAX_FIELDS];
        let sent = (|| {
            let n = self.message(st, cx, args, &mut vals)?;
            let id = self.read_var(st, cx, chan)?;
            let at = self.chan_of(st, cx, chan)?;
            Ok::<_, Fault>((n, id, at))
        })();
        let (n, id, at) = match sent {
            Ok(x) => x,
            Err(f) => {
                moved(c, e.escape, e.escape_group);
                return Some(fault(pid, no, None, f));
            }
        };
        let fields = &self.layout.chans[st.chan_type(at)].fields;
        for (i, f) in fields.iter().enumerate().take(n) {
            vals[i] = f.truncate(vals[i]);
        }
        let vals = &vals[..n.min(fields.len())];
        tmp.copy_from(st);
        tmp.set_loc(pid, self.target(no));
        self.set_last(tmp, pid);
        if let Some(t) = &self.trace {
            // The send moves the trace before the receive is tried; what it reported was
            // reported at the offer.
            if let Ok(Some((to, _))) = self.trace_require(t, tmp, Dir::Send, at, Msg::Vals(vals)) {
                t.set_loc(tmp, to);
            }
        }
        loop {
            if k == 0 {
                if q == 0 {
                    return None;
                }
                q -= 1;
                if q as Pid == pid
                    || !self.provided(tmp, q as Pid)
                    || !self.may_receive(tmp, q as Pid)
                {
                    continue;
                }
            }
            let qp = q as Pid;
            let Some(lq) = self.location(tmp, qp) else {
                k = 0;
                continue;
            };
            let Some(re) = lq.edges.get(k as usize) else {
                k = 0;
                continue;
            };
            let rk = k;
            k += 1;
            // A receive, or a d_step whose first statement is one (the rest of its body
            // runs in the same transition).
            let (rc, ra, copy, rest) = match &re.stmt {
                LStmt::Recv {
                    chan, args, copy, ..
                } => (chan, args.as_slice(), *copy, None),
                LStmt::DStep(a) => match a.first_receive() {
                    Some((LStmt::Recv { chan, args, .. }, then)) => {
                        (chan, args.as_slice(), false, Some((a.as_ref(), then)))
                    }
                    _ => continue,
                },
                _ => continue,
            };
            let rno = self.edge_no(tmp.ptype(qp), tmp.loc(qp), rk as usize);
            let cq = Ctx {
                pid: qp,
                timeout: c.timeout,
                stutter: false,
                nest: c.nest,
            };
            let rv = Some((q, rno));
            let resume = |c: &mut Cursor| {
                c.rv_next = Some(q);
                c.rv_next_edge = k;
            };
            if copy {
                if self.read_var(tmp, cq, rc).is_ok_and(|x| x == id) {
                    resume(c);
                    return Some(report(qp, rno, Fault::CopyRendezvous));
                }
                continue;
            }
            let takes = self
                .read_var(tmp, cq, rc)
                .and_then(|x| Ok(x == id && self.rendezvous_matches(tmp, cq, ra, vals, fields)?));
            match takes {
                Ok(true) => {}
                Ok(false) => continue,
                Err(f) => {
                    resume(c);
                    moved(c, e.escape, e.escape_group);
                    c.rv_matched = c.rv_matched.saturating_add(1);
                    return Some(fault(pid, no, rv, f));
                }
            }
            resume(c);
            moved(c, e.escape, e.escape_group);
            c.rv_matched = c.rv_matched.saturating_add(1);
            let mut flag = match self.recv_fields(tmp, cq, ra, fields.len()) {
                Ok(Step::Flagged(f)) => Some(f),
                Ok(_) if n < fields.len() => Some(Flag::SendFields),
                Ok(_) if n > fields.len() => Some(Flag::SendTooMany),
                Ok(_) => None,
                Err(f) => return Some(fault(pid, no, rv, f)),
            };
            out.copy_from(tmp);
            if let Err(f) = self.assign_message(out, cq, ra, vals) {
                return Some(fault(pid, no, rv, f));
            }
            if self.trace.is_some() {
                match self.trace_event(out, Dir::Recv, at, Msg::Vals(vals)) {
                    Ok(hit) => flag = flag.or(hit.map(|h| h.flag(true))),
                    Err(f) => return Some(fault(pid, no, rv, f)),
                }
            }
            if let Some((a, then)) = rest {
                match self.dstep(out, cq, a, then, false) {
                    Ok(Step::Flagged(f)) => flag = flag.or(Some(f)),
                    Ok(_) => {}
                    Err(f) => return Some(fault(pid, no, rv, f)),
                }
            }
            out.set_loc(qp, self.target(rno));
            self.set_last(out, qp);
            return Some(Next::Succ(Succ {
                start: 0,
                len: 0,
                pid: pid as u8,
                edge: no,
                rv,
                atomic: re.atomic,
                flag,
            }));
        }
    }

    /// The trace's error at a rendezvous offer of `send` from `st`: the trace sees the
    /// send once, whether a receiver takes it or not. An offer whose message or channel
    /// cannot be evaluated fails as each of its receives is tried, so none here.
    fn offer_event(
        &self,
        st: &State,
        cx: Ctx,
        send: &LStmt,
    ) -> Result<Option<super::trace::Hit>, Fault> {
        let (Some(t), LStmt::Send { chan, args, .. }) = (&self.trace, send) else {
            return Ok(None);
        };
        let mut vals = [0i32; MAX_FIELDS];
        let Ok(n) = self.message(st, cx, args, &mut vals) else {
            return Ok(None);
        };
        let Ok(at) = self.chan_of(st, cx, chan) else {
            return Ok(None);
        };
        let fields = &self.layout.chans[st.chan_type(at)].fields;
        for (i, f) in fields.iter().enumerate().take(n) {
            vals[i] = f.truncate(vals[i]);
        }
        let vals = &vals[..n.min(fields.len())];
        Ok(self
            .trace_require(t, st, Dir::Send, at, Msg::Vals(vals))?
            .and_then(|(_, hit)| hit))
    }

    /// A cheap test, on the unchanged state, that a statement other than a condition, a
    /// send or a receive (asked before it is) cannot execute: `-end-` of a process that is
    /// not the last. Saves copying the state; errors are left to the real execution.
    fn surely_blocked(&self, st: &State, cx: Ctx, s: &LStmt) -> bool {
        matches!(s, LStmt::End) && usize::from(cx.pid) + 1 != st.nr_pr()
    }

    fn set_last(&self, st: &mut State, pid: Pid) {
        if let Some(a) = self.layout.last_at {
            st.v[a as usize] = pid;
        }
    }
}

/// Counts an executed step of the current process.
fn moved(c: &mut Cursor, escape: bool, escape_group: u32) {
    c.proc_moved = c.proc_moved.saturating_add(1);
    c.pass_moved = c.pass_moved.saturating_add(1);
    c.moved = c.moved.saturating_add(1);
    if escape {
        c.escaped = escape_group;
    }
}

fn report(pid: Pid, edge: EdgeNo, fault: Fault) -> Next {
    let (fault, flag) = fault.split();
    Next::Report(FaultAt {
        pid,
        edge,
        rv: None,
        fault,
        flag,
    })
}

fn fault(pid: Pid, edge: EdgeNo, rv: Option<(u8, EdgeNo)>, fault: Fault) -> Next {
    let (fault, flag) = fault.split();
    Next::Fault(FaultAt {
        pid,
        edge,
        rv,
        fault,
        flag,
    })
}
