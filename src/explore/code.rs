//! Expressions compiled once into a flat postfix form: the conditions on edges, which the
//! successor loop evaluates for every edge of every process in every state, assertions,
//! assignments (their value, and where they write: a scalar or an element of an array of
//! scalars, at an offset resolved here) and receives from buffers (`Recv`). A variable
//! that is a scalar or an element of an array of scalars is read at an offset resolved
//! here (a local's from its proctype, which is the running process's on its own edges),
//! constants are folded in, `&&`, `||` and `? :` are jumps, and whatever else an expression
//! holds (channel queries, remote references, records, predefined variables but `_pid`) is
//! left to the tree walker (`Machine::eval`), which gives the same values and faults in the
//! same order.

use crate::program::expr::{LExpr, LVar, Slot};
use crate::promela::ast::{BinOp, UnOp};

use super::eval::{binary, Ctx, Fault, IndexFault, Pure};
use super::layout::Scalar;
use super::machine::{Flat, Machine};
use super::state::State;

/// Values an expression keeps at once at most: deeper ones are left to the tree walker.
const STACK: usize = 16;

#[derive(Clone, Copy, Debug)]
enum Op<'p> {
    Const(i32),
    /// A global scalar, at its offset in the vector.
    Global(u32, Scalar),
    /// A local scalar of the running process, from the start of its record.
    Local(u32, Scalar),
    /// A global or a local scalar of one byte (bit, bool, byte, `unsigned : n` up to 8):
    /// read without asking its width.
    Global1(u32),
    Local1(u32),
    /// An element of an array of scalars (`Code::arrays`): pops the index.
    Element(u32),
    Unary(UnOp),
    /// A binary operator that may fault (a division) or is rare: `eval::binary`.
    Binary(BinOp),
    /// The operators that cannot fault, on the two values on top, or (`K`) on the top and
    /// a constant: the bulk of conditions and index arithmetic, dispatched once.
    Pure(Pure),
    PureK(Pure, i32),
    /// `&&`: a zero on top is the value (on to the target); else it is dropped.
    And(u32),
    /// `||`: a non-zero on top makes the value 1 (on to the target); else it is dropped.
    Or(u32),
    /// The top as 0 or 1 (the right side of `&&` and `||`).
    Bool,
    /// Pops the condition of `? :`; on to the target when it is zero.
    Else(u32),
    Jump(u32),
    /// `_pid`: the running process's.
    Pid,
    /// Evaluated by the tree walker.
    Tree(&'p LExpr),
}

/// An array an `Element` reads: where it starts (from the start of the vector, or of the
/// running process's record), its length and stride, its elements, and its name (for the
/// fault an index out of range is).
#[derive(Clone, Copy, Debug)]
struct Array<'p> {
    local: bool,
    at: u32,
    len: u32,
    stride: u32,
    elem: Scalar,
    name: &'p str,
}

/// A compiled expression.
#[derive(Debug)]
pub struct Code<'p> {
    ops: Box<[Op<'p>]>,
    arrays: Box<[Array<'p>]>,
}

/// Compiles `e`, evaluated by a process of the proctype whose flat locals are `locals`;
/// None where nothing would be gained (the expression is one tree walk) or it needs more
/// than `STACK` values at once.
pub(crate) fn compile<'p>(globals: &[Flat], locals: &[Flat], e: &'p LExpr) -> Option<Code<'p>> {
    compile_any(globals, locals, e).filter(|c| !matches!(c.ops[..], [Op::Tree(_)]))
}

/// As `compile`, a single tree walk included.
fn compile_any<'p>(globals: &[Flat], locals: &[Flat], e: &'p LExpr) -> Option<Code<'p>> {
    let mut c = Compiler {
        globals,
        locals,
        ops: Vec::new(),
        arrays: Vec::new(),
    };
    let depth = c.expr(e)?;
    if depth > STACK {
        return None;
    }
    Some(Code {
        ops: c.ops.into(),
        arrays: c.arrays.into(),
    })
}

/// Where a compiled assignment writes: a scalar, or an element of an array of scalars
/// whose index is compiled too.
#[derive(Debug)]
enum Target<'p> {
    Scalar { local: bool, at: u32, s: Scalar },
    Element(Array<'p>, Code<'p>),
}

/// An assignment compiled: its value and where it goes, written without walking the
/// variable's shape or matching on the statement (the assignments of a model's edges run
/// in nearly every transition).
#[derive(Debug)]
pub struct Assign<'p> {
    value: Code<'p>,
    target: Target<'p>,
}

/// Compiles `v = e` run by a process of the proctype whose flat locals are `locals`; None
/// where the target is not a scalar or an element of an array of scalars named without a
/// field (the tree walker's `place` handles those), or the value is too deep.
pub(crate) fn compile_assign<'p>(
    globals: &[Flat],
    locals: &[Flat],
    v: &'p LVar,
    e: &'p LExpr,
) -> Option<Assign<'p>> {
    let (flat, local) = match v.slot {
        Slot::Global(i) if v.fields.is_empty() => (*globals.get(i)?, false),
        Slot::Local(i) if v.fields.is_empty() => (*locals.get(i)?, true),
        _ => return None,
    };
    let target = match (flat, v.index.as_deref()) {
        (Flat::Scalar(at, s), None) => Target::Scalar { local, at, s },
        (flat, Some(ix)) => Target::Element(
            Array::of(flat, local, &v.name)?,
            compile_any(globals, locals, ix)?,
        ),
        _ => return None,
    };
    Some(Assign {
        value: compile_any(globals, locals, e)?,
        target,
    })
}

impl Assign<'_> {
    /// Runs the assignment on `st` for the process of `cx`, as `Machine::exec` does: the
    /// value first, then the index, and the faults in that order.
    #[inline]
    pub fn exec(&self, m: &Machine, st: &mut State, cx: Ctx) -> Result<(), Fault> {
        let val = self.value.eval(m, st, cx)?;
        let base = || st.procs[usize::from(cx.pid)] as usize;
        let (at, s) = match &self.target {
            Target::Scalar { local, at, s } => (if *local { base() } else { 0 } + *at as usize, *s),
            Target::Element(a, ix) => {
                let i = ix.eval(m, st, cx)?;
                (a.element_at(i, base)?, a.elem)
            }
        };
        s.write(&mut st.v, at, val);
        Ok(())
    }
}

/// A receive from a buffer compiled: its arguments in order, each a scalar variable to
/// write (at an offset resolved here), `_`, or a value the field must hold (a constant or
/// `eval(...)`), with pan's checks of the field count; the tree walker's `recv`,
/// `find_message`, `recv_fields` and `assign_message` give the same values, flags and
/// faults in the same order. A random receive (`??`), a variable that is a record, an
/// element or another process's, and a model with an event trace are left to the tree.
#[derive(Debug)]
pub struct Recv<'p> {
    args: Vec<RecvArg<'p>>,
    copy: bool,
    /// Some argument is a variable (`_` included): fewer arguments than fields is then a
    /// flag, not an error.
    vars: bool,
}

#[derive(Debug)]
enum RecvArg<'p> {
    Var { local: bool, at: u32, s: Scalar },
    Skip,
    Match(Code<'p>),
}

/// Compiles a receive (`random`: `??`, `copy`: `<...>`) by a process of the proctype whose
/// flat locals are `locals` (see `Recv`).
pub(crate) fn compile_recv<'p>(
    globals: &[Flat],
    locals: &[Flat],
    args: &'p [crate::program::expr::LRecvArg],
    random: bool,
    copy: bool,
) -> Option<Recv<'p>> {
    use crate::program::expr::LRecvArg;
    if random || args.len() > super::exec::MAX_FIELDS {
        return None;
    }
    let mut out = Vec::with_capacity(args.len());
    let mut vars = false;
    for a in args {
        out.push(match a {
            LRecvArg::Var(v) if v.fields.is_empty() && v.index.is_none() => {
                vars = true;
                let (flat, local) = match v.slot {
                    Slot::Global(i) => (globals.get(i)?, false),
                    Slot::Local(i) => (locals.get(i)?, true),
                    Slot::Underscore => {
                        out.push(RecvArg::Skip);
                        continue;
                    }
                    _ => return None,
                };
                let Flat::Scalar(at, s) = flat else {
                    return None;
                };
                RecvArg::Var {
                    local,
                    at: *at,
                    s: *s,
                }
            }
            LRecvArg::Var(_) => return None,
            LRecvArg::Eval(e) | LRecvArg::Const(e) => {
                RecvArg::Match(compile_any(globals, locals, e)?)
            }
        });
    }
    Some(Recv {
        args: out,
        copy,
        vars,
    })
}

impl Recv<'_> {
    /// Runs the receive on `st` from the buffer at `at`, for the process of `cx`.
    pub fn exec(
        &self,
        m: &Machine,
        st: &mut State,
        cx: Ctx,
        at: usize,
    ) -> Result<super::exec::Step, Fault> {
        use super::exec::{Flag, Step};
        if st.chan_len(at) == 0 {
            return Ok(Step::Blocked);
        }
        let cl = &m.layout.chans[st.chan_type(at)];
        let msg = at + 2;
        // The first message must hold the values asked for, compared in order (a field
        // past the message's last is read only when those before it matched).
        for (i, a) in self.args.iter().enumerate() {
            if let RecvArg::Match(code) = a {
                let want = code.eval(m, st, cx)?;
                let (Some(f), Some(o)) = (cl.fields.get(i), cl.field_offsets.get(i)) else {
                    return Err(Fault::RecvTooMany);
                };
                if f.read(&st.v, msg + *o as usize) != want {
                    return Ok(Step::Blocked);
                }
            }
        }
        let nf = cl.fields.len().min(super::exec::MAX_FIELDS);
        let width = self.args.len();
        if width > nf {
            return Err(Fault::RecvTooMany);
        }
        let flag = match (width < nf, self.vars) {
            (false, _) => Step::Done,
            (true, true) => Step::Flagged(Flag::RecvFields),
            (true, false) => return Err(Fault::RecvFields),
        };
        let mut vals = [0i32; super::exec::MAX_FIELDS];
        for (i, v) in vals.iter_mut().enumerate().take(width) {
            *v = cl.fields[i].read(&st.v, msg + cl.field_offsets[i] as usize);
        }
        if !self.copy {
            st.take_message(at, msg, cl.msg_size as usize);
        }
        let base = st.procs[usize::from(cx.pid)] as usize;
        for (a, &val) in self.args.iter().zip(&vals) {
            if let RecvArg::Var { local, at, s } = a {
                s.write(&mut st.v, if *local { base } else { 0 } + *at as usize, val);
            }
        }
        Ok(flag)
    }
}

/// A `d_step`'s code with its statements compiled, one op per op of its code
/// (`DStep::code`), and its guard's: the conditions, assertions and assignments as on
/// edges; the rest (and every statement that does not compile) is the tree walker's. A
/// d_step runs a whole loop in one transition, so its statements are where a model that
/// uses it spends its time.
#[derive(Debug)]
pub struct DStepCode<'p> {
    pub(crate) guard: Vec<Option<Code<'p>>>,
    pub(crate) ops: Vec<DOpCode<'p>>,
}

#[derive(Debug)]
pub(crate) enum DOpCode<'p> {
    End,
    NoOption,
    Jump(crate::program::dcode::Pc),
    Stmt {
        run: DRun<'p>,
        next: crate::program::dcode::Pc,
        fail: crate::program::dcode::DFail,
    },
}

#[derive(Debug)]
pub(crate) enum DRun<'p> {
    Tree(&'p crate::program::expr::LStmt),
    Cond(Code<'p>),
    Assert(Code<'p>),
    Assign(Assign<'p>),
}

impl<'p> DStepCode<'p> {
    /// The d_step `d` of a process of the proctype whose flat locals are `locals`,
    /// compiled where its statements compile (with `flats`; None: every statement by the
    /// tree walker).
    pub(crate) fn new(
        d: &'p crate::program::dcode::DStep,
        flats: Option<(&[Flat], &[Flat])>,
    ) -> DStepCode<'p> {
        use crate::program::dcode::DOp;
        use crate::program::expr::LStmt;
        let cond = |s: &'p LStmt| match (s, flats) {
            (LStmt::Expr(x), Some((g, l))) if !matches!(x, LExpr::Run { .. }) => compile(g, l, x),
            _ => None,
        };
        let run = |s: &'p LStmt| {
            let compiled = match (s, flats) {
                (LStmt::Expr(_), _) => cond(s).map(DRun::Cond),
                (LStmt::Assert(x), Some((g, l))) => compile(g, l, x).map(DRun::Assert),
                (LStmt::Assign(v, x), Some((g, l))) if !matches!(x, LExpr::Run { .. }) => {
                    compile_assign(g, l, v, x).map(DRun::Assign)
                }
                _ => None,
            };
            compiled.unwrap_or(DRun::Tree(s))
        };
        DStepCode {
            guard: d.guard.iter().flatten().map(cond).collect(),
            ops: d
                .code
                .iter()
                .map(|op| match op {
                    DOp::End => DOpCode::End,
                    DOp::NoOption => DOpCode::NoOption,
                    DOp::Jump(t) => DOpCode::Jump(*t),
                    DOp::Stmt { stmt, next, fail } => DOpCode::Stmt {
                        run: run(stmt),
                        next: *next,
                        fail: *fail,
                    },
                })
                .collect(),
        }
    }
}

impl<'p> Array<'p> {
    /// The array a variable laid out as `flat` is, when it is an array of scalars.
    fn of(flat: Flat, local: bool, name: &'p str) -> Option<Array<'p>> {
        match flat {
            Flat::Array {
                at,
                len,
                stride,
                elem,
            } => Some(Array {
                local,
                at,
                len,
                stride,
                elem,
                name,
            }),
            _ => None,
        }
    }

    /// Where element `i` is (`base`: the running process's record), or the fault an index
    /// out of range is.
    #[inline]
    fn element_at(&self, i: i32, base: impl Fn() -> usize) -> Result<usize, Fault> {
        if i < 0 || i as u32 >= self.len {
            return Err(Fault::Index(Box::new(IndexFault {
                var: self.name.to_string(),
                index: i,
                len: self.len,
            })));
        }
        let from = if self.local { base() } else { 0 };
        Ok(from + self.at as usize + (i as u32 * self.stride) as usize)
    }
}

struct Compiler<'f, 'p> {
    globals: &'f [Flat],
    locals: &'f [Flat],
    ops: Vec<Op<'p>>,
    arrays: Vec<Array<'p>>,
}

impl<'p> Compiler<'_, 'p> {
    /// Emits `e`; returns the values it keeps at once at most (None: too deep to count).
    fn expr(&mut self, e: &'p LExpr) -> Option<usize> {
        Some(match e {
            LExpr::Const(v) | LExpr::Mtype(_, v) => {
                self.ops.push(Op::Const(*v as i32));
                1
            }
            LExpr::Var(v) => self.var(v, e)?,
            LExpr::Unary(op @ (UnOp::Neg | UnOp::Not | UnOp::BitNot), a) => {
                let d = self.expr(a)?;
                self.ops.push(Op::Unary(*op));
                d
            }
            LExpr::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
                let da = self.expr(a)?;
                let at = self.ops.len();
                self.ops.push(Op::Jump(0));
                let db = self.expr(b)?;
                self.ops.push(Op::Bool);
                let to = self.ops.len() as u32;
                self.ops[at] = match op {
                    BinOp::And => Op::And(to),
                    _ => Op::Or(to),
                };
                da.max(db)
            }
            LExpr::Binary(op, a, b) => {
                let da = self.expr(a)?;
                let right = self.ops.len();
                let db = self.expr(b)?;
                match (Pure::of(*op), &self.ops[right..]) {
                    // (A right side that is one constant is taken as an operand.)
                    (Some(p), &[Op::Const(k)]) => {
                        self.ops.pop();
                        self.ops.push(Op::PureK(p, k));
                    }
                    (Some(p), _) => self.ops.push(Op::Pure(p)),
                    (None, _) => self.ops.push(Op::Binary(*op)),
                }
                da.max(db.checked_add(1)?)
            }
            LExpr::Cond(c, a, b) => {
                let dc = self.expr(c)?;
                let at = self.ops.len();
                self.ops.push(Op::Jump(0));
                let da = self.expr(a)?;
                let end = self.ops.len();
                self.ops.push(Op::Jump(0));
                self.ops[at] = Op::Else(self.ops.len() as u32);
                let db = self.expr(b)?;
                self.ops[end] = Op::Jump(self.ops.len() as u32);
                dc.max(da).max(db)
            }
            _ => {
                self.ops.push(Op::Tree(e));
                1
            }
        })
    }

    /// A variable named without a field: read where `Machine::flat_at` reads it.
    fn var(&mut self, v: &'p LVar, e: &'p LExpr) -> Option<usize> {
        let (flat, local) = match v.slot {
            Slot::Pid if v.index.is_none() && v.fields.is_empty() => {
                self.ops.push(Op::Pid);
                return Some(1);
            }
            Slot::Global(i) if v.fields.is_empty() => (self.globals.get(i).copied(), false),
            Slot::Local(i) if v.fields.is_empty() => (self.locals.get(i).copied(), true),
            _ => (None, false),
        };
        let array = flat.and_then(|f| Array::of(f, local, &v.name));
        Some(match (flat, array, v.index.as_deref()) {
            (Some(Flat::Scalar(at, s)), _, None) => {
                self.ops.push(match (local, s.width) {
                    (true, 1) => Op::Local1(at),
                    (false, 1) => Op::Global1(at),
                    (true, _) => Op::Local(at, s),
                    (false, _) => Op::Global(at, s),
                });
                1
            }
            (_, Some(a), Some(ix)) => {
                let d = self.expr(ix)?;
                self.ops.push(Op::Element(self.arrays.len() as u32));
                self.arrays.push(a);
                d
            }
            _ => {
                self.ops.push(Op::Tree(e));
                1
            }
        })
    }
}

impl Code<'_> {
    /// The value of the expression in `st` for the process of `cx`, as `Machine::eval`
    /// gives it.
    #[inline]
    pub fn eval(&self, m: &Machine, st: &State, cx: Ctx) -> Result<i32, Fault> {
        let mut stack = [0i32; STACK];
        let mut sp = 0usize;
        let mut pc = 0usize;
        let base = || st.procs[usize::from(cx.pid)] as usize;
        while let Some(&op) = self.ops.get(pc) {
            pc += 1;
            match op {
                Op::Const(v) => {
                    stack[sp] = v;
                    sp += 1;
                }
                Op::Global(at, s) => {
                    stack[sp] = s.read(&st.v, at as usize);
                    sp += 1;
                }
                Op::Local(at, s) => {
                    stack[sp] = s.read(&st.v, base() + at as usize);
                    sp += 1;
                }
                Op::Global1(at) => {
                    stack[sp] = i32::from(st.v[at as usize]);
                    sp += 1;
                }
                Op::Local1(at) => {
                    stack[sp] = i32::from(st.v[base() + at as usize]);
                    sp += 1;
                }
                Op::Element(k) => {
                    let a = &self.arrays[k as usize];
                    let at = a.element_at(stack[sp - 1], base)?;
                    stack[sp - 1] = a.elem.read(&st.v, at);
                }
                Op::Unary(op) => {
                    let a = stack[sp - 1];
                    stack[sp - 1] = match op {
                        UnOp::Neg => a.wrapping_neg(),
                        UnOp::Not => i32::from(a == 0),
                        _ => !a,
                    };
                }
                Op::Binary(op) => {
                    sp -= 1;
                    stack[sp - 1] = binary(op, stack[sp - 1], stack[sp])?;
                }
                Op::Pure(p) => {
                    sp -= 1;
                    stack[sp - 1] = p.apply(stack[sp - 1], stack[sp]);
                }
                Op::PureK(p, k) => stack[sp - 1] = p.apply(stack[sp - 1], k),
                Op::And(to) => {
                    if stack[sp - 1] == 0 {
                        pc = to as usize;
                    } else {
                        sp -= 1;
                    }
                }
                Op::Or(to) => {
                    if stack[sp - 1] != 0 {
                        stack[sp - 1] = 1;
                        pc = to as usize;
                    } else {
                        sp -= 1;
                    }
                }
                Op::Bool => stack[sp - 1] = i32::from(stack[sp - 1] != 0),
                Op::Else(to) => {
                    sp -= 1;
                    if stack[sp] == 0 {
                        pc = to as usize;
                    }
                }
                Op::Jump(to) => pc = to as usize,
                Op::Pid => {
                    stack[sp] = i32::from(cx.pid);
                    sp += 1;
                }
                Op::Tree(e) => {
                    stack[sp] = m.eval(st, cx, e)?;
                    sp += 1;
                }
            }
        }
        Ok(stack[0])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::machine::EdgeNo;
    use crate::explore::succ::Gen;
    use crate::program::expr::LStmt;

    use crate::explore::test_program as program;

    /// Conditions of every shape the compiler handles and some it leaves to the tree
    /// walker, over values that wrap, go negative, index out of range and divide by zero.
    const MODEL: &str = "
#define N 3
byte b[N]; short s = -3; int i = 2147483646; bit f; unsigned u : 3 = 5; bool ok;
chan c = [2] of { byte };
proctype P(byte me) {
    byte k = me; short t[2];
    do
    :: b[k] < 4 -> b[k]++; t[1] = t[1] - 7
    :: k < N && b[k] > 1 || f -> k = (k + 1) % N
    :: (k == 0 -> s : i) > 0 && !(u & 2) -> u = u + 3; s = s * 2
    :: b[k + t[1]] == 0 -> f = 1 - f
    :: i / (b[0] - 1) > 0 -> i = i + 1
    :: -t[1] >= ~u && (len(c) < 2) -> c!k
    :: nempty(c) && _pid != 0 -> c?_
    :: (b[1] >> 1 | b[2] << 2 ^ 5) != s - u -> ok = !ok
    :: t[k] != 0 -> t[0] = k
    :: (ok -> (s < 0) : (i % 7 == 3)) -> s = -s
    :: b[_pid - 1] < 2 -> t[k] = i / (b[0] - 1)
    :: u > 5 -> b[_pid - 1] = b[k] + _pid * 40
    :: f -> assert(b[k] != 3 || s / (u - 5) > 0)
    od
}
init { atomic { run P(0); run P(2) } }
";

    /// Calls `f` with every edge (its number and itself) of every process in each of the
    /// first 3000 states of `MODEL`'s state space.
    fn each_edge(m: &Machine, mut f: impl FnMut(&State, Ctx, EdgeNo, &crate::program::Edge)) {
        let mut seen = std::collections::HashSet::new();
        let mut todo = vec![m.initial().expect("initial state")];
        while let Some(st) = todo.pop() {
            if seen.len() >= 3000 || !seen.insert(st.v.clone()) {
                continue;
            }
            for pid in st.pids() {
                let t = st.ptype(pid);
                for (no, &(pt, l, k)) in m.edges.iter().enumerate() {
                    if pt as usize == t {
                        let e = &m.prog.procs[t].automaton.locations[l as usize].edges[k as usize];
                        f(&st, Ctx::of(pid), no as EdgeNo, e);
                    }
                }
            }
            let mut g = Gen::default();
            m.successors(&st, None, &mut g);
            for s in &g.items {
                let mut next = st.clone();
                next.load(&m.layout, g.bytes_of(s));
                todo.push(next);
            }
        }
    }

    #[test]
    fn compiled_conditions_give_the_tree_walker_s_values_and_faults() {
        let p = program(MODEL);
        let m = Machine::new(&p).expect("layout");
        let (mut compared, mut faults) = (0, 0);
        each_edge(&m, |st, cx, no, e| {
            let (Some(code), LStmt::Expr(x) | LStmt::Assert(x)) = (m.cond(no), &e.stmt) else {
                return;
            };
            let got = code.eval(&m, st, cx);
            assert_eq!(got, m.eval(st, cx, x), "{x:?} in {:?}", st.v);
            compared += 1;
            faults += usize::from(got.is_err());
        });
        assert!(compared > 10_000, "{compared} conditions compared");
        assert!(faults > 100, "{faults} faults compared");
    }

    /// Compiled assignments write what the tree walker writes, and fault where it faults
    /// (the value's faults before the index's), in every state of the model above.
    #[test]
    fn compiled_assignments_write_the_tree_walker_s_values_and_faults() {
        let p = program(MODEL);
        let m = Machine::new(&p).expect("layout");
        let (mut compared, mut faults, mut kinds) = (0, 0, std::collections::HashSet::new());
        each_edge(&m, |st, cx, no, e| {
            let Some(a) = m.assign(no) else {
                return;
            };
            let (mut by_code, mut by_tree) = (st.clone(), st.clone());
            let got = a.exec(&m, &mut by_code, cx);
            let want = m.exec(&mut by_tree, cx, e);
            match (&got, &want) {
                (Ok(()), Ok(crate::explore::exec::Step::Done)) => {
                    assert_eq!(by_code.v, by_tree.v, "{:?} in {:?}", e.stmt, st.v)
                }
                (Err(f), Err(g)) => assert_eq!(f, g, "{:?} in {:?}", e.stmt, st.v),
                _ => panic!("{:?} in {:?}: {got:?} against {want:?}", e.stmt, st.v),
            }
            compared += 1;
            faults += usize::from(got.is_err());
            kinds.insert(got.as_ref().err().map(std::mem::discriminant));
        });
        assert!(compared > 10_000, "{compared} assignments compared");
        assert!(faults > 100, "{faults} faults compared");
        // Writes, an index out of range, a division by zero.
        assert!(kinds.len() >= 3, "{kinds:?}");
    }

    /// Receives of every shape the compiler handles (scalars global and local and of
    /// narrower types, `_`, constants, `eval`, `<...>`) and some it leaves to the tree
    /// walker, on channels of one, two and three fields reached through one variable: so
    /// that a receive names fewer fields than its channel has, or more, or constants only.
    const RECV_MODEL: &str = "
chan a = [3] of { byte, short };
chan b = [2] of { byte };
chan c = [2] of { byte, byte, byte };
byte g; short h; bit z; byte arr[2];
proctype P(chan q) {
    byte x; short y; bit w;
    do
    :: q!1,300
    :: q!2
    :: q!x,y,5
    :: q?x,y
    :: q?1,y
    :: q?eval(x),_
    :: q?<g,h>
    :: q?x
    :: q?x,y,w
    :: q?2
    :: q?2,1
    :: q?_,_,_
    :: q?g,w
    :: q?arr[x],h
    :: q??1,x
    :: x = (x + 1) % 3
    od
}
init { atomic { run P(a); run P(b); run P(c) } }
";

    /// Compiled receives take the message the tree walker takes, write what it writes,
    /// and flag and fault where it does, in every state of the model above.
    #[test]
    fn compiled_receives_take_the_tree_walker_s_messages_flags_and_faults() {
        use crate::explore::exec::Step;
        let p = program(RECV_MODEL);
        let m = Machine::new(&p).expect("layout");
        let mut outcomes = std::collections::HashMap::new();
        let mut left = 0;
        each_edge(&m, |st, cx, no, e| {
            let LStmt::Recv { chan, .. } = &e.stmt else {
                return;
            };
            let Some(r) = m.recv_code(no) else {
                left += 1;
                return;
            };
            let Ok(at) = m.chan_of(st, cx, chan) else {
                return;
            };
            let (mut by_code, mut by_tree) = (st.clone(), st.clone());
            let got = r.exec(&m, &mut by_code, cx, at);
            let want = m.exec_on_chan(&mut by_tree, cx, &e.stmt, at);
            assert_eq!(got, want, "{:?} in {:?}", e.stmt, st.v);
            if matches!(got, Ok(Step::Done | Step::Flagged(_))) {
                assert_eq!(by_code.v, by_tree.v, "{:?} in {:?}", e.stmt, st.v);
            }
            let kind = match &got {
                Ok(s) => format!("{s:?}"),
                Err(f) => format!("{f:?}"),
            };
            *outcomes.entry(kind).or_insert(0) += 1;
        });
        let total: usize = outcomes.values().sum();
        assert!(total > 10_000, "{total} receives compared");
        // Taken, blocked, flagged for fewer variables, too many arguments, constants that
        // name too few fields; the element and the random receive are the tree's.
        for kind in [
            "Done",
            "Blocked",
            "Flagged(RecvFields)",
            "RecvTooMany",
            "RecvFields",
        ] {
            assert!(
                outcomes.get(kind).is_some_and(|&n| n >= 10),
                "{kind}: {outcomes:?}"
            );
        }
        assert!(left > 0);
    }

    /// d_steps whose loops read and write arrays through computed indices, divide, assert
    /// and choose by `else`: compiled and by the tree, the same state, flag or fault.
    const DSTEP_MODEL: &str = "
#define N 4
byte cell[N]; short sum; byte gen; int div = 3;
proctype C(byte me) {
    byte i, cnt; short t;
    do
    :: d_step {
        gen < 6 ->
        gen++;
        cnt = 0; i = 0;
        do
        :: i < N ->
            if
            :: i != me && cell[i] > 0 -> cnt++
            :: else
            fi;
            i++
        :: else -> break
        od;
        t = sum / (div - cnt);
        cell[(me + cnt) % (N + 1)] = (cell[me] + cnt) % 3;
        assert(t < 4 || cnt != 2);
        sum = sum + t - cell[me]
    }
    :: d_step { gen > 0 && cell[me] == 1 -> gen--; div = div - 1; cell[me] = 0 }
    od
}
init { atomic { run C(0); run C(1); run C(2); cell[1] = 1 } }
";

    /// Compiled d_steps end in the state the tree walker's end in, with its flags and
    /// faults, in every state of the model above.
    #[test]
    fn compiled_d_steps_run_as_the_tree_walker_runs_them() {
        let p = program(DSTEP_MODEL);
        let m = Machine::new(&p).expect("layout");
        let mut outcomes = std::collections::HashMap::new();
        each_edge(&m, |st, cx, _, e| {
            let LStmt::DStep(d) = &e.stmt else {
                return;
            };
            let code = m.dstep_code(d).expect("compiled");
            assert!(code.ops.iter().any(|o| matches!(
                o,
                DOpCode::Stmt {
                    run: DRun::Assign(_),
                    ..
                }
            )));
            let (mut by_code, mut by_tree) = (st.clone(), st.clone());
            let got = m.dstep_with(&mut by_code, cx, d, code, 0, true);
            let tree = DStepCode::new(d, None);
            let want = m.dstep_with(&mut by_tree, cx, d, &tree, 0, true);
            assert_eq!(got, want, "{:?}", st.v);
            if got.is_ok() {
                assert_eq!(by_code.v, by_tree.v);
            }
            let kind = match &got {
                Ok(s) => format!("{s:?}"),
                Err(f) => format!("{:?}", std::mem::discriminant(f)),
            };
            *outcomes.entry(kind).or_insert(0) += 1;
        });
        let total: usize = outcomes.values().sum();
        assert!(total > 2_000, "{total} d_steps compared: {outcomes:?}");
        // Run, blocked by the guard, a failed assertion, and faults (a division by zero,
        // an index out of range).
        assert!(outcomes.len() >= 5, "{outcomes:?}");
    }
}
