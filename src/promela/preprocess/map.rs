//! The source map from output byte offsets back to original spans and macro expansions, and
//! the writer that builds the output text with gcc's spacing while recording that map.

use super::super::source::Span;
use super::lexer::{needs_space, Token};

/// One run of output text with a single origin.
#[derive(Clone, Copy, Debug)]
struct Segment {
    out_start: u32,
    out_end: u32,
    span: Span,
    /// Output and source bytes correspond one to one (text copied verbatim).
    exact: bool,
    exp: Option<u32>,
}

/// One macro expansion: which macro, and the expansion its invocation came from.
#[derive(Clone, Copy, Debug)]
pub(super) struct Expansion {
    pub name: u32,
    pub def: Span,
    pub parent: Option<u32>,
}

/// Maps offsets of `Preprocessed::text` to where the text came from.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    segments: Vec<Segment>,
    pub(super) expansions: Vec<Expansion>,
    pub(super) names: Vec<String>,
    /// Answer for an empty output: the start of the main file.
    pub(super) fallback: Span,
}

impl SourceMap {
    /// The original span of the output byte range [start, end). For text copied from a file it is
    /// the exact place; for a token that came from a macro argument, the place of that argument
    /// text in the source; for a token of a macro body, the span of the (outermost) macro
    /// invocation, name through closing parenthesis. A range crossing segments maps to the
    /// span of its start, extended when in the same file. Offsets between tokens map to the
    /// next token; offsets should be char boundaries of the output.
    pub fn span(&self, start: usize, end: usize) -> Span {
        let end = end.max(start);
        let Some(first) = self.segment_at(start) else {
            return self.segments.last().map_or(self.fallback, |s| {
                Span::new(s.span.file, s.span.end as usize, s.span.end as usize)
            });
        };
        let head = first.piece(start, end.min(first.out_end as usize));
        if end <= first.out_end as usize {
            return head;
        }
        let last = self.segment_at(end - 1).or(self.segments.last()).copied();
        match last {
            Some(last) => head.to(last.piece(last.out_start as usize, end)),
            None => head,
        }
    }

    /// Macro expansions covering this output offset, innermost first: (macro name, span of
    /// its definition's name in the #define line) — used for notes like
    /// "in expansion of macro `N` defined at inc.h:3:9".
    pub fn expansions(&self, offset: usize) -> Vec<(String, Span)> {
        let mut out = Vec::new();
        let mut cur = self.segment_at(offset).and_then(|s| s.exp);
        while let Some(e) = cur.and_then(|i| self.expansions.get(i as usize)) {
            let name = self.names.get(e.name as usize).cloned().unwrap_or_default();
            out.push((name, e.def));
            // Parents are always recorded before their children, so this terminates.
            cur = e.parent.filter(|&p| Some(p) < cur);
        }
        out
    }

    /// The segment containing `offset`, or the next one when it falls between segments.
    fn segment_at(&self, offset: usize) -> Option<&Segment> {
        let i = self
            .segments
            .partition_point(|s| (s.out_end as usize) <= offset);
        self.segments.get(i)
    }

    fn push(&mut self, out_start: usize, out_end: usize, tok: &Token) {
        let seg = Segment {
            out_start: out_start as u32,
            out_end: out_end as u32,
            span: tok.span,
            exact: tok.exact,
            exp: tok.exp,
        };
        if let Some(last) = self.segments.last_mut() {
            let same_origin = last.exp == seg.exp && last.span.file == seg.span.file;
            // Verbatim text with a gap of the same width in source and output stays linear.
            let linear = last.exact
                && seg.exact
                && seg.span.start >= last.span.end
                && seg.span.start - last.span.end == seg.out_start - last.out_end;
            // Consecutive tokens of one macro body all map to the invocation.
            let same_body = !last.exact && !seg.exact && last.span == seg.span;
            if same_origin && (linear || same_body) {
                last.out_end = seg.out_end;
                last.span.end = last.span.end.max(seg.span.end);
                return;
            }
        }
        self.segments.push(seg);
    }
}

impl Segment {
    /// The source span of output range [start, end) inside this segment.
    fn piece(&self, start: usize, end: usize) -> Span {
        if !self.exact {
            return self.span;
        }
        let at = |off: usize| {
            let d =
                off.clamp(self.out_start as usize, self.out_end as usize) - self.out_start as usize;
            (self.span.start as usize + d).min(self.span.end as usize)
        };
        Span::new(self.span.file, at(start), at(end))
    }
}

/// Builds the output: tokens with gcc's spacing, newlines to keep lines, and the map.
pub(super) struct Writer {
    pub text: String,
    pub map: SourceMap,
    /// Line breaks owed to the output, written before the next token from a file that has
    /// whitespace before it (so lines stay in step with the source, as gcc -E does).
    pub pending_newlines: usize,
    /// Output offsets where gcc -E writes a line marker (`# 12 "file"`) instead of plain
    /// text: spin's line counter is set from the marker there.
    pub markers: Vec<u32>,
    /// The token written last on the current line (for spacing).
    last: Option<Token>,
    limit: usize,
}

impl Writer {
    pub fn new(limit: usize, fallback: Span) -> Writer {
        let map = SourceMap {
            fallback,
            ..SourceMap::default()
        };
        Writer {
            text: String::new(),
            map,
            pending_newlines: 0,
            markers: Vec::new(),
            last: None,
            limit,
        }
    }

    /// Writes the owed line breaks; false when that would exceed the size limit. gcc ends
    /// the current line and, when 8 or more lines are still to skip, writes a line marker
    /// instead of the blank lines; that marker is recorded (the text keeps its blank lines).
    pub fn flush_newlines(&mut self) -> bool {
        let n = std::mem::take(&mut self.pending_newlines);
        if n == 0 {
            return true;
        }
        let skipped = if self.at_line_start() { n } else { n - 1 };
        if skipped >= 8 {
            self.marker();
        }
        if self.text.len().saturating_add(n) > self.limit {
            return false;
        }
        self.text.extend(std::iter::repeat_n('\n', n));
        self.last = None;
        true
    }

    /// Records that gcc -E writes a line marker before the text that follows.
    pub fn marker(&mut self) {
        let at = self.text.len() as u32;
        if self.markers.last() != Some(&at) {
            self.markers.push(at);
        }
    }

    /// Ends the output with a newline, as gcc's does.
    pub fn end_line(&mut self) {
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            self.text.push('\n');
        }
        self.last = None;
    }

    pub fn at_line_start(&self) -> bool {
        self.text.is_empty() || self.text.ends_with('\n')
    }

    /// Appends a token: at the start of a line indented by `indent` spaces (gcc keeps a
    /// line's indentation), elsewhere preceded by a space when it had one or would otherwise
    /// paste onto the previous token. False when that would exceed the size limit.
    pub fn token(&mut self, tok: &Token, indent: usize) -> bool {
        if tok.text.is_empty() {
            return true;
        }
        if self.text.len() + tok.text.len() + indent + 1 > self.limit {
            return false;
        }
        let at_line_start = self.at_line_start();
        let glued = self
            .last
            .as_ref()
            .is_some_and(|l| l.seq != 0 && l.seq.wrapping_add(1) == tok.seq);
        let pastes = !glued && self.last.as_ref().is_some_and(|l| needs_space(l, tok));
        if at_line_start {
            self.text.extend(std::iter::repeat_n(' ', indent));
        } else if tok.space || pastes {
            self.text.push(' ');
        }
        let start = self.text.len();
        self.text.push_str(&tok.text);
        self.map.push(start, self.text.len(), tok);
        self.last = Some(tok.clone());
        true
    }
}
