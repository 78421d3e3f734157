//! What `git rmc show` prints: the checked program (globals, channels, mtypes, typedefs, and
//! per proctype its parameters, locals and automaton), as text or as JSON.

use serde::Serialize;

use crate::program::{types::VarInit, Program, Var};
use crate::promela::source::SourceFiles;

#[derive(Serialize)]
pub struct ShowDoc {
    pub model: String,
    pub mtypes: Vec<MtypeJson>,
    pub typedefs: Vec<TypedefJson>,
    pub globals: Vec<VarJson>,
    pub proctypes: Vec<ProcJson>,
    pub ltl: Vec<LtlJson>,
    pub not_checked: Vec<String>,
}

#[derive(Serialize)]
pub struct MtypeJson {
    pub name: String,
    pub value: i64,
    pub subtype: Option<String>,
}

#[derive(Serialize)]
pub struct TypedefJson {
    pub name: String,
    pub fields: Vec<VarJson>,
}

#[derive(Serialize)]
pub struct VarJson {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub bits: u32,
    pub array: Option<u32>,
    pub init: Option<String>,
    pub visibility: String,
    pub location: String,
}

#[derive(Serialize)]
pub struct ProcJson {
    pub name: String,
    pub kind: String,
    pub active: u32,
    pub priority: i64,
    pub provided: Option<String>,
    pub params: Vec<VarJson>,
    pub locals: Vec<VarJson>,
    pub initial: u32,
    pub checked: bool,
    pub locations: Vec<LocJson>,
}

#[derive(Serialize)]
pub struct LocJson {
    pub id: u32,
    pub location: String,
    /// The line pan gives this location (`pan -d`); spin's line counter can lag the text.
    pub line: Option<usize>,
    pub labels: Vec<String>,
    pub end: bool,
    pub progress: bool,
    pub accept: bool,
    pub atomic: bool,
    pub terminal: bool,
    pub edges: Vec<EdgeJson>,
}

#[derive(Serialize)]
pub struct EdgeJson {
    pub target: u32,
    pub statement: String,
    pub location: String,
    pub atomic: bool,
    pub escape: bool,
}

#[derive(Serialize)]
pub struct LtlJson {
    pub name: String,
    pub formula: String,
    pub checked: bool,
}

fn var_json(v: &Var, files: &SourceFiles) -> VarJson {
    let init = match &v.init {
        VarInit::Zero => None,
        VarInit::Expr(e) => Some(e.to_string()),
        VarInit::List(l) => Some(format!(
            "{{{}}}",
            l.iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )),
        VarInit::Chan(c) => Some(c.to_string()),
    };
    VarJson {
        name: v.name.clone(),
        ty: v.ty.name(),
        bits: v.ty.bits(),
        array: v.array,
        init,
        visibility: format!("{:?}", v.vis).to_lowercase(),
        location: files.location(v.span),
    }
}

pub fn document(model: &str, p: &Program, files: &SourceFiles) -> ShowDoc {
    let mut not_checked = Vec::new();
    let proctypes = p
        .procs
        .iter()
        .map(|pr| {
            let checked = pr.kind != crate::program::ProcKind::Never;
            if !checked {
                not_checked.push(format!("never {}", pr.name));
            }
            ProcJson {
                name: pr.name.clone(),
                kind: format!("{:?}", pr.kind).to_lowercase(),
                active: pr.active,
                priority: pr.priority,
                provided: pr.provided.as_ref().map(|e| e.to_string()),
                params: pr
                    .params
                    .iter()
                    .filter_map(|&i| pr.locals.get(i))
                    .map(|v| var_json(v, files))
                    .collect(),
                locals: pr
                    .locals
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !pr.params.contains(i))
                    .map(|(_, v)| var_json(v, files))
                    .collect(),
                initial: pr.automaton.initial.0,
                checked,
                locations: pr
                    .automaton
                    .locations
                    .iter()
                    .map(|l| LocJson {
                        id: l.id.0,
                        location: if l.terminal {
                            "-".into()
                        } else {
                            files.location(l.span)
                        },
                        line: (!l.terminal).then(|| files.spin_line(l.span)),
                        labels: l.labels.clone(),
                        end: l.end,
                        progress: l.progress,
                        accept: l.accept,
                        atomic: l.atomic,
                        terminal: l.terminal,
                        edges: l
                            .edges
                            .iter()
                            .map(|e| EdgeJson {
                                target: e.target.0,
                                statement: e.text.clone(),
                                location: files.location(e.span),
                                atomic: e.atomic,
                                escape: e.escape,
                            })
                            .collect(),
                    })
                    .collect(),
            }
        })
        .collect();
    for l in &p.ltl {
        not_checked.push(format!("ltl {}", l.name));
    }
    ShowDoc {
        model: model.to_string(),
        mtypes: p
            .mtypes
            .iter()
            .map(|(n, v, s)| MtypeJson {
                name: n.clone(),
                value: *v,
                subtype: s.clone(),
            })
            .collect(),
        typedefs: p
            .typedefs
            .iter()
            .map(|t| TypedefJson {
                name: t.name.clone(),
                fields: t.fields.iter().map(|v| var_json(v, files)).collect(),
            })
            .collect(),
        globals: p.globals.iter().map(|v| var_json(v, files)).collect(),
        proctypes,
        ltl: p
            .ltl
            .iter()
            .map(|l| LtlJson {
                name: l.name.clone(),
                formula: l.text.clone(),
                checked: false,
            })
            .collect(),
        not_checked,
    }
}

fn var_line(v: &VarJson) -> String {
    let mut s = format!("{} {}", v.ty, v.name);
    if let Some(n) = v.array {
        s.push_str(&format!("[{n}]"));
    }
    if let Some(i) = &v.init {
        s.push_str(&format!(" = {i}"));
    }
    if v.visibility != "default" {
        s.push_str(&format!("  ({})", v.visibility));
    }
    s
}

pub fn text(doc: &ShowDoc) -> String {
    let mut out = String::new();
    out.push_str(&format!("model {}\n", doc.model));
    if !doc.mtypes.is_empty() {
        let names: Vec<String> = doc
            .mtypes
            .iter()
            .map(|m| match &m.subtype {
                Some(s) => format!("{}={} ({s})", m.name, m.value),
                None => format!("{}={}", m.name, m.value),
            })
            .collect();
        out.push_str(&format!("mtypes: {}\n", names.join(", ")));
    }
    for t in &doc.typedefs {
        out.push_str(&format!("typedef {}\n", t.name));
        for f in &t.fields {
            out.push_str(&format!("    {}\n", var_line(f)));
        }
    }
    if !doc.globals.is_empty() {
        out.push_str("globals\n");
        for g in &doc.globals {
            out.push_str(&format!(
                "    {:<40} {:>2} bits  {}\n",
                var_line(g),
                g.bits,
                g.location
            ));
        }
    }
    for p in &doc.proctypes {
        out.push('\n');
        let head = match p.kind.as_str() {
            "init" => "init".to_string(),
            "never" => format!("never {}  (not checked yet)", p.name),
            _ => format!("proctype {}", p.name),
        };
        out.push_str(&head);
        if p.active > 0 && p.kind == "proctype" {
            out.push_str(&format!("  active {}", p.active));
        }
        if p.priority != 1 {
            out.push_str(&format!("  priority {}", p.priority));
        }
        if let Some(pr) = &p.provided {
            out.push_str(&format!("  provided ({pr})"));
        }
        out.push_str(&format!(
            "  — {} locations, {} edges\n",
            p.locations.len(),
            p.locations.iter().map(|l| l.edges.len()).sum::<usize>()
        ));
        for v in &p.params {
            out.push_str(&format!("    param {}\n", var_line(v)));
        }
        for v in &p.locals {
            out.push_str(&format!("    local {}\n", var_line(v)));
        }
        for l in &p.locations {
            let mut flags = Vec::new();
            if l.id == p.initial {
                flags.push("initial".to_string());
            }
            if l.terminal {
                flags.push("terminated".to_string());
            } else if l.end {
                flags.push("end".to_string());
            }
            if l.progress {
                flags.push("progress".to_string());
            }
            if l.accept {
                flags.push("accept".to_string());
            }
            if l.atomic {
                flags.push("atomic".to_string());
            }
            for lab in &l.labels {
                flags.push(format!("{lab}:"));
            }
            let text_line = l.location.rsplit(':').nth(1).and_then(|n| n.parse().ok());
            if let Some(line) = l.line.filter(|&n| Some(n) != text_line) {
                flags.push(format!("(pan: line {line})"));
            }
            out.push_str(&format!(
                "  L{:<5} {:<28} {}\n",
                l.id,
                l.location,
                flags.join(" ")
            ));
            for e in &l.edges {
                let mut tags = String::new();
                if e.escape {
                    tags.push_str(" [unless]");
                }
                if e.atomic {
                    tags.push_str(" [atomic]");
                }
                out.push_str(&format!(
                    "      -> L{:<5} {}{}   ({})\n",
                    e.target, e.statement, tags, e.location
                ));
            }
        }
    }
    for l in &doc.ltl {
        out.push_str(&format!(
            "\nltl {}: {}  (not checked yet)\n",
            l.name, l.formula
        ));
    }
    out
}
