//! `docs/language.md` ends with the whole grammar: it must be the grammar the parser uses, and
//! every example in it must parse.

fn read(path: &str) -> String {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    std::fs::read_to_string(format!("{root}/{path}")).unwrap()
}

#[test]
fn the_language_reference_quotes_the_whole_grammar_exactly() {
    let doc = read("docs/language.md");
    let grammar = read("dsl-grammar/src/squillion.pest");
    let section = doc
        .split("## The whole grammar")
        .nth(1)
        .expect("a 'The whole grammar' section");
    let start = section.find("```pest\n").expect("a pest code block") + "```pest\n".len();
    let end = start + section[start..].find("```").expect("the block ends");
    assert!(
        section[start..end] == grammar,
        "docs/language.md's grammar differs from dsl-grammar/src/squillion.pest"
    );
}

#[test]
fn every_sqn_example_in_the_reference_parses() {
    let doc = read("docs/language.md");
    let mut count = 0;
    for block in doc.split("```sqn\n").skip(1) {
        let code = &block[..block.find("```").unwrap()];
        if let Err(d) = squillion_grammar::parse(code) {
            panic!("example does not parse:\n{code}\n{d:#?}");
        }
        count += 1;
    }
    assert!(
        count >= 20,
        "expected the reference's examples, found {count}"
    );
}
