//! `squillion fmt`'s properties, over every example, every snippet of the language reference and
//! random re-spacings of them: formatting is idempotent, keeps the syntax tree (spans aside) and
//! every comment in order, and does not depend on how the input was spaced.

use proptest::prelude::*;
use squillion_grammar::{format, parse};

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.sqn` text the project ships: the examples and the reference's snippets.
fn corpus() -> Vec<(String, String)> {
    let mut files = Vec::new();
    let examples = root().join("examples");
    let mut names: Vec<_> = std::fs::read_dir(&examples)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sqn"))
        .collect();
    names.sort();
    for path in names {
        let text = std::fs::read_to_string(&path).unwrap();
        files.push((path.display().to_string(), text));
    }
    let doc = std::fs::read_to_string(root().join("docs/language.md")).unwrap();
    for (i, block) in doc.split("```sqn\n").skip(1).enumerate() {
        let code = &block[..block.find("```").unwrap()];
        files.push((
            format!("docs/language.md snippet {}", i + 1),
            code.to_owned(),
        ));
    }
    assert!(files.len() >= 50, "the corpus shrank to {}", files.len());
    files
}

/// The syntax tree, printed, with every span removed.
fn tree(source: &str) -> String {
    let schema = parse(source).unwrap_or_else(|e| panic!("{source}\n{e:?}"));
    let printed = format!("{schema:?}");
    let mut out = String::with_capacity(printed.len());
    let mut rest = printed.as_str();
    while let Some(at) = rest.find("Span {") {
        out.push_str(&rest[..at]);
        let close = rest[at..].find('}').unwrap();
        rest = &rest[at + close + 1..];
    }
    out.push_str(rest);
    assert!(out.len() > 20, "the tree printed as {printed}");
    out
}

/// The `//` comments of a source, in order (a rough scan: strings holding `//` are rare in the corpus
/// and would appear on both sides).
fn comments(source: &str) -> Vec<String> {
    source
        .lines()
        .filter_map(|line| {
            let at = line.find("//")?;
            let rest = &line[at..];
            (!rest.starts_with("///") || rest.starts_with("////"))
                .then(|| rest.trim_end().to_owned())
        })
        .collect()
}

#[test]
fn formatting_is_idempotent_and_keeps_the_tree_and_the_comments() {
    for (name, source) in corpus() {
        let once = format(&source).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let twice = format(&once).unwrap_or_else(|e| panic!("{name} formatted: {e:?}\n{once}"));
        assert_eq!(
            once, twice,
            "{name}: formatting a formatted file changed it"
        );
        assert_eq!(
            tree(&source),
            tree(&once),
            "{name}: the syntax tree changed"
        );
        assert_eq!(
            comments(&source),
            comments(&once),
            "{name}: comments changed"
        );
    }
}

/// A re-spacing of a formatted file that means the same: every run of whitespace between tokens
/// is replaced, keeping its line breaks (a line break ends a comment, an empty line is kept).
fn respace(formatted: &str, choices: &[u8]) -> String {
    let mut out = String::new();
    let mut k = 0;
    let chars: Vec<char> = formatted.chars().collect();
    let mut i = 0;
    let mut in_comment = false;
    let mut in_string = false;
    while i < chars.len() {
        let c = chars[i];
        if in_comment || in_string || !c.is_whitespace() {
            if !in_string && c == '/' && chars.get(i + 1) == Some(&'/') {
                in_comment = true;
            }
            if !in_comment && c == '"' {
                in_string = !in_string;
            }
            if c == '\n' {
                in_comment = false;
                in_string = false;
            }
            out.push(c);
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        let newlines = chars[start..i].iter().filter(|&&c| c == '\n').count();
        let before = chars[..start].last().copied();
        let after = chars.get(i).copied();
        let before_comment = after == Some('/') && chars.get(i + 1) == Some(&'/');
        let choice = choices.get(k).copied().unwrap_or(0);
        k += 1;
        let punct = |c: Option<char>| c.is_some_and(|c| "{}()[]<>,:;=?".contains(c));
        let gap = match (newlines, choice % 4) {
            (0, _) if before_comment => " ".to_owned(),
            (0, 0) if punct(before) || punct(after) => String::new(),
            (0, 1) => "   ".to_owned(),
            (0, 2) => "\n\t".to_owned(),
            (0, _) => " ".to_owned(),
            (1, 0) => "\r\n".to_owned(),
            (1, 1) => " \n      ".to_owned(),
            (1, _) => "\n".to_owned(),
            (n, _) => "\n".repeat(n.min(2) + usize::from(choice % 2 == 0)),
        };
        out.push_str(&gap);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn the_layout_does_not_depend_on_the_input_spacing(
        pick in any::<prop::sample::Index>(),
        choices in prop::collection::vec(any::<u8>(), 4096),
    ) {
        let files = corpus();
        let (name, source) = &files[pick.index(files.len())];
        let canonical = format(source).unwrap();
        let respaced = respace(&canonical, &choices);
        let again = format(&respaced);
        prop_assert!(again.is_ok(), "{name}: the re-spaced file does not parse:\n{respaced}");
        prop_assert_eq!(again.unwrap(), canonical, "{}: re-spaced:\n{}", name, respaced);
    }
}

/// The examples are what people copy: they are written in the canonical layout.
#[test]
fn every_example_is_formatted() {
    for (name, source) in corpus() {
        if name.contains("examples") {
            let formatted = format(&source).unwrap();
            assert!(
                formatted == source,
                "{name} is not formatted: run `squillion fmt {name}` (cargo run -p squillion-cli -- fmt {name})"
            );
        }
    }
}
