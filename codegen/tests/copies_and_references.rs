//! Copies decide where a one-to-many reference lives, and every copy's fan-out is indexed.
//!
//! Children that show their parent's mutable fields store their parent's id beside the copies,
//! and every update of those fields finds the copies by that id. That index lists the children
//! as well, so an id array in the parent would repeat it: the reference belongs on the child
//! (`child_ref`). An array in the parent still pays when the parent shows fields of its children
//! (it holds their copies), and immutable copies never fan out. The reference model: the same
//! schema without the parent's mutable copies, whose layout only turns `parent_refs` into
//! `child_ref` when they are added.

use proptest::prelude::*;
use squillion_codegen::model::Layout;
use squillion_codegen::plan::Plan;
use squillion_grammar::SourceFile;

mod planned;
use planned::plan;

const PAIRS: &[(&str, &str)] = &[
    ("Customer", "Review"),
    ("Product", "Part"),
    ("Author", "Book"),
    ("Team", "Employee"),
    ("Warehouse", "Box"),
    ("Category", "Entry"),
];

fn lower(name: &str) -> String {
    name.to_lowercase()
}

/// Every mutable copy's fan-out finds its copies through an index on its collection (the
/// match path leads one), or through `_id`.
fn fan_outs_indexed(plan: &Plan) -> Result<(), String> {
    for d in &plan.relationships {
        for copy in d.denormalized.iter().filter(|c| !c.immutable) {
            let f = &copy.fan_out;
            let Some(c) = plan.collection(&f.collection) else {
                return Err(format!("{}: no collection {}", d.id, f.collection));
            };
            let served = f.match_path == "_id"
                || c.indexes
                    .iter()
                    .any(|i| i.keys.first().is_some_and(|k| k.path == f.match_path));
            if !served {
                return Err(format!(
                    "{}: updating {} scans {} (no index on `{}`)",
                    d.id, copy.source, c.name, f.match_path
                ));
            }
        }
    }
    Ok(())
}

#[derive(Debug, Clone)]
struct Case {
    parent: &'static str,
    child: &'static str,
    card: String,
    /// The parent's fields shown on the child, each `@immutable` or not.
    parent_on_child: Vec<bool>,
    ratio: u32,
    /// The child's `label` shown on the parent.
    child_on_parent: bool,
    navigate_both: bool,
    /// Standalone by declaration, else by a query on the child alone.
    declared: bool,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::sample::select(PAIRS),
        prop_oneof![
            (2u64..200).prop_map(|n| format!("few({n})")),
            (201u64..5000).prop_map(|n| format!("many({n})")),
            Just("many".to_owned()),
        ],
        prop::collection::vec(any::<bool>(), 0..3),
        prop::sample::select(&[2u32, 5, 50, 1000][..]),
        any::<bool>(),
        prop::bool::weighted(0.2),
        any::<bool>(),
    )
        .prop_map(
            |(
                (parent, child),
                card,
                parent_on_child,
                ratio,
                child_on_parent,
                navigate_both,
                declared,
            )| Case {
                parent,
                child,
                card,
                parent_on_child,
                ratio,
                child_on_parent,
                navigate_both,
                declared,
            },
        )
}

impl Case {
    fn source(&self, with_parent_copies: bool) -> String {
        let (p, c) = (self.parent, self.child);
        let fields: String = self
            .parent_on_child
            .iter()
            .enumerate()
            .map(|(i, immutable)| {
                let mark = if *immutable { " @immutable" } else { "" };
                format!("  f{i}: string{mark}\n")
            })
            .collect();
        let mut src = format!(
            "entity {p} {{\n  name: string\n{fields}}}\n\
             entity {c} {{\n  label: string\n  score: int32\n}}\n\
             relation {p}.{}s: {} <-> {c}.{}: one {{\n",
            lower(c),
            self.card,
            lower(p)
        );
        if self.declared {
            src.push_str(&format!("  standalone {c}\n"));
        }
        if self.navigate_both {
            src.push_str("  navigate both\n");
        }
        if with_parent_copies && !self.parent_on_child.is_empty() {
            let shown: Vec<String> = (0..self.parent_on_child.len())
                .map(|i| format!("{p}.f{i}"))
                .collect();
            src.push_str(&format!(
                "  show {} on {c} ratio {}:1\n",
                shown.join(", "),
                self.ratio
            ));
        }
        if self.child_on_parent {
            src.push_str(&format!("  show {c}.label on {p} ratio 1000:1\n"));
        }
        src.push_str("}\n");
        if !self.declared {
            src.push_str(&format!(
                "query top_{}s on {c} {{ where score >= ? sort score desc limit 10 }}\n",
                lower(c)
            ));
        }
        src
    }

    /// Whether the child keeps copies of mutable parent fields (rule 5 keeps copies from a
    /// ratio of 10 reads per update).
    fn mutable_copies_kept(&self) -> bool {
        self.ratio >= 10 && self.parent_on_child.iter().any(|immutable| !immutable)
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn copies_on_the_child_put_the_reference_on_the_child(case in case()) {
        let src = case.source(true);
        let with = plan(&src);
        let without = plan(&case.source(false));
        let id = format!("{}.{}s", case.parent, lower(case.child));
        let d = with.relationship(&id).unwrap();
        let base = without.relationship(&id).unwrap().strategy;
        let expected = if case.mutable_copies_kept()
            && !case.child_on_parent
            && base == Layout::ParentRefs
        {
            Layout::ChildRef
        } else {
            base
        };
        prop_assert_eq!(d.strategy, expected, "{}\n{}", src, d.because);
        if d.strategy == Layout::ChildRef && base == Layout::ParentRefs {
            prop_assert!(d.because.contains("no id array"), "{}", d.because);
            prop_assert!(
                d.rejected.iter().any(|r| r.strategy == "parent_refs" && r.why.contains("repeat")),
                "{:#?}", d.rejected
            );
        }
        if let Err(e) = fan_outs_indexed(&with) {
            return Err(TestCaseError::fail(format!("{e}\n{src}")));
        }
        // Immutable copies never fan out: nothing is indexed for them.
        if case.parent_on_child.iter().all(|immutable| *immutable) && !case.child_on_parent {
            for c in &with.collections {
                prop_assert!(
                    c.indexes.iter().all(|i| i.reasons.iter().all(|r| !r.starts_with("fan-out"))),
                    "{}: {:#?}", c.name, c.indexes
                );
            }
        }
    }
}

/// The generator's schemas (every layout, forced or chosen, with copies in documents, arrays and
/// arrays of arrays): every mutable copy's update is served by an index.
#[test]
fn every_fan_out_of_generated_schemas_is_indexed() {
    use squillion_codegen::pipeline::{compile, GenerateSettings};
    let mut fan_outs = 0;
    for (_, s) in squillion_schemagen::batch(7, 200, squillion_schemagen::Config::default()) {
        let text = squillion_schemagen::render(&s);
        let source = SourceFile::new("gen.sqn", text.clone());
        let generated = match compile(&source, &GenerateSettings::default()) {
            Ok(g) => g,
            Err(_) => panic!("a generated schema does not compile:\n{text}"),
        };
        fan_outs += generated
            .plan
            .relationships
            .iter()
            .flat_map(|d| &d.denormalized)
            .filter(|c| !c.immutable)
            .count();
        if let Err(e) = fan_outs_indexed(&generated.plan) {
            panic!("{e}\n{text}");
        }
    }
    assert!(fan_outs > 100, "only {fan_outs} fan-outs drawn");
}
