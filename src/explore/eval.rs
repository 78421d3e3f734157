//! Expression evaluation with pan's meaning: arithmetic in C `int` (32-bit, wrapping),
//! short-circuit `&&`/`||`, C division, places of variables (array bounds checked), channel
//! queries and remote references. Pure: nothing here changes a state.

use crate::explore::Pid;
use crate::program::expr::{LExpr, LRecvArg, LVar, Slot};
use crate::promela::ast::{BinOp, ChanProbe, UnOp};

use super::exec::Flag;
use super::layout::{Scalar, Shape};
use super::machine::{Flat, Machine};
use super::state::State;

/// An array index out of range: the array's name, the index and the array's length.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexFault {
    pub var: String,
    pub index: i32,
    pub len: u32,
}

/// Why a step cannot complete; each becomes a violation of its own kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// (Boxed, as every payload here is at most a word: a `Result<i32, Fault>`, which every
    /// evaluation returns, then travels in two registers instead of through memory.)
    Index(Box<IndexFault>),
    DivZero,
    TooManyProcs,
    /// A 256th channel.
    TooManyChans,
    DStepBlocked,
    NonTerminatingAtomic,
    BadChan,
    /// A receive of constants only that does not name every field of the message.
    RecvFields,
    /// A send with more values than the channel has fields.
    SendTooMany,
    /// A receive or poll that reads a field past the message's last (pan's fatal "too many
    /// fields in recv").
    RecvTooMany,
    /// A poll (`c?[..]`) of a rendezvous channel.
    PollRendezvous,
    /// A copying receive (`c?<..>`) on a rendezvous channel.
    CopyRendezvous,
    /// A rendezvous inside a `d_step` after its first statement.
    RendezvousInDStep,
    /// `set_priority` with a priority out of range.
    Priority(i32),
    /// `enabled()` of the running process.
    EnabledSelf,
    /// A `D_proctype` with more than one executable option.
    DProctypeChoice,
    /// A rendezvous offer the trace has no transition for (reported where the offer is
    /// made; the enumeration goes on).
    TraceMismatch,
    /// A rendezvous offer that completes a `notrace` (reported as `TraceMismatch` is).
    NotraceMatched,
    /// Two transitions of the trace match one event (pan's fatal "non-determinism in
    /// event-trace").
    TraceNondeterminism,
    Unsupported(&'static &'static str),
    /// An error a `d_step` reported as it ran (an assertion that failed), then the fault
    /// that ended it (a statement that blocked): pan reports both, in that order.
    Flagged {
        flag: Flag,
        then: Box<Fault>,
    },
}

impl Fault {
    /// The fault that ended the step, and the error reported before it, if any.
    pub fn split(self) -> (Fault, Option<Flag>) {
        match self {
            Fault::Flagged { flag, then } => (*then, Some(flag)),
            f => (f, None),
        }
    }

    /// The fault that ended the step (`then` of a flagged one).
    pub fn last(&self) -> &Fault {
        match self {
            Fault::Flagged { then, .. } => then.last(),
            f => f,
        }
    }

    /// The fault again, with the error reported before it.
    pub fn after(self, flag: Option<Flag>) -> Fault {
        match flag {
            Some(flag) => Fault::Flagged {
                flag,
                then: Box::new(self),
            },
            None => self,
        }
    }
}

/// Where a variable reference points.
#[derive(Clone, Copy, Debug)]
pub enum Place {
    Mem(usize, Scalar),
    Pid,
    NrPr,
    Last,
    Underscore,
    Priority,
}

/// A located reference: bytes of the state with their shape, or a predefined variable.
#[derive(Clone, Copy, Debug)]
pub enum Located<'s> {
    Mem(usize, &'s Shape),
    Place(Place),
}

/// The evaluation context: whose step it is and whether `timeout` holds.
#[derive(Clone, Copy, Debug)]
pub struct Ctx {
    pub pid: Pid,
    pub timeout: bool,
    /// The never claim moves while the system stutters (pan's tau bit 128): `np_` is false.
    pub stutter: bool,
    /// How many `enabled()` evaluations enclose this one.
    pub nest: u8,
}

impl Ctx {
    pub fn of(pid: Pid) -> Ctx {
        Ctx {
            pid,
            timeout: false,
            stutter: false,
            nest: 0,
        }
    }
}

/// `enabled()` inside a statement that `enabled()` is probing, this deep, is given up.
const MAX_ENABLED_NEST: u8 = 16;

impl Machine<'_> {
    /// Where a variable named without a field is, when it is a scalar (named without an
    /// index) or an element of an array of scalars: what `locate` finds, without walking
    /// the shape. None: the long way.
    #[inline]
    fn flat_at(&self, st: &State, cx: Ctx, v: &LVar) -> Option<Result<(usize, Scalar), Fault>> {
        if !v.fields.is_empty() {
            return None;
        }
        let (flat, base) = match v.slot {
            Slot::Global(i) => (*self.global_flat.get(i)?, 0),
            Slot::Local(i) => (
                *self.local_flat[st.ptype(cx.pid)].get(i)?,
                st.procs[usize::from(cx.pid)] as usize,
            ),
            _ => return None,
        };
        match (flat, v.index.as_deref()) {
            (Flat::Scalar(at, s), None) => Some(Ok((base + at as usize, s))),
            (
                Flat::Array {
                    at,
                    len,
                    stride,
                    elem,
                },
                Some(ix),
            ) => Some(self.eval(st, cx, ix).and_then(|i| {
                if i < 0 || i as u32 >= len {
                    return Err(Fault::Index(Box::new(IndexFault {
                        var: v.name.clone(),
                        index: i,
                        len,
                    })));
                }
                Ok((base + at as usize + (i as u32 * stride) as usize, elem))
            })),
            _ => None,
        }
    }

    /// Whether `v` is read where `flat_at` reads it (a scalar, or an element of an array of
    /// scalars): never a record, so that a message takes one field for it.
    #[inline]
    pub(crate) fn is_flat(&self, st: &State, cx: Ctx, v: &LVar) -> bool {
        if !v.fields.is_empty() {
            return false;
        }
        let flat = match v.slot {
            Slot::Global(i) => self.global_flat.get(i),
            Slot::Local(i) => self.local_flat.get(st.ptype(cx.pid)).and_then(|l| l.get(i)),
            _ => None,
        };
        matches!(
            (flat, v.index.is_some()),
            (Some(Flat::Scalar(..)), false) | (Some(Flat::Array { .. }), true)
        )
    }

    pub fn place(&self, st: &State, cx: Ctx, v: &LVar) -> Result<Place, Fault> {
        if let Some(r) = self.flat_at(st, cx, v) {
            return r.map(|(at, s)| Place::Mem(at, s));
        }
        match self.locate(st, cx, v)? {
            Located::Place(p) => Ok(p),
            Located::Mem(at, Shape::Scalar(s)) => Ok(Place::Mem(at, *s)),
            // A whole array named without an index is its first element, as in pan.
            Located::Mem(at, Shape::Array { elem, .. }) => match elem.as_ref() {
                Shape::Scalar(s) => Ok(Place::Mem(at, *s)),
                _ => Err(Fault::Unsupported(&"whole-record reference")),
            },
            Located::Mem(..) => Err(Fault::Unsupported(&"whole-record reference")),
        }
    }

    /// Where a reference points, records and arrays included.
    pub fn locate<'s>(&'s self, st: &State, cx: Ctx, v: &LVar) -> Result<Located<'s>, Fault> {
        let (base, shape) = match v.slot {
            Slot::Global(i) => {
                let g = &self.layout.globals[i];
                (self.layout.global_base(g) as usize, &g.shape)
            }
            Slot::Local(i) => {
                let t = st.ptype(cx.pid);
                let Some(l) = self.layout.procs[t].locals.get(i) else {
                    return Err(Fault::Unsupported(&"local of another proctype"));
                };
                (
                    st.locals_at(&self.layout, cx.pid) + l.offset as usize,
                    &l.shape,
                )
            }
            Slot::Pid => return Ok(Located::Place(Place::Pid)),
            Slot::NrPr => return Ok(Located::Place(Place::NrPr)),
            Slot::Last => return Ok(Located::Place(Place::Last)),
            Slot::Underscore => return Ok(Located::Place(Place::Underscore)),
            Slot::Priority => return Ok(Located::Place(Place::Priority)),
        };
        let (at, shape) = self.walk(st, cx, base, shape, v)?;
        Ok(Located::Mem(at, shape))
    }

    fn walk<'s>(
        &self,
        st: &State,
        cx: Ctx,
        mut at: usize,
        shape: &'s Shape,
        v: &LVar,
    ) -> Result<(usize, &'s Shape), Fault> {
        let mut shape = self.index_into(st, cx, &mut at, shape, v.index.as_deref(), &v.name)?;
        for (fi, fname, idx) in &v.fields {
            let Shape::Record { fields, .. } = shape else {
                return Err(Fault::Unsupported(&"field of a non-record"));
            };
            let Some((off, s)) = fields.get(*fi) else {
                return Err(Fault::Unsupported(&"unknown field"));
            };
            at += *off as usize;
            shape = self.index_into(st, cx, &mut at, s, idx.as_deref(), fname)?;
        }
        Ok((at, shape))
    }

    fn index_into<'s>(
        &self,
        st: &State,
        cx: Ctx,
        at: &mut usize,
        shape: &'s Shape,
        index: Option<&LExpr>,
        name: &str,
    ) -> Result<&'s Shape, Fault> {
        match (shape, index) {
            (Shape::Array { elem, len, stride }, Some(ix)) => {
                let i = self.eval(st, cx, ix)?;
                if i < 0 || i as u32 >= *len {
                    return Err(Fault::Index(Box::new(IndexFault {
                        var: name.to_string(),
                        index: i,
                        len: *len,
                    })));
                }
                *at += (i as u32 * stride) as usize;
                Ok(elem)
            }
            (s, _) => Ok(s),
        }
    }

    pub fn read_place(&self, st: &State, cx: Ctx, p: Place) -> i32 {
        match p {
            Place::Mem(at, s) => s.read(&st.v, at),
            Place::Pid => cx.pid as i32,
            // pan counts the never claim (np_ under -l) among the running processes.
            Place::NrPr => st.nr_pr() as i32 + i32::from(self.claim.is_some()),
            Place::Last => match self.layout.last_at {
                Some(a) => st.v[a as usize] as i32,
                None => 0,
            },
            Place::Underscore => 0,
            Place::Priority => st.priority(&self.layout, cx.pid, 1),
        }
    }

    pub fn read_var(&self, st: &State, cx: Ctx, v: &LVar) -> Result<i32, Fault> {
        if let Some(r) = self.flat_at(st, cx, v) {
            return r.map(|(at, s)| s.read(&st.v, at));
        }
        let p = self.place(st, cx, v)?;
        Ok(self.read_place(st, cx, p))
    }

    /// Stores into a place; writes to read-only predefined variables are ignored (spin
    /// rejects them before this point).
    pub fn write_place(&self, st: &mut State, cx: Ctx, p: Place, val: i32) {
        match p {
            Place::Mem(at, s) => {
                s.write(&mut st.v, at, val);
            }
            Place::Priority => st.set_priority(&self.layout, cx.pid, val),
            Place::Pid | Place::NrPr | Place::Last | Place::Underscore => {}
        }
    }

    /// The channel record a channel variable refers to.
    pub fn chan_of(&self, st: &State, cx: Ctx, v: &LVar) -> Result<usize, Fault> {
        let id = self.read_var(st, cx, v)?;
        st.chan(id).ok_or(Fault::BadChan)
    }

    pub fn eval(&self, st: &State, cx: Ctx, e: &LExpr) -> Result<i32, Fault> {
        Ok(match e {
            LExpr::Const(v) | LExpr::Mtype(_, v) => *v as i32,
            LExpr::Var(v) => self.read_var(st, cx, v)?,
            LExpr::Unary(op, a) => {
                let a = self.eval(st, cx, a)?;
                match op {
                    UnOp::Neg => a.wrapping_neg(),
                    UnOp::Not => i32::from(a == 0),
                    UnOp::BitNot => !a,
                    _ => return Err(Fault::Unsupported(&"temporal operator")),
                }
            }
            LExpr::Binary(op, a, b) => match op {
                BinOp::And => i32::from(self.eval(st, cx, a)? != 0 && self.eval(st, cx, b)? != 0),
                BinOp::Or => i32::from(self.eval(st, cx, a)? != 0 || self.eval(st, cx, b)? != 0),
                _ => {
                    let x = self.eval(st, cx, a)?;
                    let y = self.eval(st, cx, b)?;
                    binary(*op, x, y)?
                }
            },
            LExpr::Cond(c, a, b) => {
                if self.eval(st, cx, c)? != 0 {
                    self.eval(st, cx, a)?
                } else {
                    self.eval(st, cx, b)?
                }
            }
            LExpr::Run { .. } => return Err(Fault::Unsupported(&"run inside an expression")),
            LExpr::Len(v) => {
                let at = self.chan_of(st, cx, v)?;
                st.chan_len(at) as i32
            }
            LExpr::Probe(p, v) => {
                let at = self.chan_of(st, cx, v)?;
                let len = st.chan_len(at) as u32;
                // pan: a rendezvous channel is full only while a handshake is under way
                // (one message in it), which no other process sees: never full.
                let cap = self.layout.chans[st.chan_type(at)].capacity.max(1);
                i32::from(match p {
                    ChanProbe::Full => len >= cap,
                    ChanProbe::Nfull => len < cap,
                    ChanProbe::Empty => len == 0,
                    ChanProbe::Nempty => len > 0,
                })
            }
            LExpr::Poll { chan, args, random } => {
                let at = self.chan_of(st, cx, chan)?;
                if self.layout.chans[st.chan_type(at)].capacity == 0 {
                    // pan: "error to poll rendezvous channel"; the poll is false.
                    self.soft.set(Some(Fault::PollRendezvous));
                    return Ok(0);
                }
                i32::from(self.find_message(st, cx, at, args, *random)?.is_some())
            }
            LExpr::Enabled(p) => {
                let pid = self.eval(st, cx, p)?;
                // pan: "used: enabled(pid=thisproc)", a fatal error.
                if pid == cx.pid as i32 {
                    return Err(Fault::EnabledSelf);
                }
                if cx.nest >= MAX_ENABLED_NEST {
                    return Err(Fault::Unsupported(&"enabled() nested more than 16 deep"));
                }
                i32::from(
                    pid >= 0
                        && (pid as usize) < st.nr_pr()
                        && self.can_move(st, pid as Pid, false, cx.nest + 1)?,
                )
            }
            LExpr::GetPriority(p) => {
                let pid = self.eval(st, cx, p)?;
                if pid >= 0 && (pid as usize) < st.nr_pr() {
                    let t = st.ptype(pid as Pid);
                    st.priority(&self.layout, pid as Pid, self.prog.procs[t].priority as i32)
                } else {
                    0
                }
            }
            LExpr::PcValue(_) => return Err(Fault::Unsupported(&"pc_value")),
            LExpr::Timeout => i32::from(cx.timeout),
            LExpr::Np => {
                let any_progress = st
                    .pids()
                    .any(|pid| self.location(st, pid).is_some_and(|l| l.progress));
                // pan's np_: no process at a progress label, and not a stutter step.
                i32::from(!any_progress && !cx.stutter)
            }
            LExpr::RemoteLabel {
                proc, index, label, ..
            } => {
                let Some(pid) = self.remote_pid(st, cx, *proc, index.as_deref())? else {
                    return Ok(0);
                };
                i32::from(
                    self.location(st, pid)
                        .is_some_and(|l| l.labels.iter().any(|x| x == label)),
                )
            }
            LExpr::RemoteVar {
                proc,
                index,
                local,
                var,
                var_index,
                ..
            } => {
                let Some(pid) = self.remote_pid(st, cx, *proc, index.as_deref())? else {
                    return Err(Fault::Index(Box::new(IndexFault {
                        var: var.clone(),
                        index: -1,
                        len: 0,
                    })));
                };
                let Some(l) = self.layout.procs[*proc].locals.get(*local) else {
                    return Ok(0);
                };
                let base =
                    st.procs[usize::from(pid)] as usize + self.layout.procs[*proc].header as usize;
                let lv = LVar {
                    slot: Slot::Underscore,
                    name: var.clone(),
                    index: var_index.clone(),
                    fields: Vec::new(),
                };
                let (at, shape) = self.walk(st, cx, base + l.offset as usize, &l.shape, &lv)?;
                match shape {
                    Shape::Scalar(s) if at + s.width as usize <= st.v.len() => s.read(&st.v, at),
                    _ => 0,
                }
            }
        })
    }

    /// The pid a remote reference names: its index, or the first live process of the type.
    fn remote_pid(
        &self,
        st: &State,
        cx: Ctx,
        proc: usize,
        index: Option<&LExpr>,
    ) -> Result<Option<Pid>, Fault> {
        Ok(match index {
            Some(i) => {
                let pid = self.eval(st, cx, i)?;
                (pid >= 0 && (pid as usize) < st.nr_pr()).then_some(pid as Pid)
            }
            None => st.pids().find(|&p| st.ptype(p) == proc),
        })
    }

    /// The index of the message a receive or poll would take, if any.
    pub fn find_message(
        &self,
        st: &State,
        cx: Ctx,
        at: usize,
        args: &[LRecvArg],
        random: bool,
    ) -> Result<Option<usize>, Fault> {
        let len = st.chan_len(at);
        let cl = &self.layout.chans[st.chan_type(at)];
        let n = if random { len } else { len.min(1) };
        for k in 0..n {
            if self.message_matches(st, cx, at, k, args, cl)? {
                return Ok(Some(k));
            }
        }
        Ok(None)
    }

    fn message_matches(
        &self,
        st: &State,
        cx: Ctx,
        at: usize,
        k: usize,
        args: &[LRecvArg],
        cl: &super::layout::ChanLayout,
    ) -> Result<bool, Fault> {
        let msg = at + 2 + k * cl.msg_size as usize;
        let mut i = 0;
        for a in args {
            let want = match a {
                LRecvArg::Var(v) => {
                    i += self.width_of(st, cx, v)?;
                    continue;
                }
                LRecvArg::Eval(e) | LRecvArg::Const(e) => self.eval(st, cx, e)?,
            };
            // pan compares the constants in order and reads a field past the message's
            // last only when those before it matched: a fatal error.
            let (Some(f), Some(o)) = (cl.fields.get(i), cl.field_offsets.get(i)) else {
                return Err(Fault::RecvTooMany);
            };
            if f.read(&st.v, msg + *o as usize) != want {
                return Ok(false);
            }
            i += 1;
        }
        Ok(true)
    }

    /// How many message fields a variable takes (a record takes one per scalar).
    pub fn width_of(&self, st: &State, cx: Ctx, v: &LVar) -> Result<usize, Fault> {
        // (An element's index is evaluated the long way: it may fault, and that fault
        // comes before the receive's own.)
        if v.index.is_none() && self.is_flat(st, cx, v) {
            return Ok(1);
        }
        Ok(match self.locate(st, cx, v)? {
            Located::Mem(_, s @ Shape::Record { .. }) => {
                let mut sc = Vec::new();
                s.scalars(0, &mut sc);
                sc.len()
            }
            _ => 1,
        })
    }
}

/// The binary operators that cannot fault: what compiled code dispatches once
/// (`code::Op::Pure`), and what `binary` computes for them.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Pure {
    Add,
    Sub,
    Mul,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Pure {
    pub(crate) fn of(op: BinOp) -> Option<Pure> {
        Some(match op {
            BinOp::Add => Pure::Add,
            BinOp::Sub => Pure::Sub,
            BinOp::Mul => Pure::Mul,
            BinOp::Lt => Pure::Lt,
            BinOp::Le => Pure::Le,
            BinOp::Gt => Pure::Gt,
            BinOp::Ge => Pure::Ge,
            BinOp::Eq => Pure::Eq,
            BinOp::Ne => Pure::Ne,
            _ => return None,
        })
    }

    #[inline(always)]
    pub(crate) fn apply(self, x: i32, y: i32) -> i32 {
        match self {
            Pure::Add => x.wrapping_add(y),
            Pure::Sub => x.wrapping_sub(y),
            Pure::Mul => x.wrapping_mul(y),
            Pure::Lt => i32::from(x < y),
            Pure::Le => i32::from(x <= y),
            Pure::Gt => i32::from(x > y),
            Pure::Ge => i32::from(x >= y),
            Pure::Eq => i32::from(x == y),
            Pure::Ne => i32::from(x != y),
        }
    }
}

pub fn binary(op: BinOp, x: i32, y: i32) -> Result<i32, Fault> {
    if let Some(p) = Pure::of(op) {
        return Ok(p.apply(x, y));
    }
    Ok(match op {
        BinOp::Div => {
            if y == 0 {
                return Err(Fault::DivZero);
            }
            x.wrapping_div(y)
        }
        BinOp::Mod => {
            if y == 0 {
                return Err(Fault::DivZero);
            }
            x.wrapping_rem(y)
        }
        BinOp::BitAnd => x & y,
        BinOp::BitOr => x | y,
        BinOp::BitXor => x ^ y,
        BinOp::Shl => x.wrapping_shl(y as u32),
        BinOp::Shr => x.wrapping_shr(y as u32),
        BinOp::And => i32::from(x != 0 && y != 0),
        BinOp::Or => i32::from(x != 0 || y != 0),
        // (The pure operators are `Pure`'s, above.)
        _ => return Err(Fault::Unsupported(&"temporal operator")),
    })
}
