//! Unit tests: each feature with exact output and exact diagnostics (`file:line:col`), the
//! source map, the robustness limits, and a proptest that nothing panics or hangs.

use std::path::Path;

use proptest::prelude::*;

use super::super::diag::Diagnostic;
use super::super::source::{MemoryProvider, SourceFiles};
use super::{preprocess, preprocess_with, Limits, PpOptions, Preprocessed};

/// Preprocesses `files[0]` with the others available; diagnostics as `short` lines.
fn run_opts(files: &[(&str, &str)], opts: &PpOptions) -> (Preprocessed, Vec<String>, SourceFiles) {
    run_limited(files, opts, Limits::default())
}

fn run_limited(
    files: &[(&str, &str)],
    opts: &PpOptions,
    limits: Limits,
) -> (Preprocessed, Vec<String>, SourceFiles) {
    let provider = files.iter().fold(MemoryProvider::new(), |p, (name, text)| {
        p.with(*name, *text)
    });
    let mut sources = SourceFiles::default();
    let main = Path::new(files.first().map_or("main.pml", |f| f.0));
    let (out, diags) = preprocess_with(main, &provider, opts, &mut sources, limits);
    let shown = diags.iter().map(|d| d.short(&sources)).collect();
    (out, shown, sources)
}

/// Output of a single file with whitespace runs normalised, and its diagnostics.
fn pp(src: &str) -> (String, Vec<String>) {
    let (out, diags, _) = run_opts(&[("m.pml", src)], &PpOptions::default());
    (norm(&out.text), diags)
}

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Output of an input expected to give no diagnostics at all.
fn clean(src: &str) -> String {
    let (out, diags) = pp(src);
    assert!(diags.is_empty(), "unexpected diagnostics: {diags:?}");
    out
}

/// Output of an input expected to give exactly the diagnostics `expected`.
fn clean_or(src: &str, expected: &[&str]) -> String {
    let (out, diags) = pp(src);
    assert_eq!(diags, expected);
    out
}

fn diags(src: &str) -> Vec<String> {
    pp(src).1
}

#[test]
fn object_macros_and_predefined() {
    assert_eq!(
        clean("#define N 4\nbyte unix; int a[N]; linux\n"),
        "byte 1; int a[4]; 1"
    );
    assert_eq!(
        clean("__STDC__ __STDC_VERSION__ __STDC_HOSTED__"),
        "1 199901L 1"
    );
    assert_eq!(
        clean("__GNUC__ __GNUC_MINOR__ __GNUC_PATCHLEVEL__"),
        "12 2 0"
    );
    assert_eq!(
        clean("__x86_64__ __LP64__ __CHAR_BIT__ __SIZEOF_INT__"),
        "1 1 8 4"
    );
    assert_eq!(
        clean("__INT_MAX__ __LONG_MAX__"),
        "0x7fffffff 0x7fffffffffffffffL"
    );
    assert_eq!(clean("#define E\na E b E"), "a b");
}

#[test]
fn line_structure_is_kept() {
    let (out, diags, _) = run_opts(
        &[(
            "m.pml",
            "#define N 2\nint a[N];\n/* x\ny */ b\n#if 0\nz\n#endif\nc\n",
        )],
        &PpOptions::default(),
    );
    assert!(diags.is_empty());
    // Like gcc, a line's first token keeps its column.
    assert_eq!(out.text, "\nint a[2];\n\n     b\n\n\n\nc\n");
    let (out, _, _) = run_opts(
        &[("m.pml", "#define F(a,b) a+b\nF(1,\n2) x\ny\n")],
        &PpOptions::default(),
    );
    // gcc's layout: the expansion on the invocation's first line, `x` back on its own line.
    assert_eq!(out.text, "\n1 +2\n   x\ny\n");
}

#[test]
fn function_macros() {
    assert_eq!(
        clean("#define F(x, y) x + y\nF(1, 2) F((a,b), [c) F(,)"),
        "1 + 2 (a,b) + [c +"
    );
    assert_eq!(clean("#define F(x) [x]\nF\n(1) F + 1"), "[1] F + 1");
    assert_eq!(clean("#define F() z\nF() F"), "z F");
    assert_eq!(clean("#define f(x) (x+1)\nf(f(f(1)))"), "(((1 +1)+1)+1)");
    assert_eq!(clean("#define g f\n#define f(x) <x>\ng(3)"), "<3>");
}

#[test]
fn painted_blue_tokens_do_not_expand() {
    assert_eq!(clean("#define a a b\n#define b a\na b"), "a a a b");
    assert_eq!(clean("#define h(x) x h\nh(h)(2)"), "h h(2)");
    assert_eq!(
        clean("#define f(a) a*g\n#define g(a) f(a)\nf(2)(9)"),
        "2*9*g"
    );
}

#[test]
fn stringizing() {
    let src = "#define s(x) #x\ns( a  +  \"b\\n\" 'c'   ) s() s(/* c */ a /* d */ b)";
    assert_eq!(clean(src), r#""a + \"b\\n\" 'c'" "" "a b""#);
    assert_eq!(clean("#define s(x) #x\ns(\na\nb)"), "\"a b\"");
    assert_eq!(
        clean("#define s(...) #__VA_ARGS__\ns(a,b , c)"),
        "\"a,b , c\""
    );
}

#[test]
fn pasting() {
    let src =
        "#define t(x,y,z) x ## y ## z\nt(1,2,3) t(,4,5) t(6,,7) t(8,9,) t(10,,) t(,,12) t(,,)";
    assert_eq!(clean(src), "123 45 67 89 10 12");
    assert_eq!(
        clean("#define c(a,b) a##b\nc(x,1) c(<,<=) c(-,>) c(1,e)"),
        "x1 <<= -> 1e"
    );
    assert_eq!(clean("#define hh # ## #\nhh"), "##");
    let (out, d) = pp("#define cat(a,b) a ## b\ncat(a,+)");
    assert_eq!(out, "a+");
    assert_eq!(
        d,
        ["m.pml:2:5: error: pasting \"a\" and \"+\" does not give a valid preprocessing token"]
    );
}

#[test]
fn variadic_macros_and_gnu_comma() {
    let src = "#define e(fmt, ...) f(fmt, ## __VA_ARGS__)\ne(x) e(x,) e(x,y,z)";
    assert_eq!(clean(src), "f(x) f(x,) f(x,y,z)");
    assert_eq!(
        clean("#define e(...) g(a, ## __VA_ARGS__)\ne() e(1)"),
        "g(a) g(a,1)"
    );
    assert_eq!(
        clean("#define e(x...) h(a, ## x)\ne() e(1,2)"),
        "h(a) h(a,1,2)"
    );
    assert_eq!(
        clean("#define v(x, ...) x(__VA_ARGS__)\nv(f) v(f, 1, 2)"),
        "f() f(1, 2)"
    );
}

#[test]
fn argument_count_errors() {
    let (out, d) = pp("#define K(a,b) a b\nK(1) K(1,2,3)\n#define Z() z\nZ(1)");
    assert_eq!(out, "K K Z");
    assert_eq!(
        d,
        [
            "m.pml:2:4: error: macro \"K\" requires 2 arguments, but only 1 given",
            "m.pml:2:13: error: macro \"K\" passed 3 arguments, but takes just 2",
            "m.pml:4:4: error: macro \"Z\" passed 1 arguments, but takes just 0",
        ]
    );
    assert_eq!(
        diags("#define f(x) x\nf(1,\n2\n"),
        ["m.pml:2:1: error: unterminated argument list invoking macro \"f\""]
    );
}

#[test]
fn definition_errors() {
    let src =
        "#define\n#define 3\n#define defined\n#define f(x,x) x\n#define g(x\n#define h(x,) x\n\
               #define j(x...,y) x\n#define k(x) #y\n#define l(x) ## x\n";
    assert_eq!(
        diags(src),
        [
            "m.pml:1:8: error: no macro name given in #define directive",
            "m.pml:2:9: error: macro names must be identifiers",
            "m.pml:3:9: error: \"defined\" cannot be used as a macro name",
            "m.pml:4:13: error: duplicate macro parameter \"x\"",
            "m.pml:5:12: error: expected ')' before end of line",
            "m.pml:6:13: error: expected parameter name, found \")\"",
            "m.pml:7:15: error: expected ')' after \"...\"",
            "m.pml:8:14: error: '#' is not followed by a macro parameter",
            "m.pml:9:14: error: '##' cannot appear at either end of a macro expansion",
        ]
    );
    assert_eq!(
        diags("#define X+1\n"),
        ["m.pml:1:10: warning: ISO C99 requires whitespace after the macro name"]
    );
}

/// The diagnostics themselves (with labels) and the files, for one source text.
fn raw(src: &str) -> (Vec<Diagnostic>, SourceFiles) {
    let provider = MemoryProvider::new().with("m.pml", src);
    let mut sources = SourceFiles::default();
    let opts = PpOptions::default();
    let (_, d) = preprocess(Path::new("m.pml"), &provider, &opts, &mut sources);
    (d, sources)
}

/// Each label of a diagnostic as `file:line:col: message`.
fn labels(d: &Diagnostic, files: &SourceFiles) -> Vec<String> {
    let show = |l: &super::super::diag::Label| format!("{}: {}", files.location(l.span), l.message);
    d.labels.iter().map(show).collect()
}

#[test]
fn redefinition_warns_only_when_different() {
    let src = "#define X 1\n#define X  1\n#define X 2\nX\n#undef X\nX";
    assert_eq!(
        clean_or(src, &["m.pml:3:9: warning: \"X\" redefined"]),
        "2 X"
    );
    let (d, files) = raw(src);
    assert_eq!(
        labels(&d[0], &files),
        ["m.pml:2:9: this is the location of the previous definition"]
    );
    assert_eq!(
        diags("#undef __FILE__\n"),
        ["m.pml:1:8: warning: undefining \"__FILE__\""]
    );
}

#[test]
fn labels_point_at_definitions() {
    let (d, files) = raw("#define K(a,b) a b\nK(1)\n#define cat(a,b) a ## b\ncat(a,+)\n");
    assert_eq!(
        labels(&d[0], &files),
        ["m.pml:1:9: macro \"K\" defined here"]
    );
    assert_eq!(
        labels(&d[1], &files),
        ["m.pml:3:20: in definition of macro \"cat\""]
    );
    let (d, files) = raw("#if 1\n#else\n#else\n#endif\n");
    assert_eq!(
        labels(&d[0], &files),
        ["m.pml:1:1: the conditional began here"]
    );
}

#[test]
fn conditionals() {
    let src = "#define A 2\n#if A * 3 == 6 && defined(A) && !defined B\nok1\n#elif 1/0\nno\n#else\nno don't\n\
               #endif\n#if 0\n#if 1\nno ' \"\n#else\n#foo\n#endif\n#elif A > 1 ? 1 : 0\nok2\n#endif\n\
               #ifdef A\nok3\n#endif\n#ifndef A\nno\n#else\nok4\n#endif\n";
    assert_eq!(clean(src), "ok1 ok2 ok3 ok4");
}

#[test]
fn if_expressions() {
    let t = |e: &str| clean(&format!("#if {e}\nT\n#else\nF\n#endif\n"));
    assert_eq!(t("-1 < 0u"), "F");
    assert_eq!(t("1 ? -1 : 0u"), "T");
    assert_eq!(t("(2,3) == 3 && 0x10 == 16 && 010 == 8 && 0b11 == 3"), "T");
    assert_eq!(
        t("'a' == 97 && '\\377' < 0 && '\\n' == 10 && '\\x41' == 65"),
        "T"
    );
    assert_eq!(
        t("(1 << 62) > 0 && -1 >> 70 == -1 && 7 % 3 == 1 && -7 / 2 == -3"),
        "T"
    );
    assert_eq!(
        t("~0u == 0xffffffffffffffff && 5ULL == 5 && 10L - 3l == 7"),
        "T"
    );
    assert_eq!(t("undefined_name || 0 && (1/0)"), "F");
    assert_eq!(t("((((((1))))))"), "T");
    let e = |e: &str| diags(&format!("#if {e}\n#endif\n"));
    assert_eq!(e("1/0"), ["m.pml:1:6: error: division by zero in #if"]);
    assert_eq!(
        e("1 +"),
        ["m.pml:1:7: error: operator '+' has no right operand"]
    );
    assert_eq!(e("(1"), ["m.pml:1:5: error: missing ')' in expression"]);
    assert_eq!(
        e("1 2"),
        ["m.pml:1:7: error: missing binary operator before token \"2\""]
    );
    assert_eq!(
        e("\"s\""),
        ["m.pml:1:5: error: token \"\"s\"\" is not valid in preprocessor expressions"]
    );
    assert_eq!(
        e("1.0"),
        ["m.pml:1:5: error: floating constant in preprocessor expression"]
    );
    assert_eq!(
        e("()"),
        ["m.pml:1:6: error: missing expression between '(' and ')'"]
    );
    assert_eq!(
        e("1 +* 2"),
        ["m.pml:1:8: error: operator '+' has no right operand"]
    );
    assert_eq!(
        e("* 2"),
        ["m.pml:1:5: error: operator '*' has no left operand"]
    );
    assert_eq!(e("("), ["m.pml:1:5: error: missing ')' in expression"]);
    assert_eq!(e(")"), ["m.pml:1:5: error: missing '(' in expression"]);
    assert_eq!(e("1 :"), ["m.pml:1:7: error: ':' without preceding '?'"]);
    assert_eq!(
        e("(1 ? 2)"),
        ["m.pml:1:11: error: '?' without following ':'"]
    );
    assert_eq!(
        e("1 ? (2 : 3)"),
        ["m.pml:1:12: error: ':' without preceding '?'"]
    );
    assert_eq!(
        e("(0 && 1/0) + 1/0"),
        ["m.pml:1:19: error: division by zero in #if"]
    );
    assert_eq!(
        e("(1)(2)"),
        ["m.pml:1:8: error: missing binary operator before token \"(\""]
    );
    assert_eq!(
        e("1 ? 9223372036854775807 + 1 : 0"),
        ["m.pml:1:29: warning: integer overflow in preprocessor expression"]
    );
    assert!(e("1 ? 1 : (9223372036854775807 + 1) / 0").is_empty());
    assert!(e("0 ? (9223372036854775807 + 1) / 0 : 1").is_empty());
    assert_eq!(e(""), ["m.pml:1:4: error: #if with no expression"]);
    assert_eq!(e("1 ? 2"), ["m.pml:1:7: error: '?' without following ':'"]);
    assert_eq!(
        e("defined"),
        ["m.pml:1:12: error: operator \"defined\" requires an identifier"]
    );
    assert_eq!(
        e("12abc"),
        ["m.pml:1:5: error: invalid suffix \"abc\" on integer constant"]
    );
    assert_eq!(
        e("1 = 1"),
        ["m.pml:1:7: error: token \"=\" is not valid in preprocessor expressions"]
    );
    assert_eq!(
        e("18446744073709551615 == -1"),
        ["m.pml:1:5: warning: integer constant is so large that it is unsigned"]
    );
}

#[test]
fn deep_expressions_do_not_overflow_the_stack() {
    // The #if parser does not recurse: any depth works, on a small stack too.
    let src = format!(
        "#if {}1{} && {}1 == -1 && 0 ? 1 : {}1\nT\n#endif\n",
        "(".repeat(100_000),
        ")".repeat(100_000),
        "- ".repeat(100_001),
        "1 ? ".repeat(50_000) + &"1 : ".repeat(50_000)
    );
    let thread = std::thread::Builder::new().stack_size(256 << 10);
    let out = thread
        .spawn(move || clean(&src))
        .expect("spawn")
        .join()
        .expect("no overflow");
    assert_eq!(out, "T");
}

#[test]
fn conditional_errors() {
    assert_eq!(
        diags("#if 1\n#else\n#else\n#endif\n"),
        ["m.pml:3:2: error: #else after #else"]
    );
    assert_eq!(
        diags("#if 1\n#else\n#elif 1\n#endif\n"),
        ["m.pml:3:2: error: #elif after #else"]
    );
    assert_eq!(diags("#endif\n"), ["m.pml:1:2: error: #endif without #if"]);
    assert_eq!(
        diags("a\n  #if 1\nb\n"),
        ["m.pml:2:3: error: unterminated #if"]
    );
    assert_eq!(
        diags("#ifdef X\n#else\n"),
        ["m.pml:1:1: error: unterminated #else"]
    );
    assert_eq!(
        diags("#ifdef\n#endif\n#ifdef 1\n#endif\n#ifdef X Y\n#endif\n"),
        [
            "m.pml:1:7: error: no macro name given in #ifdef directive",
            "m.pml:3:8: error: macro names must be identifiers",
            "m.pml:5:10: warning: extra tokens at end of #ifdef directive",
        ]
    );
}

#[test]
fn other_directives() {
    assert_eq!(
        diags("#error  hello   world \"x\"\n#warning  careful\n#foo\n"),
        [
            "m.pml:1:2: error: #error hello world \"x\"",
            "m.pml:2:2: warning: #warning careful",
            "m.pml:3:2: error: invalid preprocessing directive #foo",
        ]
    );
    assert_eq!(
        clean("#pragma foo\n#ident \"x\"\n#\n# /* c */\na # b\n"),
        "a # b"
    );
    assert_eq!(
        clean("#define EMPTY\nEMPTY # define X 1\nX"),
        "# define X 1 X"
    );
}

#[test]
fn line_and_file() {
    let src = "a __LINE__\n#line 100\nb __LINE__\n#line 200 \"foo.c\"\nc __LINE__ __FILE__\n# 7 \"bar.c\"\nd __LINE__";
    assert_eq!(clean(src), "a 1 b 100 c 200 \"foo.c\" d 7");
    let src = "#define F(x) x __LINE__\nF(\n__LINE__\n) __FILE__ __BASE_FILE__ __INCLUDE_LEVEL__";
    assert_eq!(clean(src), "3 2 \"m.pml\" \"m.pml\" 0");
    assert_eq!(clean("__COUNTER__ __COUNTER__ __COUNTER__"), "0 1 2");
    let (out, _, _) = run_opts(&[("m.pml", "__DATE__ __TIME__")], &PpOptions::default());
    assert_eq!(out.text, "\"Jan  1 1970\" \"00:00:00\"\n");
    assert_eq!(
        diags("#line x\n"),
        ["m.pml:1:7: error: \"x\" after #line is not a positive integer"]
    );
}

#[test]
fn lexical_details() {
    assert_eq!(clean("a /* x */ b // c\nd/**/e"), "a b d e");
    assert_eq!(clean("e \\\nf \"st\\\nring\" g\\\nh"), "e f \"string\" gh");
    assert_eq!(clean("#define X 1 /* multi\nline */ + 2\nX"), "1 + 2");
    assert_eq!(
        diags("a\n  /* open"),
        ["m.pml:2:3: error: unterminated comment"]
    );
    let (out, d) = pp("x \"abc\n'y\n");
    assert_eq!(out, "x \"abc 'y");
    assert_eq!(
        d,
        [
            "m.pml:1:3: warning: missing terminating \" character",
            "m.pml:2:1: warning: missing terminating ' character",
        ]
    );
    assert_eq!(clean("#if 0\nit's fine\n#endif\nok"), "ok");
    assert_eq!(clean("%:define DG 5\nDG <: :>"), "5 <: :>");
}

#[test]
fn avoid_paste_spacing() {
    let (out, _, _) = run_opts(
        &[("m.pml", "#define id(x) x\n#define P +\n#define E\n#define O id(+)+\nid(x)1 id(+)+ id(-)> P+ -E- id(/)id(*) x/**/y O\n")],
        &PpOptions::default(),
    );
    assert_eq!(out.text, "\n\n\n\nx 1 + + - > + + - - / * x y + +\n");
}

#[test]
fn promela_operators_keep_their_spacing() {
    // gcc separates tokens only across macro boundaries, and spin lexes its output: `..`
    // in a macro body stays one range operator, a `:` macro next to `:` stays apart.
    let src =
        "#define R(a,b) a..b\n#define OPT ::\n#define C :\nfor (i : R(lo,hi)) x..y\nOPT C: q!!x\n";
    let (out, d, _) = run_opts(&[("m.pml", src)], &PpOptions::default());
    assert!(d.is_empty());
    assert_eq!(out.text, "\n\n\nfor (i : lo..hi) x..y\n:: : : q!!x\n");
    let (out, _, _) = run_opts(
        &[("m.pml", "#define k(a, b...) k(a, b)\nk(1)")],
        &PpOptions::default(),
    );
    assert_eq!(out.text, "\nk(1, )\n");
}

#[test]
fn includes() {
    let files = [
        ("dir/m.pml", "#include \"a.h\"\n#include <sys.h>\n#define Q \"a.h\"\n#include Q\n#include \"once.h\"\n#include \"once.h\"\nend\n"),
        ("dir/a.h", "in_a __FILE__ __INCLUDE_LEVEL__\n#include \"sub/b.h\"\n"),
        ("dir/sub/b.h", "in_b __FILE__\n#include \"c.h\"\n"),
        ("dir/sub/c.h", "in_c __FILE__ __LINE__\n"),
        ("inc/sys.h", "sys __FILE__\n"),
        ("inc/a.h", "wrong\n"),
        ("dir/once.h", "#pragma once\nonce\n"),
    ];
    let opts = PpOptions {
        defines: Vec::new(),
        include_dirs: vec!["inc".into()],
    };
    let (out, d, sources) = run_opts(&files, &opts);
    assert!(d.is_empty(), "{d:?}");
    let a = "in_a \"dir/a.h\" 1 in_b \"dir/sub/b.h\" in_c \"dir/sub/c.h\" 1";
    assert_eq!(
        norm(&out.text),
        format!("{a} sys \"inc/sys.h\" {a} once end")
    );
    let names: Vec<&str> = sources.files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "dir/m.pml",
            "dir/a.h",
            "dir/sub/b.h",
            "dir/sub/c.h",
            "inc/sys.h",
            "dir/once.h"
        ]
    );
}

#[test]
fn include_errors() {
    let (out, d, _) = run_opts(
        &[("m.pml", "a\n#include \"nope.h\"\nb\n")],
        &PpOptions::default(),
    );
    assert_eq!(d, ["m.pml:2:10: error: nope.h: No such file or directory"]);
    assert_eq!(norm(&out.text), "a");
    assert_eq!(
        diags("#include\n#include foo\n"),
        [
            "m.pml:1:2: error: #include expects \"FILENAME\" or <FILENAME>",
            "m.pml:2:10: error: #include expects \"FILENAME\" or <FILENAME>",
        ]
    );
    let (out, d, _) = run_opts(
        &[
            ("m.pml", "#include \"self.h\"\n"),
            ("self.h", "__INCLUDE_LEVEL__\n#include \"self.h\"\n"),
        ],
        &PpOptions::default(),
    );
    assert_eq!(
        d,
        ["self.h:2:10: error: #include nested depth 200 exceeds maximum of 200"]
    );
    assert_eq!(out.text.split_whitespace().last(), Some("199"));
    let (_, d, _) = run_opts(&[("m.pml", "")], &PpOptions::default());
    assert!(d.is_empty());
    let (_, d, _) = run_opts(&[], &PpOptions::default());
    assert_eq!(
        d,
        ["main.pml:1:1: error: main.pml: No such file or directory"]
    );
}

#[test]
fn command_line_defines() {
    let opts = PpOptions {
        defines: vec![
            "A".into(),
            "B=2+3".into(),
            "C=".into(),
            "F(x)=[x]".into(),
            "unix=0".into(),
        ],
        include_dirs: Vec::new(),
    };
    let (out, d, _) = run_opts(&[("m.pml", "A B C F(1) unix")], &opts);
    assert_eq!(norm(&out.text), "1 2+3 [1] 0");
    assert_eq!(d, ["m.pml:1:1: warning: \"unix\" redefined"]);
    let opts = PpOptions {
        defines: vec!["1X=2".into()],
        include_dirs: Vec::new(),
    };
    let (_, d, _) = run_opts(&[("m.pml", "x")], &opts);
    assert_eq!(
        d,
        ["m.pml:1:1: error: invalid -D option \"-D1X=2\": macro names must be identifiers"]
    );
}

/// The output offset range of the `n`th occurrence of `needle`.
fn find(text: &str, needle: &str, n: usize) -> (usize, usize) {
    let start = text
        .match_indices(needle)
        .nth(n)
        .map(|m| m.0)
        .expect("needle in output");
    (start, start + needle.len())
}

#[test]
fn source_map_spans() {
    let files = [
        ("m.pml", "#include \"inc.h\"\nint x = N + SQ(y);\n  z\n"),
        ("inc.h", "#define N 10\n#define SQ(a) ((a)*(a))\n"),
    ];
    let (out, d, sources) = run_opts(&files, &PpOptions::default());
    assert!(d.is_empty(), "{d:?}");
    let text = &out.text;
    let loc = |(s, e): (usize, usize)| {
        let span = out.map.span(s, e);
        let f = sources.get(span.file).expect("file");
        format!(
            "{} {:?}",
            sources.location(span),
            &f.text[span.start as usize..span.end as usize]
        )
    };
    assert_eq!(loc(find(text, "int", 0)), "m.pml:2:1 \"int\"");
    assert_eq!(loc(find(text, "10", 0)), "m.pml:2:9 \"N\"");
    assert_eq!(loc(find(text, "y", 0)), "m.pml:2:16 \"y\"");
    assert_eq!(loc(find(text, "*", 0)), "m.pml:2:13 \"SQ(y)\"");
    assert_eq!(loc(find(text, "z", 0)), "m.pml:3:3 \"z\"");
    // A range over several tokens of one file spans them all.
    let (s, _) = find(text, "int", 0);
    let (_, e) = find(text, "=", 0);
    assert_eq!(loc((s, e)), "m.pml:2:1 \"int x =\"");
    let exps = out.map.expansions(find(text, "*", 0).0);
    let shown: Vec<String> = exps
        .iter()
        .map(|(n, s)| format!("{n} {}", sources.location(*s)))
        .collect();
    assert_eq!(shown, ["SQ inc.h:2:9"]);
    assert!(out.map.expansions(find(text, "int", 0).0).is_empty());
    assert_eq!(
        sources.location(out.map.span(text.len(), text.len())),
        "m.pml:3:4"
    );
}

#[test]
fn nested_expansions_are_reported_innermost_first() {
    let src = "#define A B(1)\n#define B(x) C + x\n#define C c\nv = A;\n";
    let (out, d, sources) = run_opts(&[("m.pml", src)], &PpOptions::default());
    assert!(d.is_empty());
    let at = find(&out.text, "c", 0).0;
    let exps = out.map.expansions(at);
    let shown: Vec<String> = exps
        .iter()
        .map(|(n, s)| format!("{n} {}", sources.location(*s)))
        .collect();
    assert_eq!(shown, ["C m.pml:3:9", "B m.pml:2:9", "A m.pml:1:9"]);
    assert_eq!(sources.location(out.map.span(at, at + 1)), "m.pml:4:5");
    let one = find(&out.text, "1", 0).0;
    assert_eq!(out.map.span(one, one + 1), out.map.span(at, at + 1));
}

#[test]
fn macro_bombs_stop() {
    let mut src = String::from("#define a0 x x\n");
    for i in 1..40 {
        src.push_str(&format!("#define a{i} a{} a{}\n", i - 1, i - 1));
    }
    src.push_str("a39\n");
    let limits = Limits {
        max_expansion_tokens: 100_000,
        ..Limits::default()
    };
    let (_, d, _) = run_limited(&[("m.pml", &src)], &PpOptions::default(), limits);
    assert_eq!(
        d,
        ["m.pml:41:1: error: macro expansion too large (more than 100000 tokens)"]
    );
    let nested = format!("#define f(x) x x\n{}1{}\n", "f(".repeat(40), ")".repeat(40));
    let (_, d, _) = run_limited(&[("m.pml", &nested)], &PpOptions::default(), limits);
    assert_eq!(d.len(), 1);
    assert!(d[0].contains("macro expansion too large"), "{d:?}");
    let deep = format!(
        "#define f(x) x\n{}1{}\n",
        "f(".repeat(5000),
        ")".repeat(5000)
    );
    let d = diags(&deep);
    assert_eq!(
        d,
        ["m.pml:2:403: error: macro invocations nested too deeply"]
    );
}

#[test]
fn output_and_include_limits() {
    let limits = Limits {
        max_output: 1000,
        ..Limits::default()
    };
    let big = "x ".repeat(2000);
    let (out, d, _) = run_limited(&[("m.pml", &big)], &PpOptions::default(), limits);
    assert!(out.text.len() <= 1000);
    assert_eq!(d.len(), 1);
    assert!(
        d[0].ends_with("error: preprocessed output too large"),
        "{d:?}"
    );
    // A chain of files each including the next twice: 2^20 inclusions, none deep.
    let mut files = vec![("m.pml".to_string(), "#include \"h0\"\n".to_string())];
    for i in 0..20 {
        let text = format!("#include \"h{0}\"\n#include \"h{0}\"\n", i + 1);
        files.push((format!("h{i}"), text));
    }
    files.push(("h20".into(), "x\n".into()));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let (_, d, sources) = run_opts(&refs, &PpOptions::default());
    assert_eq!(d.len(), 1);
    assert!(
        d[0].ends_with("error: too many #include directives"),
        "{d:?}"
    );
    assert_eq!(sources.files.len(), 22);
}

/// Realistic Promela with macros, the seed for mutations.
const SEED: &str = "#define N 3\n#define inc(x) x = x + 1\n#define MAX(a,b) ((a) > (b) -> (a) : (b))\n\
#define str(s) #s\n#define cat(a, ...) a ## __VA_ARGS__\n#if N > 2 && defined(inc)\nmtype = { ack, nak };\n\
#elif 0\n'oops\n#else\n#error no\n#endif\n/* comment\n over lines */ chan q[N] = [2] of { byte };\n\
active proctype P() {\n  byte i; // note\n  do\n  :: i < N -> inc(i)\n  :: else -> break\n  od;\n\
  printf(\"max %d\\n\", MAX(i, N)); cat(x, 1) str(a \\\n b)\n}\n";

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let provider = MemoryProvider::new().with("m.pml", text);
        let mut files = SourceFiles::default();
        let (out, _) = preprocess(Path::new("m.pml"), &provider, &PpOptions::default(), &mut files);
        prop_assert!(out.map.span(0, out.text.len()).file.0 < files.files.len() as u32);
    }

    #[test]
    fn mutated_models_never_panic(
        edits in proptest::collection::vec((0usize..2000, 0usize..3, 0usize..10), 0..12)
    ) {
        const CHARS: &[char] = &['#', '(', ')', '\\', '\n', '"', '\'', '/', '*', ','];
        let mut text: Vec<char> = SEED.chars().collect();
        for (pos, kind, c) in edits {
            let at = pos % (text.len() + 1);
            match kind {
                0 if at < text.len() => { text.remove(at); }
                1 if at < text.len() => { let ch = text[at]; text.insert(at, ch); }
                _ => text.insert(at, CHARS[c]),
            }
        }
        let text: String = text.into_iter().collect();
        let provider = MemoryProvider::new().with("m.pml", text.clone()).with("inc.h", text);
        let mut files = SourceFiles::default();
        let opts = PpOptions { defines: vec!["D=1".into()], include_dirs: Vec::new() };
        let (out, _) = preprocess(Path::new("m.pml"), &provider, &opts, &mut files);
        for off in (0..out.text.len()).step_by(7) {
            let span = out.map.span(off, off + 1);
            let file = files.get(span.file);
            prop_assert!(file.is_some_and(|f| f.text.is_char_boundary(span.start as usize)
                && f.text.is_char_boundary(span.end as usize)));
            let _ = out.map.expansions(off);
        }
    }
}

/// Where gcc -E writes line markers (checked against gcc 12 by hand): on entering and
/// leaving a file, and where 8 or more lines would be left blank after ending a line.
#[test]
fn line_markers_where_gcc_writes_them() {
    let marked_lines = |files: &[(&str, &str)]| -> Vec<String> {
        let (out, diags, sources) = run_opts(files, &PpOptions::default());
        assert!(diags.is_empty(), "{diags:?}");
        out.markers
            .iter()
            .filter_map(|&m| {
                // the first token after the marker
                let rest = &out.text[m as usize..];
                let skip = rest.len() - rest.trim_start().len();
                let at = m as usize + skip;
                (at < out.text.len()).then(|| {
                    let sp = out.map.span(at, at + 1);
                    format!("{}:{}", sources.name(sp.file), sources.line(sp))
                })
            })
            .collect()
    };
    let gap = |blank: usize| format!("a\n{}b\n", "\n".repeat(blank));
    // 7 blank lines are written out; 8 are skipped with a marker.
    assert_eq!(marked_lines(&[("m.pml", &gap(7))]), ["m.pml:1"]);
    assert_eq!(marked_lines(&[("m.pml", &gap(8))]), ["m.pml:1", "m.pml:10"]);
    // Comments and directives count as blank lines.
    let src = "a\n/*\n\n\n\n*/\n#define X 1\n#define Y 2\n#if 0\nno\n#endif\nb\n";
    assert_eq!(marked_lines(&[("m.pml", src)]), ["m.pml:1", "m.pml:12"]);
    // Entering and leaving an included file.
    let files = [("m.pml", "a\n#include \"i.h\"\nb\n"), ("i.h", "c\n")];
    assert_eq!(marked_lines(&files), ["m.pml:1", "i.h:1", "m.pml:3"]);
}
