//! Embeds the sample repository (sample-repo/: history.toml and the version snapshots) into
//! the binary, so that `git rmc demo` works wherever git-rmc is installed.

use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut list: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    list.sort();
    for p in list {
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let sample = root.join("sample-repo");
    println!("cargo:rerun-if-changed=sample-repo");
    let mut list = Vec::new();
    files(&sample, &mut list);
    let mut code =
        String::from("/// (path inside sample-repo/, contents) of every file of the sample.\n");
    code.push_str("pub const SAMPLE: &[(&str, &str)] = &[\n");
    for p in &list {
        println!("cargo:rerun-if-changed={}", p.display());
        let rel = p
            .strip_prefix(&sample)
            .unwrap_or(p)
            .to_string_lossy()
            .replace('\\', "/");
        code.push_str(&format!(
            "    ({rel:?}, include_str!({:?})),\n",
            p.display().to_string()
        ));
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default()).join("sample.rs");
    if let Err(e) = std::fs::write(&out, code) {
        println!("cargo:warning=cannot write {}: {e}", out.display());
    }
}
