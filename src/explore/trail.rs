//! Counter-example trails: the steps from the initial state to a violation, replayed through
//! the interpreter (so every reported trail is checked to be executable), with the values each
//! step changed and the `printf` output along the way.

use crate::explore::Pid;
use crate::program::expr::LStmt;

use super::eval::Ctx;
use super::layout::Shape;
use super::machine::{EdgeNo, Machine};
use super::outcome::{Options, Violation, ViolationKind};
use super::property;
use super::search::{fault_kind, flag_at, flag_kind};
use super::state::State;
use super::succ::{Cursor, Gen, Next};

/// One step: process `pid` executed `edge` (and, for a rendezvous, `rv` received).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrailStep {
    pub pid: Pid,
    pub edge: EdgeNo,
    pub rv: Option<(u8, EdgeNo)>,
}

/// A replayed step, ready to print (the edge names the proctype and the statement).
#[derive(Clone, Debug)]
pub struct TrailView {
    /// Its place in the whole trail, from 1 (the halves of a rendezvous count one each).
    pub step: usize,
    pub pid: Pid,
    pub edge: EdgeNo,
    /// (name, new value) of every variable the step changed.
    pub changed: Vec<(String, i64)>,
    /// What a `printf` in this step prints.
    pub output: Option<String>,
    /// Set on the receiving half of a rendezvous.
    pub receive: bool,
}

/// A violation's trail, replayed: the steps described, and how many there are in all.
#[derive(Clone, Debug)]
pub struct Replayed {
    pub views: Vec<TrailView>,
    pub steps: usize,
}

/// Where a replayed trail ended: the state reached, and what its last step flagged or
/// the fault it ended in.
struct Ended {
    state: State,
    /// Steps in the whole trail (rendezvous halves counted one each).
    views: usize,
    /// What the last step flagged, and the edge the flag's violation is at.
    flag: Option<(super::exec::Flag, EdgeNo)>,
    fault: Option<ViolationKind>,
}

enum Taken {
    Next(Option<super::exec::Flag>),
    Fault(super::eval::Fault),
    No,
}

/// Why a trail could not be replayed.
#[derive(Debug, thiserror::Error)]
#[error("trail step {step} (pid {pid}) is not executable")]
pub struct ReplayError {
    pub step: usize,
    pub pid: Pid,
}

impl Machine<'_> {
    /// Takes one trail step from `st`, as the search generated it.
    /// Walks `st`'s successors (the moving process's alone first, as inside an atomic
    /// sequence, then everyone's) up to the step `s`; its state is left in `out`.
    fn take(&self, st: &State, s: &TrailStep, out: &mut State, tmp: &mut State) -> Taken {
        if s.pid == super::claim::CLAIM_PID && self.claim.is_some() {
            return match self.claim_take(st, s.edge, out) {
                Some(Ok(flag)) => Taken::Next(flag),
                Some(Err(f)) => Taken::Fault(f),
                None => Taken::No,
            };
        }
        if let Some(t) = self.take_direct(st, s, out) {
            return t;
        }
        // A `timeout` inside an atomic sequence continues the pass that enabled the
        // sequence's first `timeout` (the search keeps its timeout there): a step found in
        // no plain pass is looked for in a timeout pass.
        for (only, timeout) in [(Some(s.pid), false), (None, false), (Some(s.pid), true)] {
            let mut c = Cursor::product(st, only, timeout);
            loop {
                match self.next(st, &mut c, out, tmp) {
                    Next::Succ(it) if it.pid == s.pid && it.edge == s.edge && it.rv == s.rv => {
                        return Taken::Next(it.flag);
                    }
                    Next::Fault(f) | Next::Report(f)
                        if f.pid == s.pid && f.edge == s.edge && f.rv == s.rv =>
                    {
                        return Taken::Fault(f.fault.after(f.flag));
                    }
                    Next::Done => break,
                    _ => {}
                }
            }
        }
        Taken::No
    }

    /// Executes step `s` directly when nothing else at its location can change whether or
    /// how it moves: not an `else`, no `unless` escapes there, no rendezvous, priorities or
    /// `provided` clauses in the model. None: enumerate instead (also when the step does not
    /// execute directly, as a `timeout` guard outside the timeout pass).
    fn take_direct(&self, st: &State, s: &TrailStep, out: &mut State) -> Option<Taken> {
        let pid = s.pid;
        if s.rv.is_some()
            || self.layout.uses_priority
            || usize::from(pid) >= st.nr_pr()
            || self.prog.procs.iter().any(|p| p.provided.is_some())
        {
            return None;
        }
        let (p, l, _) = *self.edges.get(s.edge as usize)?;
        if st.ptype(pid) != p as usize || st.loc(pid) != l {
            return Some(Taken::No);
        }
        let loc = self.location(st, pid)?;
        let e = self.edge(s.edge);
        let rendezvous = |stmt: &LStmt| match stmt {
            LStmt::Send { chan, .. } | LStmt::Recv { chan, .. } => {
                !matches!(self.is_rendezvous(st, Ctx::of(pid), chan), Ok(false))
            }
            // A d_step that starts with a receive may be a rendezvous's receiving half.
            LStmt::DStep(a) => a.first_receive().is_some(),
            _ => false,
        };
        if matches!(e.stmt, LStmt::Else)
            || loc.edges.iter().any(|x| x.escape)
            || rendezvous(&e.stmt)
            || self.prog.procs[p as usize].deterministic
        {
            return None;
        }
        out.copy_from(st);
        self.soft.set(None);
        let r = self.exec(out, Ctx::of(pid), e);
        if self.soft.take().is_some() {
            return None;
        }
        Some(match r {
            // Executable only in a pass this shortcut does not make (`timeout`): enumerate.
            Ok(super::exec::Step::Blocked) => return None,
            Ok(step) => {
                if !matches!(e.stmt, LStmt::End) {
                    out.set_loc(pid, self.target(s.edge));
                }
                if let Some(a) = self.layout.last_at {
                    out.v[a as usize] = pid;
                }
                Taken::Next(match step {
                    super::exec::Step::Flagged(f) => Some(f),
                    _ => None,
                })
            }
            Err(f) => Taken::Fault(f),
        })
    }

    /// Replays a trail from the initial state vector, describing every step. The last step
    /// may be one that fails (an index error, a division by zero); the others must produce
    /// a successor.
    pub fn replay(
        &self,
        initial: &[u8],
        steps: &[TrailStep],
    ) -> Result<Vec<TrailView>, ReplayError> {
        let mut views = Vec::with_capacity(steps.len());
        self.follow(initial, steps, Some(&mut views), None)
            .map(|_| views)
    }

    /// Replays a violation's trail, describing its steps, and checks that it ends in that
    /// very violation (see `reproduces`); one pass for both. With `window`, only that many
    /// steps (half from each end) get their changed values worked out.
    pub fn replay_violation(
        &self,
        initial: &[u8],
        v: &Violation,
        opts: &Options,
        window: Option<usize>,
    ) -> Result<Replayed, ReplayError> {
        let steps = v.trail.as_deref().unwrap_or_default();
        let mut views = Vec::with_capacity(window.unwrap_or(steps.len()).min(steps.len() * 2));
        let end = self.follow(initial, steps, Some(&mut views), window)?;
        if self.ends_in(initial, &end, steps, v, opts) {
            Ok(Replayed {
                views,
                steps: end.views,
            })
        } else {
            Err(ReplayError {
                step: steps.len(),
                pid: v.pid.unwrap_or(0),
            })
        }
    }

    /// Replays a violation's trail and checks that it ends in that very violation: the last
    /// step fails the assertion or faults with the same kind, or (invalid end states) the
    /// state reached has no move and is an invalid end state (`property`'s definition, with
    /// the check's options) with the same processes blocked at the same places. A violation
    /// without a trail has nothing to check.
    pub fn reproduces(&self, initial: &[u8], v: &Violation, opts: &Options) -> bool {
        let Some(steps) = &v.trail else {
            return true;
        };
        match self.follow(initial, steps, None, None) {
            Ok(end) => self.ends_in(initial, &end, steps, v, opts),
            Err(_) => false,
        }
    }

    /// The fault that step `last` ends in when it is taken after `steps` from `initial`
    /// (None: it does not fail there). A replay knows that a step failed, not the values
    /// the message names.
    pub fn fault_after(
        &self,
        initial: &[u8],
        steps: &[TrailStep],
        last: &TrailStep,
    ) -> Option<super::eval::Fault> {
        let end = self.follow(initial, steps, None, None).ok()?;
        let (mut out, mut tmp) = (State::default(), State::default());
        match self.take(&end.state, last, &mut out, &mut tmp) {
            Taken::Fault(f) => Some(f),
            _ => None,
        }
    }

    /// The violation of `kind` that the search reports where trail `steps` from `initial`
    /// ends, made from the trail alone as the search makes it there (its edge, process,
    /// message and blocked processes), for a version whose search is known to take that
    /// trail to it (a record's state graph unchanged). None: the trail does not end in a
    /// violation of that kind.
    pub fn violation_after(
        &self,
        initial: &[u8],
        steps: &[TrailStep],
        kind: ViolationKind,
        opts: &Options,
    ) -> Option<Violation> {
        let end = self.follow(initial, steps, None, None).ok()?;
        let made = |edge: Option<EdgeNo>, pid: Option<Pid>, message: String, blocked| {
            Some(Violation {
                kind,
                edge,
                pid,
                message,
                blocked,
                trail: Some(steps.to_vec()),
                via: None,
                cycle: None,
                cycle_depth: None,
            })
        };
        let last = steps.last();
        if let (Some((flag, _)), Some(last)) = (end.flag, last) {
            if let Some(part) = flag.parts().find(|&p| flag_kind(p) == kind) {
                let (pid, edge) = flag_at(part, last);
                let message = super::search::flag_message(self, part, edge);
                return made(Some(edge), Some(pid), message, Vec::new());
            }
        }
        if let (Some(k), Some(last)) = (end.fault, last) {
            if k != kind {
                return None;
            }
            let (f, _) = self
                .fault_after(initial, &steps[..steps.len() - 1], last)?
                .split();
            let (pid, edge) = property::fault_at(last);
            let message = super::search::fault_message_at(self, &f, edge);
            return made(Some(edge), Some(pid), message, Vec::new());
        }
        match kind {
            ViolationKind::InvalidEndState | ViolationKind::TraceIncomplete => {
                let mut blocked = Vec::new();
                let ends = self.successors(&end.state, None, &mut Gen::default()) == 0
                    && property::invalid_end(self, &end.state, opts, &mut blocked)
                    && property::end_kind(self, &blocked) == kind;
                let message = property::end_message(self, &blocked);
                ends.then(|| made(None, None, message, blocked)).flatten()
            }
            ViolationKind::NonTerminatingAtomic => {
                let last = last?;
                let pid = last.rv.map_or(last.pid, |(q, _)| q);
                let message = super::search::NON_TERMINATING.to_string();
                made(Some(last.edge), Some(pid), message, Vec::new())
            }
            _ => None,
        }
    }

    /// Takes every step of a trail from `initial`, describing each into `views` when
    /// given. Returns where the trail ended.
    fn follow(
        &self,
        initial: &[u8],
        steps: &[TrailStep],
        mut views: Option<&mut Vec<TrailView>>,
        window: Option<usize>,
    ) -> Result<Ended, ReplayError> {
        let n = steps.len();
        let shown = |i: usize| window.is_none_or(|w| i < w / 2 || i + (w - w / 2) >= n);
        let mut st = State::default();
        st.load(&self.layout, initial);
        let mut prev = State::default();
        let (mut next, mut tmp) = (State::default(), State::default());
        let mut number = 0;
        let mut ended = Ended {
            state: State::default(),
            views: 0,
            flag: None,
            fault: None,
        };
        for (i, s) in steps.iter().enumerate() {
            let described = views.is_some() && shown(i);
            let output = if described {
                self.printf_text(&st, s)
            } else {
                None
            };
            let changed = match self.take(&st, s, &mut next, &mut tmp) {
                Taken::Next(flag) => {
                    std::mem::swap(&mut prev, &mut st);
                    std::mem::swap(&mut st, &mut next);
                    if i + 1 == steps.len() {
                        ended.flag = flag.map(|f| (f, flag_at(f, s).1));
                    }
                    if described {
                        self.changes(&prev, &st)
                    } else {
                        Vec::new()
                    }
                }
                Taken::Fault(f) if i + 1 == steps.len() => {
                    ended.fault = Some(fault_kind(&f));
                    if let super::eval::Fault::Flagged { flag, .. } = f {
                        ended.flag = Some((flag, flag_at(flag, s).1));
                    }
                    Vec::new()
                }
                _ => {
                    return Err(ReplayError {
                        step: i + 1,
                        pid: s.pid,
                    })
                }
            };
            let first = number + 1;
            number += 1 + usize::from(s.rv.is_some());
            let Some(out) = views.as_deref_mut() else {
                continue;
            };
            if !described {
                continue;
            }
            out.push(TrailView {
                step: first,
                pid: s.pid,
                edge: s.edge,
                changed: if s.rv.is_some() {
                    Vec::new()
                } else {
                    changed.clone()
                },
                output,
                receive: false,
            });
            if let Some((q, r)) = s.rv {
                out.push(TrailView {
                    step: first + 1,
                    pid: q,
                    edge: r,
                    changed,
                    output: None,
                    receive: true,
                });
            }
        }
        ended.state = st;
        ended.views = number;
        Ok(ended)
    }

    /// Whether a replayed trail ended in violation `v`.
    fn ends_in(
        &self,
        initial: &[u8],
        end: &Ended,
        steps: &[TrailStep],
        v: &Violation,
        opts: &Options,
    ) -> bool {
        // An error while the initial state is made (a global's initialiser): no step.
        let end_state = matches!(
            v.kind,
            ViolationKind::InvalidEndState | ViolationKind::TraceIncomplete
        );
        // (An accept stutter in the initial state has no step either.)
        let stutter = v.kind == ViolationKind::AcceptanceCycle && v.cycle == Some(steps.len());
        if steps.is_empty() && v.edge.is_none() && !end_state && !stutter {
            return self.initial().err().map(|f| fault_kind(&f)) == Some(v.kind);
        }
        // (A step that reported an error and then failed ends in both.)
        if let Some((f, edge)) = end.flag {
            if f.parts().any(|p| flag_kind(p) == v.kind) {
                return Some(edge) == v.edge;
            }
        }
        if let Some(k) = end.fault {
            return k == v.kind;
        }
        match v.kind {
            ViolationKind::InvalidEndState | ViolationKind::TraceIncomplete => {
                let mut g = Gen::default();
                let mut blocked = Vec::new();
                self.successors(&end.state, None, &mut g) == 0
                    && property::invalid_end(self, &end.state, opts, &mut blocked)
                    && blocked == v.blocked
            }
            // The repeated state is the one the trail ends in.
            ViolationKind::NonTerminatingAtomic => !steps.is_empty(),
            ViolationKind::ClaimEnd => self.claim_end_edge(&end.state) == v.edge,
            // The trail comes back to the state where the cycle starts.
            ViolationKind::AcceptanceCycle | ViolationKind::NonProgressCycle => {
                let Some(k) = v.cycle.filter(|&k| k <= steps.len()) else {
                    return false;
                };
                if k == steps.len() {
                    // An accept stutter (no claim): nothing moves from the accepting state
                    // the trail ends in.
                    let mut g = Gen::default();
                    return self.claim.is_none()
                        && self.accepting(&end.state)
                        && self.successors(&end.state, None, &mut g) == 0;
                }
                let hidden = self.layout.hidden_size as usize;
                self.follow(initial, &steps[..k], None, None)
                    .is_ok_and(|start| start.state.v[hidden..] == end.state.v[hidden..])
            }
            _ => false,
        }
    }

    /// The variables whose values differ from `a` to `b` (a step's effect), with their new
    /// values, named as `describe` names them; only what changed is rendered.
    pub fn changes(&self, a: &State, b: &State) -> Vec<(String, i64)> {
        let mut out = Vec::new();
        for g in &self.layout.globals {
            let at = self.layout.global_base(g) as usize;
            diff_scalars(&g.name, &g.shape, at, at, a, b, &mut out);
        }
        for pid in b.pids() {
            let t = b.ptype(pid);
            let pname = &self.prog.procs[t].name;
            let bb = b.locals_at(&self.layout, pid);
            let same = usize::from(pid) < a.nr_pr() && a.ptype(pid) == t;
            for l in &self.layout.procs[t].locals {
                let name = || format!("{pname}({pid}):{}", l.name);
                let y = bb + l.offset as usize;
                if same {
                    let x = a.locals_at(&self.layout, pid) + l.offset as usize;
                    let n = l.shape.size() as usize;
                    if a.v.get(x..x + n) != b.v.get(y..y + n) {
                        diff_scalars(&name(), &l.shape, x, y, a, b, &mut out);
                    }
                } else {
                    named_scalars(&name(), &l.shape, y, b, &mut out);
                }
            }
        }
        for (c, &at) in b.chans.iter().enumerate() {
            let at = at as usize;
            let size = self.layout.chans[b.chan_type(at)].record_size();
            let same = a
                .chans
                .get(c)
                .is_some_and(|&x| a.v.get(x as usize..x as usize + size) == b.v.get(at..at + size));
            if !same {
                out.push(self.queue(b, c));
            }
        }
        out
    }

    /// A channel's contents as `describe` renders them.
    fn queue(&self, st: &State, c: usize) -> (String, i64) {
        let at = st.chans[c] as usize;
        let cl = &self.layout.chans[st.chan_type(at)];
        let len = st.chan_len(at);
        let mut msgs = Vec::new();
        for k in 0..len {
            let msg = at + 2 + k * cl.msg_size as usize;
            let fields: Vec<String> = cl
                .fields
                .iter()
                .zip(&cl.field_offsets)
                .map(|(f, o)| f.read(&st.v, msg + *o as usize).to_string())
                .collect();
            msgs.push(fields.join(","));
        }
        // Channel contents change as a whole: the rendering is in the name so that a
        // change shows up.
        (format!("queue {} [{}]", c + 1, msgs.join("][")), len as i64)
    }

    /// Every variable of a state with its value: globals, then each process's locals as
    /// `Proc(pid):name`, then channel contents as `chan N`.
    pub fn describe(&self, st: &State) -> Vec<(String, i64)> {
        let mut out = Vec::new();
        for g in &self.layout.globals {
            let base = self.layout.global_base(g) as usize;
            named_scalars(&g.name, &g.shape, base, st, &mut out);
        }
        for pid in st.pids() {
            let t = st.ptype(pid);
            let base = st.locals_at(&self.layout, pid);
            let pname = &self.prog.procs[t].name;
            for l in &self.layout.procs[t].locals {
                let name = format!("{pname}({pid}):{}", l.name);
                named_scalars(&name, &l.shape, base + l.offset as usize, st, &mut out);
            }
        }
        for c in 0..st.chans.len() {
            out.push(self.queue(st, c));
        }
        out
    }

    /// The text a `printf` step prints, evaluated in the state before the step.
    fn printf_text(&self, st: &State, s: &TrailStep) -> Option<String> {
        let e = self.edge(s.edge);
        let cx = Ctx::of(s.pid);
        match &e.stmt {
            LStmt::Printf(fmt, args) => {
                let vals: Vec<i64> = args
                    .iter()
                    .map(|a| self.eval(st, cx, a).map(i64::from).unwrap_or(0))
                    .collect();
                Some(format_printf(fmt, &vals, &self.prog.mtypes))
            }
            LStmt::Printm(a) => {
                let v = self.eval(st, cx, a).unwrap_or(0) as i64;
                Some(mtype_name(v, &self.prog.mtypes))
            }
            _ => None,
        }
    }
}

/// The scalars of a variable whose value differs between `a` (at `x`) and `b` (at `y`);
/// names are rendered only for what differs.
fn diff_scalars(
    name: &str,
    shape: &Shape,
    x: usize,
    y: usize,
    a: &State,
    b: &State,
    out: &mut Vec<(String, i64)>,
) {
    let n = shape.size() as usize;
    if a.v.get(x..x + n) == b.v.get(y..y + n) {
        return;
    }
    match shape {
        Shape::Scalar(s) => out.push((name.to_string(), s.read(&b.v, y) as i64)),
        Shape::Array { elem, len, stride } => {
            for i in 0..*len as usize {
                let d = i * *stride as usize;
                let m = elem.size() as usize;
                if a.v.get(x + d..x + d + m) != b.v.get(y + d..y + d + m) {
                    diff_scalars(&format!("{name}[{i}]"), elem, x + d, y + d, a, b, out);
                }
            }
        }
        Shape::Record { fields, names } => {
            for ((o, s), f) in fields.iter().zip(names) {
                let o = *o as usize;
                diff_scalars(&format!("{name}.{f}"), s, x + o, y + o, a, b, out);
            }
        }
    }
}

fn named_scalars(name: &str, shape: &Shape, at: usize, st: &State, out: &mut Vec<(String, i64)>) {
    match shape {
        Shape::Scalar(s) => out.push((name.to_string(), s.read(&st.v, at) as i64)),
        Shape::Array { elem, len, stride } => {
            for i in 0..*len {
                named_scalars(
                    &format!("{name}[{i}]"),
                    elem,
                    at + (i * stride) as usize,
                    st,
                    out,
                );
            }
        }
        Shape::Record { fields, names } => {
            for ((o, s), n) in fields.iter().zip(names) {
                named_scalars(&format!("{name}.{n}"), s, at + *o as usize, st, out);
            }
        }
    }
}

fn mtype_name(v: i64, mtypes: &[(String, i64, Option<String>)]) -> String {
    // Each mtype subtype counts from 1: a value names a plain mtype first, as spin's `%e`.
    let named = |plain: bool| {
        mtypes
            .iter()
            .find(|(_, x, s)| *x == v && s.is_none() == plain)
    };
    named(true)
        .or_else(|| named(false))
        .map(|(n, _, _)| n.clone())
        .unwrap_or_else(|| v.to_string())
}

/// Formats a Promela `printf` as spin does for `%d %i %u %c %x %X %o %e %s %%`.
pub fn format_printf(fmt: &str, vals: &[i64], mtypes: &[(String, i64, Option<String>)]) -> String {
    let body = fmt
        .strip_prefix('"')
        .and_then(|f| f.strip_suffix('"'))
        .unwrap_or(fmt);
    let mut out = String::new();
    let mut args = vals.iter();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(o) => out.push(o),
                None => out.push('\\'),
            },
            '%' => {
                // Skip flags and width.
                let mut spec = String::new();
                while let Some(&d) = chars.peek() {
                    if d.is_ascii_digit() || d == '-' || d == '.' || d == 'l' {
                        spec.push(d);
                        chars.next();
                    } else {
                        break;
                    }
                }
                match chars.next() {
                    Some('%') => out.push('%'),
                    Some(k) => {
                        let v = args.next().copied().unwrap_or(0);
                        match k {
                            'd' | 'i' => out.push_str(&v.to_string()),
                            'u' => out.push_str(&(v as u32).to_string()),
                            'c' => out.push(char::from_u32(v as u32).unwrap_or('?')),
                            'x' => out.push_str(&format!("{:x}", v as u32)),
                            'X' => out.push_str(&format!("{:X}", v as u32)),
                            'o' => out.push_str(&format!("{:o}", v as u32)),
                            'e' => out.push_str(&mtype_name(v, mtypes)),
                            _ => out.push_str(&v.to_string()),
                        }
                    }
                    None => out.push('%'),
                }
            }
            c => out.push(c),
        }
    }
    out
}
