//! Expressions compiled once into a flat postfix form: the conditions on edges, which the
//! successor loop evaluates for every edge of every process in every state, assertions, and
//! assignments (their value, and where they write: a scalar or an element of an array of
//! scalars, at an offset resolved here). A variable
//! that is a scalar or an element of an array of scalars is read at an offset resolved
//! here (a local's from its proctype, which is the running process's on its own edges),
//! constants are folded in, `&&`, `||` and `? :` are jumps, and whatever else an expression
//! holds (channel queries, remote references, records, predefined variables but `_pid`) is
//! left to the tree walker (`Machine::eval`), which gives the same values and faults in the
//! same order.

use crate::program::expr::{LExpr, LVar, Slot};
use crate::promela::ast::{BinOp, UnOp};

use super::eval::{binary, Ctx, Fault, IndexFault};
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
    /// An element of an array of scalars (`Code::arrays`): pops the index.
    Element(u32),
    Unary(UnOp),
    Binary(BinOp),
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
                let db = self.expr(b)?;
                self.ops.push(Op::Binary(*op));
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
                self.ops.push(match local {
                    true => Op::Local(at, s),
                    false => Op::Global(at, s),
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
}
