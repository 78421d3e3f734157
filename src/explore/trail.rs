//! Counter-example trails: the steps from the initial state to a violation, replayed through
//! the interpreter (so every reported trail is checked to be executable), with the values each
//! step changed and the `printf` output along the way.

use crate::program::expr::LStmt;

use super::eval::Ctx;
use super::layout::Shape;
use super::machine::{EdgeNo, Machine};
use super::outcome::{Options, Violation, ViolationKind};
use super::property;
use super::search::{fault_kind, flag_kind};
use super::state::State;
use super::succ::Gen;

/// One step: process `pid` executed `edge` (and, for a rendezvous, `rv` received).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrailStep {
    pub pid: u8,
    pub edge: EdgeNo,
    pub rv: Option<(u8, EdgeNo)>,
}

/// A replayed step, ready to print.
#[derive(Clone, Debug)]
pub struct TrailView {
    pub pid: usize,
    pub proc: String,
    pub edge: EdgeNo,
    pub statement: String,
    /// (name, new value) of every variable the step changed.
    pub changed: Vec<(String, i64)>,
    /// What a `printf` in this step prints.
    pub output: Option<String>,
    /// Set on the receiving half of a rendezvous.
    pub receive: bool,
}

enum Taken {
    Next(Vec<u8>, Option<super::exec::Flag>),
    Fault(super::eval::Fault),
    No,
}

/// Why a trail could not be replayed.
#[derive(Debug, thiserror::Error)]
#[error("trail step {step} (pid {pid}) is not executable")]
pub struct ReplayError {
    pub step: usize,
    pub pid: usize,
}

impl Machine<'_> {
    /// Takes one trail step from `st`, as the search generated it.
    fn take(&self, st: &State, s: &TrailStep, g: &mut Gen) -> Taken {
        for only in [Some(s.pid as usize), None] {
            g.clear();
            self.successors(st, only, g);
            if let Some(it) = g
                .items
                .iter()
                .find(|it| it.pid == s.pid && it.edge == s.edge && it.rv == s.rv)
            {
                return Taken::Next(g.bytes_of(it).to_vec(), it.flag);
            }
            if let Some(f) = g
                .faults
                .iter()
                .find(|f| f.pid == s.pid && f.edge == s.edge && f.rv == s.rv)
            {
                return Taken::Fault(f.fault.clone());
            }
        }
        Taken::No
    }

    /// Replays a trail from the initial state vector. The last step may be one that fails
    /// (an index error, a division by zero); the others must produce a successor.
    pub fn replay(
        &self,
        initial: &[u8],
        steps: &[TrailStep],
    ) -> Result<Vec<TrailView>, ReplayError> {
        let mut st = State::default();
        st.load(&self.layout, initial);
        let mut out = Vec::new();
        let mut g = Gen::default();
        for (i, s) in steps.iter().enumerate() {
            let before = self.describe(&st);
            let output = self.printf_text(&st, s);
            let changed = match self.take(&st, s, &mut g) {
                Taken::Next(v, _) => {
                    st.load(&self.layout, &v);
                    self.describe(&st)
                        .into_iter()
                        .filter(|(n, v)| !before.iter().any(|(bn, bv)| bn == n && bv == v))
                        .collect()
                }
                Taken::Fault(_) if i + 1 == steps.len() => Vec::new(),
                _ => {
                    return Err(ReplayError {
                        step: i + 1,
                        pid: s.pid as usize,
                    })
                }
            };
            let e = self.edge(s.edge);
            out.push(TrailView {
                pid: s.pid as usize,
                proc: self.prog.procs[self.edge_proc(s.edge)].name.clone(),
                edge: s.edge,
                statement: e.text.clone(),
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
                    pid: q as usize,
                    proc: self.prog.procs[self.edge_proc(r)].name.clone(),
                    edge: r,
                    statement: self.edge(r).text.clone(),
                    changed,
                    output: None,
                    receive: true,
                });
            }
        }
        Ok(out)
    }

    /// Replays a violation's trail and checks that it ends in that very violation: the last
    /// step fails the assertion or faults with the same kind, or (invalid end states) the
    /// state reached has no move and is an invalid end state (`property`'s definition, with
    /// the check's options) with the same processes blocked at the same places. A violation
    /// without a trail has nothing to check.
    pub fn reproduces(&self, initial: &[u8], v: &Violation, opts: &Options) -> bool {
        let Some(trail) = &v.trail else {
            return true;
        };
        // An error while the initial state is made (a global's initialiser): no step.
        if trail.is_empty() && v.edge.is_none() && v.kind != ViolationKind::InvalidEndState {
            return self.initial().err().map(|f| fault_kind(&f)) == Some(v.kind);
        }
        let mut st = State::default();
        st.load(&self.layout, initial);
        let mut g = Gen::default();
        let n = trail.len();
        for (i, s) in trail.iter().enumerate() {
            let last = i + 1 == n;
            match self.take(&st, s, &mut g) {
                Taken::Next(next, flag) => {
                    if last && flag.map(flag_kind) == Some(v.kind) {
                        return Some(s.edge) == v.edge;
                    }
                    st.load(&self.layout, &next);
                }
                Taken::Fault(f) => return last && fault_kind(&f) == v.kind,
                Taken::No => return false,
            }
        }
        match v.kind {
            ViolationKind::InvalidEndState => {
                g.clear();
                let mut blocked = Vec::new();
                self.successors(&st, None, &mut g) == 0
                    && property::invalid_end(self, &st, opts, &mut blocked)
                    && blocked == v.blocked
            }
            // The repeated state is the one the trail ends in.
            ViolationKind::NonTerminatingAtomic => n > 0,
            _ => false,
        }
    }

    /// Every variable of a state with its value: globals, then each process's locals as
    /// `Proc(pid):name`, then channel contents as `chan N`.
    pub fn describe(&self, st: &State) -> Vec<(String, i64)> {
        let mut out = Vec::new();
        for g in &self.layout.globals {
            let base = self.layout.global_base(g) as usize;
            named_scalars(&g.name, &g.shape, base, st, &mut out);
        }
        for pid in 0..st.nr_pr() {
            let t = st.ptype(pid);
            let base = st.locals_at(&self.layout, pid);
            let pname = &self.prog.procs[t].name;
            for l in &self.layout.procs[t].locals {
                let name = format!("{pname}({pid}):{}", l.name);
                named_scalars(&name, &l.shape, base + l.offset as usize, st, &mut out);
            }
        }
        for (c, &at) in st.chans.iter().enumerate() {
            let at = at as usize;
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
            // Channel contents change as a whole; encode them as a count plus a hash-free
            // rendering in the name so that a change shows up.
            out.push((format!("queue {} [{}]", c + 1, msgs.join("][")), len as i64));
        }
        out
    }

    /// The text a `printf` step prints, evaluated in the state before the step.
    fn printf_text(&self, st: &State, s: &TrailStep) -> Option<String> {
        let e = self.edge(s.edge);
        let cx = Ctx::of(s.pid as usize);
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
    mtypes
        .iter()
        .find(|(_, x, _)| *x == v)
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
