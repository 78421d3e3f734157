//! Random and mutated input never panics or hangs the front end: it always ends with a program
//! or with diagnostics.

use git_rmc::promela::preprocess::PpOptions;
use git_rmc::promela::source::MemoryProvider;
use proptest::prelude::*;

const SEED_MODEL: &str = r#"#define N 3
#define INC(x) x = x + 1
mtype = { req, ack };
chan q = [2] of { mtype, byte };
typedef T { byte a; bool b[2] };
byte n; T t;
inline bump(v) { v++ }
active [2] proctype P(byte id) {
  byte i;
  do
  :: n < N -> atomic { INC(n); bump(i) }
  :: q!req,i -> q?ack,_
  :: else -> break
  od unless { t.a > 2 };
end: skip
}
init { select (n : 0 .. 2); for (n : 1 .. 2) { t.b[0] = !t.b[1] } }
never { do :: n > 5 -> break :: else od }
"#;

fn check(text: &str) {
    let provider = MemoryProvider::new().with("m.pml", text);
    let loaded = git_rmc::load(
        std::path::Path::new("m.pml"),
        &provider,
        &PpOptions::default(),
    );
    assert!(loaded.program.is_some() || loaded.diags.iter().any(|d| d.is_error()));
}

fn mutate(base: &str, edits: &[(usize, u8, u8)]) -> String {
    let mut b: Vec<u8> = base.as_bytes().to_vec();
    let alphabet = b"#(){}[];:\\\n\"'/*,-!?.<>=&|x0 ";
    for &(pos, op, ch) in edits {
        if b.is_empty() {
            break;
        }
        let i = pos % b.len();
        let c = alphabet[ch as usize % alphabet.len()];
        match op % 3 {
            0 => {
                b.remove(i);
            }
            1 => b.insert(i, c),
            _ => {
                let end = (i + 1 + (ch as usize % 20)).min(b.len());
                let chunk: Vec<u8> = b[i..end].to_vec();
                for (k, x) in chunk.into_iter().enumerate() {
                    b.insert(end + k, x);
                }
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

#[test]
fn seed_model_is_accepted() {
    let provider = MemoryProvider::new().with("m.pml", SEED_MODEL);
    let loaded = git_rmc::load(
        std::path::Path::new("m.pml"),
        &provider,
        &PpOptions::default(),
    );
    let msgs: Vec<String> = loaded
        .diags
        .iter()
        .map(|d| d.short(&loaded.files))
        .collect();
    let p = loaded
        .program
        .unwrap_or_else(|| panic!("{}", msgs.join("\n")));
    assert_eq!(p.procs.len(), 3);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn mutated_models_end_in_a_program_or_diagnostics(
        edits in proptest::collection::vec((0usize..10_000, 0u8..3, 0u8..255), 1..8)
    ) {
        check(&mutate(SEED_MODEL, &edits));
    }

    #[test]
    fn random_bytes_end_in_a_program_or_diagnostics(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        check(&String::from_utf8_lossy(&bytes));
    }
}
