//! Unit tests of the translator's phases, and whole claims pinned from spin 6.5.2 (the
//! differential test in `tests/ltl.rs` compares over a thousand more).

use super::emit;
use super::lex::{balanced, Lexer, Token};
use super::terms::{Op, Terms};
use super::*;

fn tokens(src: &str) -> Result<Vec<Token>, LtlError> {
    let mut lex = Lexer::new(src.as_bytes());
    let mut out = Vec::new();
    loop {
        match lex.next_token()? {
            Token::End => return Ok(out),
            t => out.push(t),
        }
    }
}

fn pred(s: &str) -> Token {
    Token::Pred(s.into())
}

/// The parsed (and parse-time simplified) formula, printed as spin's `dump` prints it.
fn parsed(src: &str) -> Result<String, LtlError> {
    let mut t = Terms::new();
    let n = parse::parse(&mut t, src.as_bytes())?;
    let mut out = String::new();
    emit::formula(&t, Some(n), &mut out);
    Ok(out)
}

fn saw(r: Result<String, LtlError>) -> Option<String> {
    match r {
        Err(LtlError::Syntax { saw, .. }) => saw,
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

#[test]
fn lexer_reads_operators_in_every_spelling() {
    use Token::*;
    assert_eq!(
        tokens("[]p <> q U r V s").unwrap(),
        [
            Always,
            pred("p"),
            Eventually,
            pred("q"),
            Until,
            pred("r"),
            Release,
            pred("s")
        ]
    );
    assert_eq!(
        tokens(r"/\ \/ && || -> <-> ! not").unwrap(),
        [And, Or, And, Or, Implies, Equiv, Not, Not]
    );
    assert_eq!(
        tokens("always eventually until true false c_expr").unwrap(),
        [Always, Eventually, Until, True, False, CExpr]
    );
    // Without NXT, `next` is a name and `X` a stray character.
    assert_eq!(tokens("next X").unwrap(), [pred("next"), Char(b'X')]);
}

#[test]
fn lexer_takes_bracketed_text_without_temporal_operators_as_a_predicate() {
    use Token::*;
    assert_eq!(tokens("(x<3)").unwrap(), [pred("x<3")]);
    assert_eq!(tokens("(P[0]@done)").unwrap(), [pred("P[0]@done")]);
    assert_eq!(
        tokens("((x==1)&&(y!=2))").unwrap(),
        [pred("(x==1)&&(y!=2)")]
    );
    assert_eq!(tokens("(aUb)").unwrap(), [pred("aUb")]);
    assert_eq!(tokens("{x > 1}").unwrap(), [pred("x > 1")]);
    assert_eq!(tokens("{p").unwrap(), [pred("p")]);
    assert_eq!(
        tokens("(a U b)").unwrap(),
        [Char(b'('), pred("a"), Until, pred("b"), Char(b')')]
    );
    assert_eq!(
        tokens("(always_on && eventually)").unwrap(),
        [Char(b'('), pred("always_on"), And, Eventually, Char(b')')]
    );
}

#[test]
fn lexer_ends_at_a_non_ascii_byte_and_reports_bad_pairs() {
    assert_eq!(tokens("p é q").unwrap(), [pred("p")]);
    assert!(matches!(tokens("p <- q"), Err(LtlError::Syntax { .. })));
    assert!(matches!(tokens("p & q"), Err(LtlError::Syntax { .. })));
    assert!(matches!(tokens("}"), Err(LtlError::Syntax { .. })));
    let long = format!("({} > 0)", "a".repeat(600));
    assert!(matches!(tokens(&long), Err(LtlError::NameTooLong(_))));
}

#[test]
fn parentheses_are_counted_except_quoted_ones() {
    assert!(balanced(br#""(" && p"#));
    assert!(balanced(b"p )( q"));
    assert!(!balanced(b"p && (q"));
    assert_eq!(translate("p && (q"), Err(LtlError::Unbalanced));
}

#[test]
fn parser_precedence_and_associativity_are_spins() {
    // One level for && || -> <->, left to right; U and V bind tighter; unary tighter still.
    assert_eq!(parsed("p || q && r").unwrap(), "(((p) || (q)) && (r))");
    assert_eq!(parsed("p U q U r").unwrap(), "(((p) U (q)) U (r))");
    assert_eq!(parsed("p && q U r").unwrap(), "((p) && ((q) U (r)))");
    assert_eq!(parsed("!p U q").unwrap(), "(! ((p)) U (q))");
    assert_eq!(parsed("[] p V q").unwrap(), "((false V (p)) V (q))");
}

#[test]
fn parser_applies_spins_rewrites() {
    assert_eq!(parsed("[][]p").unwrap(), "(false V (p))");
    assert_eq!(parsed("<>(p U q)").unwrap(), "(true U (q))");
    assert_eq!(parsed("[] true").unwrap(), "true");
    assert_eq!(parsed("p U p").unwrap(), "(p)");
    assert_eq!(parsed("(p U q) U p").unwrap(), "((q) U (p))");
    assert_eq!(parsed("p V [] q").unwrap(), "(false V (q))");
    assert_eq!(parsed("p -> q").unwrap(), "(! ((p)) || (q))");
    assert_eq!(parsed("p -> p").unwrap(), "true");
    assert_eq!(
        parsed("(p U q) && (r U q)").unwrap(),
        "(((p) && (r)) U (q))"
    );
    assert_eq!(parsed("!(p U q)").unwrap(), "(! ((p)) V ! ((q)))");
    assert_eq!(
        parsed("!(p && <>q) U r").unwrap(),
        "((! ((p)) || (false V ! ((q)))) U (r))"
    );
    assert_eq!(parsed("!!p").unwrap(), "(p)");
}

#[test]
fn parser_stops_at_the_first_token_no_rule_continues() {
    assert_eq!(parsed("p q").unwrap(), "(p)");
    assert_eq!(parsed("(p) (q)").unwrap(), "(p)");
    assert!(parsed("p q r").is_err());
    assert_eq!(saw(parsed("X p")).as_deref(), Some("X"));
    assert_eq!(saw(translate("p W q")).as_deref(), Some("W"));
    assert_eq!(saw(parsed("p &&")).as_deref(), Some("end of formula"));
    assert_eq!(translate(""), Err(LtlError::Empty));
}

#[test]
fn canonical_order_can_nest_a_chain_as_spin_does() {
    // Inserting b after a, c, d compares "b" with the key "&dc" of the rest of the chain, and
    // spin puts the chain on the left of a new link.
    let mut t = Terms::new();
    let leaf = |t: &mut Terms, s: &str| t.predicate(s.into()).unwrap();
    let (a, b, c, d) = (
        leaf(&mut t, "a"),
        leaf(&mut t, "b"),
        leaf(&mut t, "c"),
        leaf(&mut t, "d"),
    );
    let ca = t.binary(Op::And, c, a).unwrap();
    let dca = t.binary(Op::And, d, ca).unwrap();
    let all = t.binary(Op::And, b, dca).unwrap();
    let n = t.rewrite(all).unwrap();
    let mut out = String::new();
    emit::formula(&t, Some(n), &mut out);
    assert_eq!(out, "((a) && (((c) && (d)) && (b)))");
}

#[test]
fn canonical_order_drops_duplicates_units_and_absorbed_operands() {
    let cases = [
        ("p && q && p", "((p) && (q))"),
        // A parenthesised boolean expression is one predicate: the inner operators need a
        // temporal operand to be operators.
        ("p && (p || [] q)", "(p)"),
        ("p || (p && [] q)", "(p)"),
        ("(q || []p) && ([]p || q)", "((false V (p)) || (q))"),
        ("q && p", "((p) && (q))"),
        ("!q || p", "(! ((q)) || (p))"),
    ];
    for (src, want) in cases {
        let mut t = Terms::new();
        let n = parse::parse(&mut t, src.as_bytes()).unwrap();
        let n = t.rewrite(n).unwrap();
        let mut out = String::new();
        emit::formula(&t, Some(n), &mut out);
        assert_eq!(out, want, "{src}");
    }
}

#[test]
fn claims_match_spin() {
    let cases = [
        (
            "[] p",
            "never  {    /* [] p */\naccept_init:\nT0_init:\n\tdo\n\t:: ((p)) -> goto T0_init\n\tod;\n}\n",
        ),
        (
            "p U q",
            "never  {    /* p U q */\nT0_init:\n\tdo\n\t:: atomic { ((q)) -> assert(!((q))) }\n\t\
             :: ((p)) -> goto T0_init\n\tod;\naccept_all:\n\tskip\n}\n",
        ),
        (
            "[]<>p && []<>q",
            "never  {    /* []<>p && []<>q */\nT0_init:\n\tdo\n\t:: ((p) && (q)) -> goto accept_S81\n\t\
             :: ((p)) -> goto T1_S81\n\t:: (1) -> goto T0_init\n\tod;\naccept_S81:\n\tdo\n\t\
             :: (1) -> goto T0_init\n\tod;\nT1_S81:\n\tdo\n\t:: ((q)) -> goto accept_S81\n\t\
             :: (1) -> goto T1_S81\n\tod;\n}\n",
        ),
        (
            "false",
            "never  {    /* false */\naccept_init:\nT0_init:\n\tdo\n\t\
             :: atomic { (false) -> assert(!(false)) }\n\tod;\naccept_all:\n\tskip\n}\n",
        ),
        (
            "c_expr {x>1}",
            "never  {    /* c_expr {x>1} */\naccept_init:\nT0_init:\n\tdo\n\t\
             :: atomic { (c_expr { (x>1) } ) -> assert(!(c_expr { (x>1) } )) }\n\tod;\n\
             accept_all:\n\tskip\n}\n",
        ),
    ];
    for (f, want) in cases {
        assert_eq!(translate(f).unwrap(), want, "{f}");
    }
}

#[test]
fn tabs_and_newlines_are_spaces_as_in_spin() {
    let claim = translate("p\t&&\nq").unwrap();
    assert!(claim.starts_with("never  {    /* p && q */\n"), "{claim}");
    assert_eq!(
        claim.replace("p && q", ""),
        translate("p && q").unwrap().replace("p && q", "")
    );
}

#[test]
fn model_claims_are_spins_nvr_file_entries() {
    // From _spin_nvr.tmp of `ltl p1 { [](x<3) }` (spin prints the body as `[] ((x<3))`).
    assert_eq!(
        never_claim_for_ltl("p1", "[] ((x<3))").unwrap(),
        "never p1 {    /* !([] ((x<3))) */\nT0_init:\n\tdo\n\t\
         :: atomic { (! (((x<3)))) -> assert(!(! (((x<3))))) }\n\t:: (1) -> goto T0_init\n\t\
         od;\naccept_all:\n\tskip\n}\n"
    );
    assert_eq!(
        never_claim_for_ltl("p2", "[] (<> ((x==3)))").unwrap(),
        "never p2 {    /* !([] (<> ((x==3)))) */\nT0_init:\n\tdo\n\t\
         :: (! (((x==3)))) -> goto accept_S4\n\t:: (1) -> goto T0_init\n\tod;\naccept_S4:\n\t\
         do\n\t:: (! (((x==3)))) -> goto accept_S4\n\tod;\n}\n"
    );
}

#[test]
fn deep_formulas_end_in_a_claim_or_an_error() {
    // Parentheses around an operator are parentheses (around none they start a predicate).
    let nested = |n: usize| format!("{}p{}", "<>(".repeat(n), ")".repeat(n));
    assert!(translate(&nested(3000)).is_ok());
    assert!(matches!(
        translate(&nested(20_000)),
        Err(LtlError::TooLarge(_))
    ));
    assert!(translate(&format!("{}p", "!".repeat(9000))).is_ok());
    assert!(translate(&format!("{}p", "[] ".repeat(5000))).is_ok());
    let chain: Vec<String> = (0..20).map(|i| format!("p{i}")).collect();
    assert!(translate(&chain.join(" && ")).is_ok());
    assert!(matches!(
        translate(&"p".repeat(70_000)),
        Err(LtlError::TooLarge(_))
    ));
}

mod random_input {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// Any text over the formula alphabet translates or is rejected, without a panic.
        #[test]
        fn never_panics(src in r#"[pqUVWX\[\]<>\-!&|/\\(){} "'a-z0-9_@.=é\t]{0,24}"#) {
            let _ = translate(&src);
        }
    }
}
