//! Differential test against the system gcc (`gcc -std=gnu99 -E -P -x c`), skipped when gcc
//! is not on PATH: both outputs are re-lexed into pp-tokens and compared token by token,
//! where whitespace falls is compared too (gcc 12 only), and both must agree on failure.

use std::path::Path;
use std::process::Command;

use super::super::source::{DiskProvider, FileId, SourceFiles};
use super::lexer::lex_all;
use super::{preprocess, PpOptions};

/// Headers the cases include, relative to the temporary folder.
const HEADERS: &[(&str, &str)] = &[
    (
        "a.h",
        "in_a __FILE__ __INCLUDE_LEVEL__\n#include \"sub/b.h\"\n",
    ),
    (
        "sub/b.h",
        "in_b __FILE__ __INCLUDE_LEVEL__\n#include \"c.h\"\n",
    ),
    ("sub/c.h", "in_c __FILE__ __LINE__\n"),
    (
        "inc/sys.h",
        "#ifndef SYS_H\n#define SYS_H\nsys __FILE__\n#endif\n",
    ),
    ("once.h", "#pragma once\nonce_body\n"),
    ("guard.h", "#ifndef GUARD\n#define GUARD\nguarded\n#endif\n"),
    ("defs.h", "#define N 3\n#define SQR(x) ((x)*(x))\n"),
];

/// (name, model) pairs covering every feature, several taken from the C99 standard.
const CASES: &[(&str, &str)] = &[
    ("object", "#define N 4\nbyte unix; int a[N]; linux __unix__ __linux__ __x86_64__\n#define E\nx E y E\n"),
    ("function", "#define F(x, y) x + y __LINE__\nF(1,\n  2\n  ) F((a,b), [c,d]) F(,)\nF\n(3,4) F + 1\n"),
    ("c99_ex3", "#define x 3\n#define f(a) f(x * (a))\n#undef x\n#define x 2\n#define g f\n#define z z[0]\n#define h g(~\n#define m(a) a(w)\n#define w 0,1\n#define t(a) a\n#define p() int\n#define q(x) x\n#define r(x,y) x ## y\n#define str(x) # x\nf(y+1) + f(f(z)) % t(t(g)(0) + t)(1);\ng(x+(3,4)-w) | h 5) & m\n(f)^m(m);\np() i[q()] = { q(1), r(2,3), r(4,), r(,5), r(,) };\nchar c[2][6] = { str(hello), str() };\n"),
    ("c99_ex4", "#define str(s) # s\n#define xstr(s) str(s)\n#define debug(s, t) printf(\"x\" # s \"= %d, x\" # t \"= %s\", \\\n x ## s, x ## t)\n#define INCFILE(n) vers ## n\n#define glue(a, b) a ## b\n#define xglue(a, b) glue(a, b)\n#define HIGHLOW \"hello\"\n#define LOW LOW \", world\"\ndebug(1, 2);\nfputs(str(strncmp(\"abc\\0d\", \"abc\", '\\4') // this goes away\n == 0) str(: @\\n), s);\nxstr(INCFILE(2).h)\nglue(HIGH, LOW);\nxglue(HIGH, LOW)\n"),
    ("c99_ex5", "#define t(x,y,z) x ## y ## z\nint j[] = { t(1,2,3), t(,4,5), t(6,,7), t(8,9,),\n t(10,,), t(,11,), t(,,12), t(,,) };\n"),
    ("c99_ex7", "#define debug(...) fprintf(stderr, __VA_ARGS__)\n#define showlist(...) puts(#__VA_ARGS__)\n#define report(test, ...) ((test)?puts(#test):\\\n printf(__VA_ARGS__))\ndebug(\"Flag\");\ndebug(\"X = %d\\n\", x);\nshowlist(The first, second, and third items.);\nreport(x>y, \"x is %d but y is %d\", x, y);\n"),
    ("hash_hash", "#define hash_hash # ## #\n#define mkstr(a) # a\n#define in_between(a) mkstr(a)\n#define join(c, d) in_between(c hash_hash d)\nchar p[] = join(x, y);\n"),
    ("gnu_comma", "#define e(fmt, ...) f(fmt, ## __VA_ARGS__)\ne(x) e(x,) e(x,y) e(x, e(1))\n#define e2(...) g(a, ## __VA_ARGS__)\ne2() e2(1)\n#define e3(x...) h(a, ## x)\ne3() e3(1,2)\n#define e4(a, args...) k(a, args)\ne4(1) e4(1,2,3)\n"),
    ("conditionals", "#define A 2\n#if A * 3 == 6 && defined(A) && !defined B\nok1\n#elif 1/0\nbad\n#else\nbad don't\n#endif\n#if 0\n#if 1\nbad ' \"\n#else\nbad\n#endif\n#elif A > 1 ? 1 : 0\nok2\n#endif\n#ifdef A\nok3\n#endif\n#ifndef A\nbad\n#else\nok4\n#endif\n"),
    ("if_arith", "#if -1 < 0u\nbad\n#endif\n#if (2,3) == 3 && 0x10 == 16 && 010 == 8 && 0b11 == 3\nok1\n#endif\n#if 'a' == 97 && '\\377' < 0 && '\\n' == 10 && L'x' == 120\nok2\n#endif\n#if 1 ? -1 : 0u\nok3\n#endif\n#if (1 << 62) > 0 && -1 >> 70 == -1 && 7 % 3 == 1 && -7 / 2 == -3\nok4\n#endif\n#if ~0u == 0xffffffffffffffff && 5ULL == 5 && 10L - 3l == 7\nok5\n#endif\n#if undefined_name || 0 && (1/0)\nbad\n#endif\n#if __STDC_VERSION__ >= 199901L && __GNUC__ == 12 && __SIZEOF_LONG__ == 8\nok6\n#endif\n"),
    ("avoid_paste", "#define O id(+)+\n#define Q -id(-)\n#define id(x) x\n#define P +\n#define E\nid(x)1 id(+)+ id(-)> P+ id(1)id(a) id(a)\"s\" id(.)1 id(1)+ -E- id(/)id(/) id(<)<= id(.)id(.). x/**/y O Q x..y\n"),
    ("stringize", "#define str(x) #x\n#define xstr(x) str(x)\nstr( a  +  \"b\\n\" 'c'   ) str() str(  /* c */ a /* d */ b /**/) str('\"') str(\"\\\\\")\nstr(\na\nb) xstr(__LINE__) xstr(str(x))\n"),
    ("paint", "#define a a b\n#define b a\na b\n#define h(x) x h\nh(h)(2)\n#define f(x) x f\nf(1)(2)\n#define ff(a) a*gg\n#define gg(a) ff(a)\nff(2)(9)\n"),
    ("directive_before_paren", "#define f(x) [x]\nf\n#define Y 1\n(Y)\nf\n(2)\n#define g(a) a\ng(\n#define Z 3\nZ)\n"),
    ("crlf", "a\r\nb \\\r\nc\r\n#define X 1\r\nX\r\n#if X\r\nok\r\n#endif\r\n"),
    ("promela_spacing", "#define R(a,b) a..b\n#define OPT ::\n#define C :\n#define BANG !\n#define Q ?\nfor (i : R(lo,hi)) { skip }\nfor (i : 0..N) x..y\nif\nOPT x -> skip C: y\n:: else\nfi;\nq!!x; q??y; q?<z>; BANG!a; Q?b; c!BANG\n"),
    ("paint2", "#define foo() bar\nfoo\n()\n#define L (\n#define q(x) [x]\nq L 1)\n#define g1 q(\ng1 1)\n#define obj(x) x obj\nobj(obj(1))(3)\n"),
    ("includes", "#include \"a.h\"\n#include \"guard.h\"\n#include \"guard.h\"\n#include \"once.h\"\n#include \"once.h\"\n#include <sys.h>\n#define HDR <sys.h>\n#include HDR\n#define Q \"defs.h\"\n#include Q\nSQR(N) __INCLUDE_LEVEL__\n"),
    ("line", "a __LINE__\n#line 100\nb __LINE__\n#line 200 \"foo.c\"\nc __LINE__ __FILE__\n# 7 \"bar.c\"\nd __LINE__ __FILE__\n#define L __LINE__\n#define G(x) x L __LINE__\nG(\n__LINE__\n)\n"),
    ("builtins", "__COUNTER__ __COUNTER__ __STDC__ __STDC_HOSTED__ __GNUC_MINOR__ __CHAR_BIT__ __SIZEOF_INT__ __SIZEOF_POINTER__ __INT_MAX__ __LONG_MAX__ __SHRT_MAX__ __SCHAR_MAX__ __LP64__ _LP64 __ELF__ __amd64__ __gnu_linux__ __SIZEOF_SHORT__\n"),
    ("comments", "a /* one\ntwo */ b // line\nc/**/d\n#define X 1 /* multi\nline */ + 2\nX\ne \\\nf \"st\\\nring\" g\\\nh\n/\\\n* spliced *\\\n/ i\n"),
    ("directive_in_args", "#define f(x) <x>\nf(\n#ifdef f\nyes\n#else\nno\n#endif\n)\n"),
    ("promela", "#define N 3\n#define inc(x) x = x + 1\n#define MAX(a,b) ((a) > (b) -> (a) : (b))\nmtype = { ack, nak };\nchan q[N] = [2] of { byte };\nactive proctype P() {\n  byte i;\n  do\n  :: i < N -> inc(i)\n  :: else -> break\n  od;\n  printf(\"max %d\\n\", MAX(i, N))\n}\n"),
    ("nesting", "#define f(x) (x+1)\nf(f(f(f(1)))) f(f(f)(2))\n#define g f\ng(3) g\n#define LPAREN (\n#define RPAREN )\n#define F(x, y) x + y\n#define ELLIP_FUNC(...) __VA_ARGS__\nELLIP_FUNC(F, LPAREN, 'a', 'b', RPAREN);\n"),
    ("digraphs", "%:define DG 5\nDG <: :> <% %> %:%: a\n#define cat(a,b) a %:%: b\ncat(x,y)\n"),
    ("arity_errors", "#define K(a,b) a b\nK(1) K(1,2,3) K(1,2)\n#define Z() z\nZ(1) Z()\n#define H(a,b,...) a b __VA_ARGS__\nH(1) H(1,2) H(1,2,3,4)\n"),
    ("redefine", "#define X 1\n#define X 1\n#define X  1\n#undef X\n#define X 2\nX\n#undef X\nX\n#define unix 7\nunix\n"),
    ("apostrophes", "don't stop 'x' \"str\" '\\''\n#if 0\nit's fine\n#endif\n"),
    ("pastes", "#define c3(a,b,c) a##b##c\nc3(1,e,+) c3(x,1,y) c3(<,<,=) c3(-,>,) c3(.,.,.) c3(L,\"s\",)\n#define cat(a,b) a ## b\n#define xcat(a,b) cat(a,b)\nxcat(xcat(1,2),3) cat(cat,(1,2))\n"),
    ("empty_and_space", "#define f(x) [x]\n#define g(x, y) x y\nf( ) f( a ) g( , b) g(a, ) f(f()) g(g(1,2),g(3,4))\n"),
    ("skipped_garbage", "#if 0\n#error not reached\n#foo bar\n#include \"nonexistent.h\"\n'unterminated\n#else\nshown\n#endif\n#if 1\n#elif garbage (((\n#endif\n"),
    ("null_and_hash", "#\n# /* c */\na # b ## c\n#define EMPTY\nEMPTY # define X 1\nX\n"),
    ("variadic_stringize", "#define s(...) #__VA_ARGS__\ns(a,b , c) s() s( a , b )\n#define v(x, ...) x(__VA_ARGS__)\nv(f) v(f, 1) v(f, 1, 2)\n"),
];

fn tokens(text: &str) -> Vec<String> {
    let toks = lex_all(FileId(0), text, &mut Vec::new());
    toks.iter().map(|t| t.text.to_string()).collect()
}

/// The text with every whitespace run (newlines included) as one space.
fn spaced(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create folder");
    }
    std::fs::write(path, text).expect("write file");
}

#[test]
fn matches_gcc() {
    if Command::new("gcc").arg("--version").output().is_err() {
        return;
    }
    // Where spaces go matters to spin's Promela lexer (`::`, `..`), so with the gcc we
    // emulate the spacing must match too (other versions may space differently).
    let version = Command::new("gcc")
        .arg("-dumpversion")
        .output()
        .expect("gcc version");
    let same_gcc = String::from_utf8_lossy(&version.stdout).starts_with("12");
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    for (rel, text) in HEADERS {
        write(dir, rel, text);
    }
    let opts = PpOptions {
        defines: Vec::new(),
        include_dirs: vec![dir.join("inc")],
    };
    let mut failures = Vec::new();
    for (name, text) in CASES {
        let main = dir.join(format!("{name}.c"));
        write(dir, &format!("{name}.c"), text);
        let gcc = Command::new("gcc")
            .args(["-std=gnu99", "-E", "-P", "-x", "c", "-I"])
            .arg(dir.join("inc"))
            .arg(&main)
            .output()
            .expect("run gcc");
        let gcc_text = String::from_utf8_lossy(&gcc.stdout);
        let mut files = SourceFiles::default();
        let (out, diags) = preprocess(&main, &DiskProvider, &opts, &mut files);
        let ours_failed = diags.iter().any(|d| d.is_error());
        let spacing_differs = same_gcc && spaced(&gcc_text) != spaced(&out.text);
        if tokens(&gcc_text) != tokens(&out.text)
            || spacing_differs
            || ours_failed == gcc.status.success()
        {
            let shown: Vec<String> = diags.iter().map(|d| d.short(&files)).collect();
            failures.push(format!(
                "case {name}:\n--- gcc ({}):\n{gcc_text}\n{}\n--- ours:\n{}\n{}\n",
                gcc.status,
                String::from_utf8_lossy(&gcc.stderr),
                out.text,
                shown.join("\n")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
