//! pan's state-vector size: the C layout that the pan spin generates would give a state, on a
//! 64-bit host. pan refuses states over `VECTORSZ` (1,024 bytes unless rebuilt with
//! `-DVECTORSZ=N`); git rmc has no such limit, but says when pan would need one, so that a
//! user comparing with spin knows why pan stops at once.
//!
//! The layout, as pan.h declares it for a safety check (`-DSAFETY`): a header (`_nr_pr`,
//! `_nr_qs`, `_a_t`, `_vsz`, `_last` when used, an event trace's `_event`), then the globals
//! grouped by C type (unsigned bit-fields, bit/bool bit-fields, bytes, shorts, ints,
//! records); each process and channel then starts at the next multiple of 8. A process is a struct of bit-fields (`_pid:8`, its type, its state,
//! `_priority:8` when priorities are used) and its locals grouped the same way; a channel is
//! its length and type bytes and its slots (a rendezvous channel has one). Records keep their
//! fields in declaration order.

use crate::program::types::{ChanType, Type, Var};
use crate::program::Program;
use crate::promela::ast::Visibility;

/// A C struct being laid out (System V x86-64 rules, gcc's bit-fields).
#[derive(Default)]
struct CStruct {
    bits: u64,
    align: u64,
}

impl CStruct {
    /// An `unsigned` bit-field of `w` bits: it may not straddle a 4-byte unit.
    fn bitfield(&mut self, w: u32) {
        let w = u64::from(w.clamp(1, 32));
        if self.bits % 32 + w > 32 {
            self.bits = self.bits.div_ceil(32) * 32;
        }
        self.bits += w;
        self.align = self.align.max(4);
    }

    fn member(&mut self, size: u64, align: u64) {
        let byte = self.bits.div_ceil(8).div_ceil(align) * align;
        self.bits = (byte + size) * 8;
        self.align = self.align.max(align);
    }

    /// Bytes so far, without tail padding.
    fn offset(&self) -> u64 {
        self.bits.div_ceil(8)
    }

    fn size(&self) -> u64 {
        let a = self.align.max(1);
        self.offset().div_ceil(a) * a
    }
}

/// The C type class pan groups declarations by, in the order it emits them.
fn class(ty: &Type, array: bool) -> u8 {
    match ty {
        Type::Unsigned { .. } if !array => 0,
        Type::Bit | Type::Bool if !array => 1,
        Type::Bit | Type::Bool | Type::Byte | Type::Mtype { .. } | Type::Pid | Type::Chan => 2,
        Type::Short => 3,
        Type::Int | Type::Unsigned { .. } => 4,
        Type::Struct { .. } => 5,
    }
}

/// Sizes of pan's records for one program.
#[derive(Clone, Debug)]
pub struct PanSizes {
    /// Bytes before the first process (header and globals, padded).
    pub base: u64,
    /// The same with a never claim: pan's header then holds `_cnt[2]` after `_a_t`, and the
    /// processes start at the next multiple of 8.
    pub claim_base: u64,
    /// Bytes before the first process of a build without -DSAFETY and without a claim (pan
    /// -a on accept labels alone): the header with `_cnt[2]`, then the globals.
    pub acceptance_base: u64,
    pub procs: Vec<u64>,
    pub chans: Vec<u64>,
}

impl PanSizes {
    pub fn new(p: &Program, chans: &[ChanType]) -> PanSizes {
        // With -DSAFETY there are no fairness counters; with a claim, `_cnt[2]`.
        let (safety, claim) = (Self::header(p, false), Self::header(p, true));
        let base = safety.size();
        let claim_base = claim.offset().div_ceil(8) * 8;
        let acceptance_base = claim.size();
        let nprocs = p.procs.len() as u64 + 1; // pan adds a proctype for np_
        let tbits = blog(nprocs);
        // One width for every proctype's state field, from the largest automaton (never
        // claims included).
        let most = p
            .procs
            .iter()
            .map(|pr| pr.automaton.elements)
            .max()
            .unwrap_or(1);
        let pbits = blog(u64::from(most));
        let procs = p
            .procs
            .iter()
            .map(|pr| {
                let mut s = CStruct::default();
                s.bitfield(8);
                s.bitfield(tbits);
                s.bitfield(pbits);
                if p.uses_priority {
                    s.bitfield(8);
                }
                let locals: Vec<&Var> = pr.locals.iter().collect();
                grouped(p, &mut s, &locals);
                s.size()
            })
            .collect();
        let chans = chans
            .iter()
            .map(|c| {
                let mut msg = CStruct::default();
                for f in &c.fields {
                    // A message of one field keeps a bit in a byte, not in a bit-field.
                    match f {
                        Type::Bit | Type::Bool if c.fields.len() == 1 => msg.member(1, 1),
                        _ => add(p, &mut msg, f, None),
                    }
                }
                let mut s = CStruct::default();
                s.member(1, 1);
                s.member(1, 1);
                if msg.offset() > 0 {
                    s.member(msg.size() * u64::from(c.capacity.max(1)), msg.align.max(1));
                }
                s.size()
            })
            .collect();
        PanSizes {
            base,
            claim_base,
            acceptance_base,
            procs,
            chans,
        }
    }

    /// pan's `State` header and globals, with the claim's counters or without.
    fn header(p: &Program, claim: bool) -> CStruct {
        let mut h = CStruct::default();
        h.member(1, 1); // _nr_pr
        h.member(1, 1); // _nr_qs
        h.member(1, 1); // _a_t
        if claim {
            h.member(2, 1); // _cnt[2]
        }
        h.member(2, 2); // _vsz
        if p.uses_last {
            h.member(1, 1);
        }
        // An event trace's state, `_event`: a byte unless its automaton has 256 states.
        if let Some(t) = p.procs.iter().find(|pr| pr.kind.is_trace()) {
            match t.automaton.elements < 255 {
                true => h.member(1, 1),
                false => h.member(2, 2),
            }
        }
        let globals: Vec<&Var> = p
            .globals
            .iter()
            .filter(|v| v.vis != Visibility::Hidden)
            .collect();
        grouped(p, &mut h, &globals);
        // The state struct ends in `uchar sv[VECTORSZ]`; the first process goes where
        // `sizeof(State) - VECTORSZ` says.
        h
    }
}

/// The width pan gives a field that counts up to `n` (spin's `blog`): one bit more than
/// the least power of two, at least 2, that is `n` or more.
fn blog(n: u64) -> u32 {
    let (mut m, mut r) = (1u32, 2u64);
    while r < n {
        m += 1;
        r *= 2;
    }
    1 + m
}

/// Declarations grouped by type class, each group in declaration order.
fn grouped(p: &Program, s: &mut CStruct, vars: &[&Var]) {
    for c in 0..=5 {
        for v in vars.iter().filter(|v| class(&v.ty, v.array.is_some()) == c) {
            add(p, s, &v.ty, v.array);
        }
    }
}

fn add(p: &Program, s: &mut CStruct, ty: &Type, array: Option<u32>) {
    let n = u64::from(array.unwrap_or(1));
    match (ty, array) {
        (Type::Bit | Type::Bool, None) => s.bitfield(1),
        (Type::Unsigned { bits }, None) => s.bitfield(*bits),
        (Type::Bit | Type::Bool | Type::Byte | Type::Mtype { .. } | Type::Pid | Type::Chan, _) => {
            s.member(n, 1)
        }
        (Type::Short, _) => s.member(2 * n, 2),
        (Type::Int | Type::Unsigned { .. }, _) => s.member(4 * n, 4),
        (Type::Struct { index, .. }, _) => {
            let mut r = CStruct::default();
            if let Some(td) = p.typedefs.get(*index) {
                for f in &td.fields {
                    add(p, &mut r, &f.ty, f.array);
                }
            }
            s.member(r.size() * n, r.align.max(1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_widths_are_spins() {
        // spin -a's `_t` for k proctypes (k + 1 with np_) and `_p` for a proctype of n
        // states, read from pan.h: powers of two take no extra bit.
        for (n, bits) in [
            (2, 2),
            (3, 3),
            (4, 3),
            (8, 4),
            (9, 5),
            (16, 5),
            (17, 6),
            (33, 7),
        ] {
            assert_eq!(blog(n), bits, "{n}");
        }
    }

    #[test]
    fn bitfields_pack_and_members_align() {
        let mut s = CStruct::default();
        s.bitfield(8);
        s.bitfield(3);
        s.bitfield(3);
        s.member(1, 1);
        assert_eq!(s.offset(), 3);
        s.member(2, 2);
        s.member(4, 4);
        assert_eq!(s.size(), 12);
        let mut t = CStruct::default();
        t.bitfield(30);
        t.bitfield(5);
        assert_eq!(t.size(), 8);
    }
}
