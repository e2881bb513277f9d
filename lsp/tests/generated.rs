//! The server's answers on generated schemas (`squillion-schemagen`: every layout family, every
//! field feature), in process: every relation gets its decision on hover and its inlay hint,
//! every declared field its stored place, every name a declaration, and nothing panics anywhere in
//! the text, nor in the text cut short at any point (as it is while being typed).

use lsp_types::{Position, Range};
use proptest::prelude::*;
use squillion_lsp::analysis::Analysis;
use squillion_lsp::symbols::Kind;
use squillion_lsp::text::Text;
use squillion_lsp::{completion, hover, inlay};

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn answers_on_generated_schemas(
        schema in squillion_schemagen::schema(Default::default()),
        cut in any::<prop::sample::Index>(),
    ) {
        let source = squillion_schemagen::render(&schema);
        let analysis = Analysis::new("gen.sqn", &source);
        let plan = analysis.plan.as_ref().expect("generated schemas are valid");
        let text = Text::new(source.clone());
        let symbols = &analysis.symbols;

        // One hint per relation, naming its layout; its hover shows the decision.
        let everything = Range::new(Position::new(0, 0), text.position(source.len()));
        let hints = inlay::hints(&analysis, &text, everything);
        prop_assert_eq!(hints.len(), plan.relationships.len());
        for (header, d) in symbols.relations.iter().zip(&plan.relationships) {
            prop_assert_eq!(&header.id, &d.id);
            let shown = hover::hover(&analysis, header.span.start).unwrap_or_default();
            let decision = format!("**decision: {}", d.strategy.as_str());
            prop_assert!(shown.contains(&decision), "{}\n{}", d.id, shown);
        }
        // Every declared field of an entity is stored somewhere, or says it is not.
        for s in symbols.symbols.iter().filter(|s| s.kind == Kind::Field && s.relation.is_none()) {
            let shown = hover::hover(&analysis, s.name_span.start).unwrap_or_default();
            prop_assert!(shown.contains(&format!(".{}**", s.name)), "{}", shown);
            prop_assert!(shown.contains("BSON") || shown.contains("Not stored"), "{}", shown);
        }
        // Every occurrence leads to a declaration whose name it is.
        for o in &symbols.occurrences {
            let declared = &symbols.symbols[o.symbol];
            prop_assert_eq!(&source[o.span.start..o.span.end], declared.name.as_str());
        }
        // Anywhere, in the whole text and in the text cut short: answers, never a panic.
        // Cut at a character boundary (an enum value may hold `à`).
        let mut end = cut.index(source.len() + 1);
        while !source.is_char_boundary(end) {
            end -= 1;
        }
        let short = source[..end].to_owned();
        let short_text = Text::new(short.clone());
        let short_analysis = Analysis::new("gen.sqn", &short);
        for offset in (0..=source.len()).step_by(5) {
            let _ = hover::hover(&analysis, offset);
            let _ = completion::complete(symbols, &text, offset);
            let _ = completion::complete(symbols, &short_text, offset.min(short.len()));
            let _ = hover::hover(&short_analysis, offset.min(short.len()));
        }
    }
}
