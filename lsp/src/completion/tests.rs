use std::collections::BTreeSet;

use lsp_types::CompletionItemKind;
use squillion_codegen::resolve::vocabulary as words;

use super::{complete, FACTS};
use crate::symbols::Symbols;
use crate::text::Text;

const SCHEMA: &str = "value Addr { city: string }\n\
    entity Author { name: string home: Addr }\n\
    entity Book { title: string at: date n: int32 }\n\
    relation Author.books: many <-> Book.author: one\n";

/// The labels offered where `|` is in `probe` (appended to the schema above).
fn labels(probe: &str) -> Vec<(String, CompletionItemKind)> {
    let symbols = Symbols::new(&squillion_grammar::parse(SCHEMA).unwrap(), None);
    let full = format!("{SCHEMA}{probe}");
    let at = full.find('|').unwrap();
    let text = Text::new(full.replacen('|', "", 1));
    complete(&symbols, &text, at)
        .into_iter()
        .map(|i| (i.label, i.kind.unwrap()))
        .collect()
}

fn set(probe: &str) -> BTreeSet<String> {
    labels(probe).into_iter().map(|(l, _)| l).collect()
}

fn of(words: &[&str]) -> BTreeSet<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

#[test]
fn attributes_after_at() {
    let fields: Vec<&str> = words::field_attributes().iter().map(|(n, _)| *n).collect();
    let entities: Vec<&str> = words::entity_attributes().iter().map(|(n, _)| *n).collect();
    assert_eq!(set("entity E { x: int32 @|"), of(&fields));
    assert_eq!(set("entity E { x: int32 @ind|"), of(&fields));
    assert_eq!(set("value V { x: int32 @|"), of(&fields));
    assert_eq!(set("entity E @|"), of(&entities));
    assert_eq!(set("entity E @collection(\"e\") @|"), of(&entities));
}

#[test]
fn types_cardinalities_and_units() {
    let mut types = words::bson_types();
    types.extend(["Addr", "map", "counters", "one_of"]);
    assert_eq!(set("entity E { x: |"), of(&types));
    assert_eq!(set("entity E { x: int32\n  y: [|"), of(&types));
    assert_eq!(set("entity E { y: [[int32; 5]; 3]\n  z: |"), of(&types));
    assert_eq!(set("entity E { x: map<|"), of(&types));
    assert_eq!(
        set("entity E { x: counters(|"),
        of(&words::counter_periods())
    );
    assert_eq!(set("relation Author.x: |"), of(&words::cardinalities()));
    assert_eq!(
        set("relation Author.x: many <-> Book.y: |"),
        of(&words::cardinalities())
    );
    assert_eq!(
        set("relation Author.x: many(|"),
        of(words::cardinality_arguments())
    );
    assert_eq!(
        set("entity E { x: binary @large(20|"),
        of(&words::size_units())
    );
    assert_eq!(
        set("entity E { x: binary @large(20K|"),
        of(&words::size_units())
    );
    assert_eq!(
        set("entity E { x: date @expires(30|"),
        of(&words::duration_units())
    );
    assert_eq!(
        set("entity E { x: date @updates(5/|"),
        of(&words::rate_units())
    );
    assert_eq!(
        set("query q on Book { rate 100/|"),
        of(&words::rate_units())
    );
    assert_eq!(
        set("settings { doc_warn_size = 4|"),
        of(&words::size_units())
    );
}

#[test]
fn names_where_facts_and_queries_name_them() {
    let rel = "relation Author.x: many <-> Book.y: one {\n  ";
    assert_eq!(set(&format!("{rel}standalone |")), of(&["Author", "Book"]));
    assert_eq!(
        set(&format!("{rel}navigate |")),
        of(&["Author", "Book", "both"])
    );
    assert_eq!(set(&format!("{rel}force |")), of(&words::layouts()));
    let mut growth = words::growth_kinds().to_vec();
    growth.push("rate");
    assert_eq!(set(&format!("{rel}growth |")), of(&growth));
    assert_eq!(
        set(&format!("{rel}growth unbounded, |")),
        of(words::growth_kinds())
    );
    assert_eq!(
        set(&format!("{rel}summary count, |")),
        of(&words::summary_functions())
    );
    let mut facts_or_per = FACTS.to_vec();
    facts_or_per.push("per");
    assert_eq!(set(&format!("{rel}summary count |")), of(&facts_or_per));
    assert_eq!(
        set(&format!("{rel}summary count, max(n) |")),
        of(&facts_or_per)
    );
    assert_eq!(set(&format!("{rel}summary count per |")), of(&["bucket"]));
    assert_eq!(set(&format!("{rel}page 5 by at |")), of(FACTS));
    assert_eq!(
        set(&format!("{rel}summary count, total(|")),
        of(&["title", "at", "n", "author", "name", "home", "books"])
    );
    assert_eq!(
        set(&format!("{rel}latest 5 by at keep title, |")),
        set(&format!("{rel}latest 5 by |"))
    );
    assert!(set(&format!("{rel}latest 5 by |")).contains("at"));
    assert_eq!(
        set(&format!("{rel}show Author.|")),
        of(&["name", "home", "books"])
    );
    assert_eq!(
        set("query q on Book { where |"),
        of(&["title", "at", "n", "author"])
    );
    assert_eq!(
        set("query q on Book { where author.|"),
        of(&["name", "home", "books"])
    );
    assert_eq!(set("query q on Book { where author.home.|"), of(&["city"]));
    assert_eq!(
        set("query q on Book { sort title, |"),
        of(&["title", "at", "n", "author"])
    );
    assert_eq!(set("query q on |"), of(&["Author", "Book"]));
    assert_eq!(set("relation |"), of(&["Author", "Book"]));
    assert_eq!(set("relation Author.x: few <-> |"), of(&["Author", "Book"]));
    // A relation end names a new field.
    assert_eq!(set("relation Author.|"), of(&[]));
    let settings: Vec<&str> = words::settings().iter().map(|(n, _)| *n).collect();
    assert_eq!(set("settings {\n  |"), of(&settings));
}

#[test]
fn every_keyword_of_the_grammar_is_offered_somewhere_and_nothing_else_is_called_one() {
    let probes = [
        "|",
        "entity E {\n  |",
        "entity E { x: |",
        "relation Author.x: many <-> Book.y: one {\n  |",
        "query q on Book {\n  |",
        "query q |",
        "relation Author.x: many <-> Book.y: one {\n  summary count |",
        "relation Author.x: many <-> Book.y: one {\n  summary count per |",
    ];
    let mut offered = BTreeSet::new();
    for probe in probes {
        for (label, kind) in labels(probe) {
            if kind == CompletionItemKind::KEYWORD {
                assert!(
                    squillion_grammar::keywords().contains(&label.as_str()),
                    "`{label}` is offered as a keyword but the grammar has no such keyword"
                );
                offered.insert(label);
            }
        }
    }
    let grammar = of(&squillion_grammar::keywords());
    let missing: Vec<&String> = grammar.difference(&offered).collect();
    assert!(missing.is_empty(), "keywords never offered: {missing:?}");
}

#[test]
fn the_word_being_typed_is_replaced() {
    let symbols = Symbols::new(&squillion_grammar::parse(SCHEMA).unwrap(), None);
    let text = Text::new("entity E { x: binary @large(20K".to_owned());
    let items = complete(&symbols, &text, text.as_str().len());
    let kb = items.iter().find(|i| i.label == "KB").unwrap();
    let Some(lsp_types::CompletionTextEdit::Edit(edit)) = &kb.text_edit else {
        panic!("{kb:?}")
    };
    assert_eq!(
        edit.range.start.character as usize,
        "entity E { x: binary @large(20".len()
    );
    assert_eq!(edit.new_text, "KB");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 64, failure_persistence: None, ..Default::default() })]

    /// Anywhere in any example, even cut short or in the middle of a character, completion
    /// answers, and every edit replaces text that ends at the cursor.
    #[test]
    fn completion_answers_anywhere(pick in proptest::prelude::any::<proptest::sample::Index>(), at in proptest::prelude::any::<proptest::sample::Index>(), cut in proptest::prelude::any::<bool>()) {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
        let mut files: Vec<_> = std::fs::read_dir(root).unwrap().filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "sqn")).collect();
        files.sort();
        let full = std::fs::read_to_string(&files[pick.index(files.len())]).unwrap();
        let symbols = Symbols::new(&squillion_grammar::parse(&full).unwrap(), None);
        let offset = at.index(full.len() + 1);
        let mut text = full.clone();
        if cut {
            let mut end = offset;
            while !text.is_char_boundary(end) { end -= 1; }
            text.truncate(end);
        }
        let text = Text::new(format!("{text}é😀"));
        let cursor = text.position(offset.min(text.as_str().len()));
        for item in complete(&symbols, &text, offset) {
            let Some(lsp_types::CompletionTextEdit::Edit(edit)) = item.text_edit else { panic!() };
            proptest::prop_assert!(edit.range.start <= edit.range.end);
            proptest::prop_assert_eq!(edit.range.end, cursor);
        }
    }
}
