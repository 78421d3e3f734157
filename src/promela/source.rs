//! Source files of one model: the main file and everything it includes, read through a
//! `FileProvider` so that the same front end reads from disk now and from a git tree later.
//! Spans are byte ranges into these files; nothing here knows about Promela.

use std::io;
use std::path::{Path, PathBuf};

/// Index of a file in `SourceFiles`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range in one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span {
            file,
            start: start as u32,
            end: end.max(start) as u32,
        }
    }

    /// The smallest span covering both (same file assumed; otherwise `self`).
    pub fn to(self, other: Span) -> Span {
        if self.file != other.file {
            return self;
        }
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// Where model files come from. Paths are as written by the user or resolved by `#include`.
pub trait FileProvider {
    fn read(&self, path: &Path) -> io::Result<String>;
}

/// Reads files from the local file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct DiskProvider;

impl FileProvider for DiskProvider {
    fn read(&self, path: &Path) -> io::Result<String> {
        let bytes = std::fs::read(path)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// In-memory files, for tests and for content already read from elsewhere.
#[derive(Clone, Debug, Default)]
pub struct MemoryProvider {
    pub files: Vec<(PathBuf, String)>,
}

impl MemoryProvider {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with(mut self, path: impl Into<PathBuf>, text: impl Into<String>) -> Self {
        self.files.push((path.into(), text.into()));
        self
    }
}

impl FileProvider for MemoryProvider {
    fn read(&self, path: &Path) -> io::Result<String> {
        let want = normalize(path);
        self.files
            .iter()
            .find(|(p, _)| normalize(p) == want)
            .map(|(_, t)| t.clone())
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such file"))
    }
}

/// Lexical normalisation of a path (`a/./b/../c` → `a/c`), without touching the file system.
pub fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// One file's name (as shown in diagnostics) and text, with line starts for positions.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        let text = text.into();
        let mut line_starts = vec![0];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i + 1);
            }
        }
        SourceFile {
            name: name.into(),
            text,
            line_starts,
        }
    }

    /// 1-based line and column (columns count characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = match self.line_starts.binary_search(&offset) {
            Ok(l) => l,
            Err(l) => l - 1,
        };
        let start = self.line_starts[line];
        let col = self
            .text
            .get(start..offset)
            .map(|s| s.chars().count())
            .unwrap_or(offset - start);
        (line + 1, col + 1)
    }
}

/// A stretch of a file whose lines spin numbers `lag` lower than they are (see
/// `SourceFiles::spin_line`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineLag {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
    pub lag: u32,
}

/// All files read for one model; `FileId` indexes into it.
#[derive(Clone, Debug, Default)]
pub struct SourceFiles {
    pub files: Vec<SourceFile>,
    /// Where spin's line counter lags behind the text, in ascending order.
    pub lags: Vec<LineLag>,
}

impl SourceFiles {
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        self.files.push(SourceFile::new(name, text));
        FileId((self.files.len() - 1) as u32)
    }

    pub fn get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    pub fn name(&self, id: FileId) -> &str {
        self.get(id).map(|f| f.name.as_str()).unwrap_or("<unknown>")
    }

    /// `file:line:col` of the start of a span.
    pub fn location(&self, span: Span) -> String {
        match self.get(span.file) {
            Some(f) => {
                let (l, c) = f.line_col(span.start as usize);
                format!("{}:{}:{}", f.name, l, c)
            }
            None => "<unknown>".to_string(),
        }
    }

    /// 1-based line of the start of a span.
    pub fn line(&self, span: Span) -> usize {
        self.get(span.file)
            .map(|f| f.line_col(span.start as usize).0)
            .unwrap_or(0)
    }

    /// The line spin (and so pan) gives the start of a span: `line`, less the lag of a
    /// stretch that holds it.
    pub fn spin_line(&self, span: Span) -> usize {
        let lag = self
            .lags
            .iter()
            .find(|l| l.file == span.file && l.start <= span.start && span.start < l.end)
            .map_or(0, |l| l.lag as usize);
        self.line(span).saturating_sub(lag)
    }
}
