//! Statement execution with pan's meaning: each statement first decides whether it is
//! executable and only then changes the working state. Process creation and removal, buffered
//! channel operations (`! !! ? ?? ?<>`), `d_step` bodies and variable initialisation live here;
//! rendezvous pairing lives with successor generation.

use super::code::{DOpCode, DRun, DStepCode};
use crate::explore::Pid;
use crate::program::dcode::{DFail, DStep, Pc};
use crate::program::expr::{LExpr, LRecvArg, LStmt, LVar};
use crate::program::types::{Var, VarInit};
use crate::program::Edge;

use super::eval::{Ctx, Fault, Located};
use super::layout::{Scalar, Shape};
use super::machine::Machine;
use super::state::State;
use super::trace::{Dir, Msg};

/// What executing a statement did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Not executable here; the state is unchanged.
    Blocked,
    Done,
    /// Done, with an error pan reports without ending the path.
    Flagged(Flag),
}

/// Errors a step reports while it still completes (as pan does with `-c0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flag {
    /// An assertion failed.
    Assertion,
    /// A send gave fewer values than the channel has fields.
    SendFields,
    /// A receive named fewer variables than the channel has fields.
    RecvFields,
    /// A send gave more values than the channel has fields (the first ones are sent).
    SendTooMany,
    /// A poll of a rendezvous channel (it is false).
    PollRendezvous,
    /// A second transition of a `D_proctype` from one state.
    DProctype,
    /// A channel event no transition of the trace matches; `rv`: a rendezvous's receive,
    /// whose violation is the receiver's.
    TraceMismatch { rv: bool },
    /// A channel event that completes the `notrace` (`rv` as for `TraceMismatch`).
    NotraceMatched { rv: bool },
    /// A poll of a rendezvous channel in an assertion that then failed: two errors in one
    /// step, which pan reports in this order.
    PollThenAssertion,
}

impl Flag {
    /// The errors a flag stands for, in pan's order.
    pub fn parts(self) -> impl Iterator<Item = Flag> {
        let (first, then) = match self {
            Flag::PollThenAssertion => (Flag::PollRendezvous, Some(Flag::Assertion)),
            f => (f, None),
        };
        std::iter::once(first).chain(then)
    }
}

/// A step's result with the error it reported, if any.
fn flagged(flag: Option<Flag>) -> Step {
    flag.map_or(Step::Done, Step::Flagged)
}

/// The most message fields a channel may have (pan's limit is lower).
pub const MAX_FIELDS: usize = 64;

/// pan's limit on live processes.
pub const MAX_PROCS: usize = 255;

/// pan's limit on channels.
pub const MAX_CHANS: usize = 255;

/// Steps a `d_step` body may take before it is reported as not terminating.
const DSTEP_LIMIT: u32 = 1_000_000;

impl Machine<'_> {
    /// Executes `e`'s statement for process `cx.pid` on `st` (not moving the process).
    pub fn exec(&self, st: &mut State, cx: Ctx, e: &Edge) -> Result<Step, Fault> {
        self.exec_stmt(st, cx, &e.stmt)
    }

    fn exec_stmt(&self, st: &mut State, cx: Ctx, s: &LStmt) -> Result<Step, Fault> {
        match s {
            LStmt::Expr(LExpr::Run {
                proc,
                args,
                priority,
                ..
            }) => {
                self.run(st, cx, *proc, args, *priority)?;
                Ok(Step::Done)
            }
            LStmt::Expr(e) => Ok(if self.eval(st, cx, e)? != 0 {
                Step::Done
            } else {
                Step::Blocked
            }),
            LStmt::Assign(
                v,
                LExpr::Run {
                    proc,
                    args,
                    priority,
                    ..
                },
            ) => {
                let pid = self.run(st, cx, *proc, args, *priority)?;
                let p = self.place(st, cx, v)?;
                self.write_place(st, cx, p, pid);
                Ok(Step::Done)
            }
            LStmt::Assign(v, e) => {
                let val = self.eval(st, cx, e)?;
                let p = self.place(st, cx, v)?;
                self.write_place(st, cx, p, val);
                Ok(Step::Done)
            }
            LStmt::Send { chan, .. } | LStmt::Recv { chan, .. } => {
                let at = self.chan_of(st, cx, chan)?;
                self.exec_on_chan(st, cx, s, at)
            }
            LStmt::Else | LStmt::Goto(_) | LStmt::Printf(..) | LStmt::Printm(_) => Ok(Step::Done),
            LStmt::Assert(e) => Ok(if self.eval(st, cx, e)? != 0 {
                Step::Done
            } else {
                Step::Flagged(Flag::Assertion)
            }),
            LStmt::SetPriority(p, v) => {
                let pid = self.eval(st, cx, p)?;
                let v = self.eval(st, cx, v)?;
                // pan ignores a pid that names no process, then requires 1..255.
                if pid >= 0 && (pid as usize) < st.nr_pr() {
                    if !(1..=255).contains(&v) {
                        return Err(Fault::Priority(v));
                    }
                    st.set_priority(&self.layout, pid as Pid, v);
                }
                Ok(Step::Done)
            }
            LStmt::DStep(d) => self.dstep(st, cx, d, 0, true),
            LStmt::ChanInit(v, ct) => {
                let t = self.chan_type_index(ct)?;
                let id = self.add_chan(st, t)?;
                let p = self.place(st, cx, v)?;
                self.write_place(st, cx, p, id);
                Ok(Step::Done)
            }
            LStmt::End => {
                if usize::from(cx.pid) + 1 == st.nr_pr() {
                    st.remove_last_proc(cx.pid);
                    Ok(Step::Done)
                } else {
                    Ok(Step::Blocked)
                }
            }
        }
    }

    /// Executes a send or a receive on the channel at `at` (what its channel variable names
    /// in `st`, read by the caller); any other statement does nothing.
    pub fn exec_on_chan(
        &self,
        st: &mut State,
        cx: Ctx,
        s: &LStmt,
        at: usize,
    ) -> Result<Step, Fault> {
        match s {
            LStmt::Send { args, sorted, .. } => self.send(st, cx, at, args, *sorted),
            LStmt::Recv {
                args, random, copy, ..
            } => self.recv(st, cx, at, args, *random, *copy),
            _ => Ok(Step::Done),
        }
    }

    /// A new channel of layout type `t`; pan allows 255.
    fn add_chan(&self, st: &mut State, t: usize) -> Result<i32, Fault> {
        if st.chans.len() >= MAX_CHANS {
            return Err(Fault::TooManyChans);
        }
        Ok(st.add_chan(&self.layout, t as u8))
    }

    /// A `d_step`: one transition running its code from `pc` (`guarded`: from the start,
    /// enabled only where pan's guard holds). Past the guard, blocking is an error, except
    /// where an option's first statement passes to the next option; so is a rendezvous send
    /// anywhere in it (pan's "rv-attempt in d_step"); a rendezvous receive moves only as
    /// the first statement, with a sender (whose handshake enters at the code after it).
    pub fn dstep(
        &self,
        st: &mut State,
        cx: Ctx,
        d: &DStep,
        pc: Pc,
        guarded: bool,
    ) -> Result<Step, Fault> {
        match self.dstep_code(d) {
            Some(code) => self.dstep_with(st, cx, d, code, pc, guarded),
            None => self.dstep_with(st, cx, d, &DStepCode::new(d, None), pc, guarded),
        }
    }

    /// `dstep` with the d_step's code as `code` (its statements compiled or not).
    pub(crate) fn dstep_with(
        &self,
        st: &mut State,
        cx: Ctx,
        d: &DStep,
        code: &DStepCode,
        pc: Pc,
        guarded: bool,
    ) -> Result<Step, Fault> {
        if guarded {
            if let Some(atoms) = &d.guard {
                let mut open = false;
                for (i, a) in atoms.iter().enumerate() {
                    let could = match code.guard.get(i) {
                        Some(Some(c)) => c.eval(self, st, cx)? != 0,
                        _ => self.could_run(st, cx, a)?,
                    };
                    if could {
                        open = true;
                        break;
                    }
                }
                if !open {
                    return Ok(Step::Blocked);
                }
            }
        }
        let mut result = Step::Done;
        match self.dstep_run(st, cx, code, pc, &mut result) {
            Ok(()) => Ok(result),
            // What the sequence reported before the fault is reported too, first.
            Err(f) => Err(f.after(match result {
                Step::Flagged(flag) => Some(flag),
                _ => None,
            })),
        }
    }

    /// Runs a d_step's code from `pc` to its end; `result` keeps the first error a
    /// statement reported on the way.
    fn dstep_run(
        &self,
        st: &mut State,
        cx: Ctx,
        code: &DStepCode,
        mut pc: Pc,
        result: &mut Step,
    ) -> Result<(), Fault> {
        for _ in 0..DSTEP_LIMIT {
            let (run, next, fail) = match code.ops.get(pc as usize) {
                None | Some(DOpCode::End) => return Ok(()),
                Some(DOpCode::NoOption) => return Err(Fault::DStepBlocked),
                Some(DOpCode::Jump(t)) => {
                    pc = *t;
                    continue;
                }
                Some(DOpCode::Stmt { run, next, fail }) => (run, *next, *fail),
            };
            let step = match run {
                DRun::Cond(c) => match c.eval(self, st, cx)? {
                    0 => Step::Blocked,
                    _ => Step::Done,
                },
                DRun::Assert(c) => match c.eval(self, st, cx)? {
                    0 => Step::Flagged(Flag::Assertion),
                    _ => Step::Done,
                },
                DRun::Assign(a) => a.exec(self, st, cx).map(|()| Step::Done)?,
                DRun::Tree(stmt) => self.dstep_stmt(st, cx, stmt)?,
            };
            pc = match (step, fail) {
                (Step::Blocked, DFail::Option(o)) => o,
                (Step::Blocked, _) => return Err(Fault::DStepBlocked),
                (Step::Done, _) => next,
                (f @ Step::Flagged(_), _) => {
                    if *result == Step::Done {
                        *result = f;
                    }
                    next
                }
            };
        }
        Err(Fault::NonTerminatingAtomic)
    }

    /// A statement of a d_step the tree walker runs: a rendezvous blocks there, and a
    /// rendezvous send is an error (pan's "rv-attempt in d_step").
    fn dstep_stmt(&self, st: &mut State, cx: Ctx, stmt: &LStmt) -> Result<Step, Fault> {
        let rendezvous = match stmt {
            LStmt::Send { chan, .. } | LStmt::Recv { chan, .. } => {
                self.is_rendezvous(st, cx, chan)?
            }
            _ => false,
        };
        match stmt {
            LStmt::Send { .. } if rendezvous => Err(Fault::RendezvousInDStep),
            _ if rendezvous => Ok(Step::Blocked),
            _ => self.exec_stmt(st, cx, stmt),
        }
    }

    /// Whether a statement of a d_step's guard could run now (pan's test-only code: a
    /// condition holds, a buffered send finds room, a receive finds its message). A
    /// rendezvous send passes, for the body to report it.
    fn could_run(&self, st: &State, cx: Ctx, s: &LStmt) -> Result<bool, Fault> {
        Ok(match s {
            LStmt::Expr(e) => self.eval(st, cx, e)? != 0,
            LStmt::Send { chan, .. } => {
                let at = self.chan_of(st, cx, chan)?;
                let cap = self.layout.chans[st.chan_type(at)].capacity;
                cap == 0 || (st.chan_len(at) as u32) < cap
            }
            LStmt::Recv {
                chan, args, random, ..
            } => {
                let at = self.chan_of(st, cx, chan)?;
                self.find_message(st, cx, at, args, *random)?.is_some()
            }
            _ => true,
        })
    }

    /// The layout's index of a channel type.
    fn chan_type_index(&self, ct: &crate::program::types::ChanType) -> Result<usize, Fault> {
        self.layout
            .chans
            .iter()
            .position(|c| &c.source == ct)
            .ok_or(Fault::BadChan)
    }

    pub fn is_rendezvous(&self, st: &State, cx: Ctx, chan: &LVar) -> Result<bool, Fault> {
        let at = self.chan_of(st, cx, chan)?;
        Ok(self.layout.chans[st.chan_type(at)].capacity == 0)
    }

    /// Evaluates send arguments into `out` (a record gives one value per field); returns
    /// how many values.
    pub fn message(
        &self,
        st: &State,
        cx: Ctx,
        args: &[LExpr],
        out: &mut [i32; MAX_FIELDS],
    ) -> Result<usize, Fault> {
        let mut n = 0;
        let mut push = |v: i32| {
            if n >= MAX_FIELDS {
                return Err(Fault::Unsupported(&"more than 64 message fields"));
            }
            out[n] = v;
            n += 1;
            Ok(())
        };
        for a in args {
            match a {
                LExpr::Var(v) if !self.is_flat(st, cx, v) => {
                    if let Located::Mem(at, s @ Shape::Record { .. }) = self.locate(st, cx, v)? {
                        let mut sc = Vec::new();
                        s.scalars(0, &mut sc);
                        for (o, f) in sc {
                            push(f.read(&st.v, at + o as usize))?;
                        }
                        continue;
                    }
                }
                _ => {}
            }
            push(self.eval(st, cx, a)?)?;
        }
        Ok(n)
    }

    fn send(
        &self,
        st: &mut State,
        cx: Ctx,
        at: usize,
        args: &[LExpr],
        sorted: bool,
    ) -> Result<Step, Fault> {
        let cl = &self.layout.chans[st.chan_type(at)];
        let len = st.chan_len(at);
        if len as u32 >= cl.capacity {
            return Ok(Step::Blocked);
        }
        let mut vals = [0i32; MAX_FIELDS];
        let n = self.message(st, cx, args, &mut vals)?;
        let size = cl.msg_size as usize;
        let slot = |k: usize| at + 2 + k * size;
        // `!!` inserts before the first message that is larger, field by field.
        let mut pos = len;
        if sorted {
            for k in 0..len {
                let mut ord = std::cmp::Ordering::Equal;
                for (i, f) in cl.fields.iter().enumerate().take(n) {
                    let have = f.read(&st.v, slot(k) + cl.field_offsets[i] as usize);
                    ord = have.cmp(&f.truncate(vals[i]));
                    if ord != std::cmp::Ordering::Equal {
                        break;
                    }
                }
                if ord == std::cmp::Ordering::Greater {
                    pos = k;
                    break;
                }
            }
            st.v.copy_within(slot(pos)..slot(len), slot(pos + 1));
        }
        for (i, f) in cl.fields.iter().enumerate() {
            let v = if i < n { vals[i] } else { 0 };
            f.write(&mut st.v, slot(pos) + cl.field_offsets[i] as usize, v);
        }
        st.v[at + 1] += 1;
        let flag = match n.cmp(&cl.fields.len()) {
            std::cmp::Ordering::Less => Some(Flag::SendFields),
            std::cmp::Ordering::Greater => Some(Flag::SendTooMany),
            std::cmp::Ordering::Equal => None,
        };
        if self.trace.is_none() {
            return Ok(flagged(flag));
        }
        // pan's trace reads the queue's last slot, which a sorted send need not have
        // filled; its own error comes after the send's.
        let ty = st.chan_type(at);
        let hit = self.trace_event(st, Dir::Send, at, Msg::Slot { at: slot(len), ty })?;
        Ok(flagged(flag.or(hit.map(|h| h.flag(false)))))
    }

    fn recv(
        &self,
        st: &mut State,
        cx: Ctx,
        at: usize,
        args: &[LRecvArg],
        random: bool,
        copy: bool,
    ) -> Result<Step, Fault> {
        let Some(k) = self.find_message(st, cx, at, args, random)? else {
            return Ok(Step::Blocked);
        };
        let cl = &self.layout.chans[st.chan_type(at)];
        let size = cl.msg_size as usize;
        let msg = at + 2 + k * size;
        let mut vals = [0i32; MAX_FIELDS];
        for (i, f) in cl.fields.iter().enumerate().take(MAX_FIELDS) {
            vals[i] = f.read(&st.v, msg + cl.field_offsets[i] as usize);
        }
        let nf = cl.fields.len().min(MAX_FIELDS);
        let mut flag = self.recv_fields(st, cx, args, nf)?;
        if !copy {
            if self.trace.is_some() {
                // pan's trace sees a receive that takes the message, before it leaves, and
                // reads the queue's first slot (whichever message a `??` takes).
                let ty = st.chan_type(at);
                let hit = self.trace_event(st, Dir::Recv, at, Msg::Slot { at: at + 2, ty })?;
                if let (Step::Done, Some(h)) = (flag, hit) {
                    flag = Step::Flagged(h.flag(false));
                }
            }
            st.take_message(at, msg, size);
        }
        self.assign_message(st, cx, args, &vals[..nf])?;
        Ok(flag)
    }

    /// pan's check of a receive against the channel's field count: fewer variables than
    /// fields is reported and the step completes; a receive of constants only that does
    /// not name every field is an error that ends the path; more arguments than fields is
    /// a fatal error (pan reads each argument's field, and there is none past the last).
    pub fn recv_fields(
        &self,
        st: &State,
        cx: Ctx,
        args: &[LRecvArg],
        fields: usize,
    ) -> Result<Step, Fault> {
        let mut width = 0;
        let mut vars = false;
        for a in args {
            width += match a {
                LRecvArg::Var(v) => {
                    vars = true;
                    self.width_of(st, cx, v)?
                }
                _ => 1,
            };
        }
        if width > fields {
            return Err(Fault::RecvTooMany);
        }
        Ok(match (width < fields, vars) {
            (false, _) => Step::Done,
            (true, true) => Step::Flagged(Flag::RecvFields),
            (true, false) => return Err(Fault::RecvFields),
        })
    }

    /// Stores received field values into a receive's variables (a record takes one value
    /// per field).
    pub fn assign_message(
        &self,
        st: &mut State,
        cx: Ctx,
        args: &[LRecvArg],
        vals: &[i32],
    ) -> Result<(), Fault> {
        let mut i = 0;
        for a in args {
            if i >= vals.len() {
                break;
            }
            match a {
                LRecvArg::Var(var) if self.is_flat(st, cx, var) => {
                    let p = self.place(st, cx, var)?;
                    self.write_place(st, cx, p, vals[i]);
                    i += 1;
                }
                LRecvArg::Var(var) => match self.locate(st, cx, var)? {
                    Located::Mem(at, s @ Shape::Record { .. }) => {
                        let mut sc = Vec::new();
                        s.scalars(0, &mut sc);
                        for (o, f) in sc {
                            if let Some(v) = vals.get(i) {
                                f.write(&mut st.v, at + o as usize, *v);
                            }
                            i += 1;
                        }
                    }
                    _ => {
                        let p = self.place(st, cx, var)?;
                        self.write_place(st, cx, p, vals[i]);
                        i += 1;
                    }
                },
                _ => i += 1,
            }
        }
        Ok(())
    }

    /// Whether a rendezvous message matches a receive's constants and `eval`s.
    pub fn rendezvous_matches(
        &self,
        st: &State,
        cx: Ctx,
        args: &[LRecvArg],
        vals: &[i32],
        fields: &[Scalar],
    ) -> Result<bool, Fault> {
        let mut i = 0;
        for a in args {
            let want = match a {
                LRecvArg::Var(v) => {
                    i += self.width_of(st, cx, v)?;
                    continue;
                }
                LRecvArg::Eval(e) | LRecvArg::Const(e) => self.eval(st, cx, e)?,
            };
            let have = match (vals.get(i), fields.get(i)) {
                (Some(v), Some(f)) => f.truncate(*v),
                _ => 0,
            };
            if have != want {
                return Ok(false);
            }
            i += 1;
        }
        Ok(true)
    }

    /// `run`: creates a process (pid `_nr_pr`), its parameters from `args` evaluated by the
    /// creator, then its locals in its own context.
    pub fn run(
        &self,
        st: &mut State,
        cx: Ctx,
        proc: usize,
        args: &[LExpr],
        priority: Option<i64>,
    ) -> Result<i32, Fault> {
        let mut vals = [0i32; MAX_FIELDS];
        let n = self.message(st, cx, args, &mut vals)?;
        let prio = priority.unwrap_or(self.prog.procs[proc].priority) as i32;
        self.create_proc(st, proc, &vals[..n], prio)
    }

    pub fn create_proc(
        &self,
        st: &mut State,
        proc: usize,
        args: &[i32],
        prio: i32,
    ) -> Result<i32, Fault> {
        if st.nr_pr() >= MAX_PROCS {
            return Err(Fault::TooManyProcs);
        }
        let pl = &self.layout.procs[proc];
        let pr = &self.prog.procs[proc];
        let at = st.v.len();
        st.v.resize(at + pl.record_size(), 0);
        st.v[at] = proc as u8;
        st.procs.push(at as u32);
        let pid = (st.nr_pr() - 1) as Pid;
        st.set_loc(pid, self.index_of(pr.automaton.initial));
        let cx = Ctx::of(pid);
        let base = at + pl.header as usize;
        for (i, var) in pr.locals.iter().enumerate() {
            let l = &pl.locals[i];
            if let Some(k) = pr.params.iter().position(|&p| p == i) {
                if let Shape::Scalar(s) = l.shape {
                    s.write(
                        &mut st.v,
                        base + l.offset as usize,
                        args.get(k).copied().unwrap_or(0),
                    );
                }
                continue;
            }
            // A declaration after the first statement is an assignment at its place; a
            // record's fields are still set once, at creation.
            if var.late && !matches!(var.ty, crate::program::types::Type::Struct { .. }) {
                continue;
            }
            self.init_var(st, cx, base + l.offset as usize, &l.shape, var)?;
        }
        // pan sets the priority after the locals (get_priority in an initialiser reads 0).
        st.set_priority(&self.layout, pid, prio);
        Ok(pid as i32)
    }

    /// Initialises a variable at `at` as its declaration says.
    pub fn init_var(
        &self,
        st: &mut State,
        cx: Ctx,
        at: usize,
        shape: &Shape,
        var: &Var,
    ) -> Result<(), Fault> {
        match (&var.init, shape) {
            (VarInit::Zero, Shape::Record { fields, .. }) => {
                self.init_record(st, cx, at, fields, var)
            }
            (VarInit::Zero, Shape::Array { elem, len, stride }) => {
                if let Shape::Record { fields, .. } = elem.as_ref() {
                    for k in 0..*len {
                        self.init_record(st, cx, at + (k * stride) as usize, fields, var)?;
                    }
                }
                Ok(())
            }
            (VarInit::Zero, _) => Ok(()),
            (VarInit::Expr(e), _) => {
                let v = self.eval(st, cx, e)?;
                let mut sc = Vec::new();
                shape.scalars(0, &mut sc);
                for (o, s) in sc {
                    s.write(&mut st.v, at + o as usize, v);
                }
                Ok(())
            }
            (VarInit::List(items), _) => {
                let mut sc = Vec::new();
                shape.scalars(0, &mut sc);
                for (k, (o, s)) in sc.into_iter().enumerate() {
                    let v = match items.get(k) {
                        Some(e) => self.eval(st, cx, e)?,
                        None => 0,
                    };
                    s.write(&mut st.v, at + o as usize, v);
                }
                Ok(())
            }
            (VarInit::Chan(ct), _) => {
                let t = self.chan_type_index(ct)?;
                let mut sc = Vec::new();
                shape.scalars(0, &mut sc);
                for (o, s) in sc {
                    let id = self.add_chan(st, t)?;
                    s.write(&mut st.v, at + o as usize, id);
                }
                Ok(())
            }
        }
    }

    fn init_record(
        &self,
        st: &mut State,
        cx: Ctx,
        at: usize,
        fields: &[(u32, Shape)],
        var: &Var,
    ) -> Result<(), Fault> {
        let crate::program::types::Type::Struct { index, .. } = &var.ty else {
            return Ok(());
        };
        let Some(td) = self.prog.typedefs.get(*index) else {
            return Ok(());
        };
        for ((off, shape), f) in fields.iter().zip(&td.fields) {
            self.init_var(st, cx, at + *off as usize, shape, f)?;
        }
        Ok(())
    }
}
