//! Counts as people coming from the docs write them: `many(5,000)` (a thousands separator, which
//! the grammar reads as a bound and a second argument `000`), `many(5k)`, `few(up to 5)`. Each
//! gets one coded diagnostic that names the number meant, never a message about a count of 0 or
//! a help about fields.

use proptest::prelude::*;
use squillion_grammar::{Diagnostic, SourceFile};

fn diagnostics(card: &str) -> Vec<Diagnostic> {
    let src = format!(
        "entity User {{ name: string }}\nentity Address {{ street: string }}\n\
         relation User.addresses: {card} <-> Address.user: one\n"
    );
    let source = SourceFile::new("gen.sqn", src);
    squillion_codegen::load(&source).err().unwrap_or_default()
}

/// `1234567` with `sep` between groups of three digits.
fn grouped(n: u64, sep: char) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// `many(5,000)` is one E0404 whose fix writes the number with `_`, which then checks as
    /// that bound; with a typical count after it, the typical count is kept.
    #[test]
    fn a_comma_between_thousands_is_one_clear_error(
        n in 1_000u64..50_000_000,
        class in prop_oneof![Just("many"), Just("squillions")],
        typical in any::<bool>(),
    ) {
        let written = grouped(n, ',');
        let tail = if typical { ", typical 5" } else { "" };
        let diags = diagnostics(&format!("{class}({written}{tail})"));
        prop_assert_eq!(diags.len(), 1, "{:#?}", diags);
        let d = &diags[0];
        prop_assert_eq!(d.code, "E0404");
        prop_assert!(d.message.contains("not thousands"), "{}", d.message);
        let help = d.help.clone().unwrap_or_default();
        prop_assert!(help.contains(&format!("`{n}`")), "{}", help);
        let fix = d.fix.as_ref().map(|f| f.replacement.clone()).unwrap_or_default();
        prop_assert_eq!(&fix, &grouped(n, '_'));
        // The fix applied checks, with the bound it spells.
        let fixed = format!("{class}({fix}{tail})");
        prop_assert!(diagnostics(&fixed).is_empty(), "{}", fixed);
    }

    /// `many(5k)`: `k` is not a unit; the help gives the count meant.
    #[test]
    fn a_k_after_a_count_names_the_thousands(n in 1u64..5000) {
        let diags = diagnostics(&format!("squillions({n}k)"));
        prop_assert_eq!(diags.len(), 1, "{:#?}", diags);
        let help = diags[0].help.clone().unwrap_or_default();
        prop_assert!(help.contains(&format!("`{}`", n * 1000)), "{}", help);
    }
}

/// Spaces after the comma are two arguments, as before: a count of 0 is refused as such.
#[test]
fn a_comma_and_a_space_are_two_arguments() {
    let diags = diagnostics("few(5, 000)");
    assert!(
        diags.iter().all(|d| !d.message.contains("not thousands")),
        "{diags:#?}"
    );
    assert!(!diags.is_empty());
}

/// `few(up to 5)`: the help says what a cardinality's arguments are, not how a field is written.
#[test]
fn words_inside_a_cardinality_get_its_help() {
    for card in ["few(up to 5)", "many(at most 300)", "few(less than 10)"] {
        let diags = diagnostics(card);
        assert_eq!(diags.len(), 1, "{card}: {diags:#?}");
        let help = diags[0].help.clone().unwrap_or_default();
        assert!(help.contains("cardinality's arguments"), "{card}: {help}");
        assert!(!help.contains("field"), "{card}: {help}");
    }
}

/// `latest 3 by at descending`: the parser reads `desc` and stops at `ending`; the help says
/// how a direction is written.
#[test]
fn a_direction_written_in_full_gets_its_short_form() {
    for (fact, short) in [
        ("latest 3 by street descending", "desc"),
        ("page 10 by street ascending", "asc"),
    ] {
        let src = format!(
            "entity User {{ name: string }}\nentity Address {{ street: string }}\n\
             relation User.addresses: few(5) <-> Address.user: one {{ {fact} }}\n"
        );
        let source = SourceFile::new("gen.sqn", src);
        let diags = squillion_codegen::load(&source).err().unwrap_or_default();
        assert_eq!(diags.len(), 1, "{fact}: {diags:#?}");
        let help = diags[0].help.clone().unwrap_or_default();
        assert!(help.contains(&format!("`{short}`")), "{fact}: {help}");
    }
}
