//! Random and mutated input never panics or hangs the front end: it always ends with a program
//! or with diagnostics. Mutated conformance models that still load never panic the checker,
//! and every trail it reports replays to its violation.

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

/// The single-file conformance models, as seeds for mutation.
fn seeds() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models");
    let mut out: Vec<String> = std::fs::read_dir(&dir)
        .expect("models folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "pml"))
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    out.sort();
    out
}

/// Mutations that keep most models well-formed: a digit changed, a comparison flipped, a
/// line dropped or duplicated.
fn mutate_meaning(base: &str, edits: &[(usize, u8)]) -> String {
    let mut lines: Vec<String> = base.lines().map(str::to_string).collect();
    for &(pos, op) in edits {
        if lines.is_empty() {
            break;
        }
        let i = pos % lines.len();
        match op % 4 {
            0 => {
                let l = &mut lines[i];
                if let Some(k) = l.find(|c: char| c.is_ascii_digit()) {
                    let d = (l.as_bytes()[k] - b'0' + 1 + pos as u8 % 3) % 10;
                    l.replace_range(k..k + 1, &d.to_string());
                }
            }
            1 => {
                let l = &mut lines[i];
                for (a, b) in [("<", ">"), ("==", "!="), ("&&", "||")] {
                    if l.contains(a) {
                        *l = l.replacen(a, b, 1);
                        break;
                    }
                }
            }
            2 => {
                lines.remove(i);
            }
            _ => {
                let l = lines[i].clone();
                lines.insert(i, l);
            }
        }
    }
    lines.join("\n")
}

fn explore_checked(text: &str) {
    let provider = MemoryProvider::new().with("m.pml", text);
    let loaded = git_rmc::load(
        std::path::Path::new("m.pml"),
        &provider,
        &PpOptions::default(),
    );
    let Some(program) = loaded.program else {
        return;
    };
    let Ok(m) = git_rmc::explore::Machine::new(&program) else {
        return;
    };
    let opts = git_rmc::explore::Options {
        max_states: Some(3000),
        max_depth: Some(5000),
        ..Default::default()
    };
    let out = git_rmc::explore::explore(&m, &opts, &mut |_| {});
    for v in &out.violations {
        assert!(
            m.reproduces(&out.initial, v, &opts),
            "trail of {:?} in\n{text}",
            v.kind
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn mutated_models_never_panic_the_checker(
        seed in 0usize..1000,
        edits in proptest::collection::vec((0usize..10_000, 0u8..4), 1..5)
    ) {
        let seeds = seeds();
        explore_checked(&mutate_meaning(&seeds[seed % seeds.len()], &edits));
    }

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
