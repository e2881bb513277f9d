//! A query with an equality on a field that has its own unique index finds at most one document
//! through that index: the engine adds no second index for it (an index the writes would keep
//! for nothing). Over generated fields (optional or not, case-insensitive or not) and queries
//! (more conditions, a sort, a limit or none, a case-insensitive comparison), against a
//! reference: the same query on the field without `@unique`, which gets an index of its own.

use proptest::prelude::*;
use squillion_codegen::plan::{Collection, Plan};

mod planned;
use planned::plan;

#[derive(Debug, Clone)]
struct Case {
    optional: bool,
    field_ci: bool,
    query_ci: bool,
    other_eq: bool,
    range: bool,
    sort: bool,
    limit: bool,
}

fn case() -> impl Strategy<Value = Case> {
    (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(optional, field_ci, query_ci, other_eq, range, sort, limit)| Case {
                optional,
                field_ci,
                query_ci,
                other_eq,
                range,
                sort,
                limit,
            },
        )
}

fn text(c: &Case, unique: bool) -> String {
    let mut marks = String::new();
    if unique {
        marks.push_str(" @unique");
    }
    if c.field_ci {
        marks.push_str(" @ignore_case");
    }
    let opt = if c.optional { "?" } else { "" };
    let mut conditions = vec![format!(
        "email == ?{}",
        if c.query_ci { " ignore_case" } else { "" }
    )];
    if c.other_eq {
        conditions.push("team == ?".to_owned());
    }
    if c.range {
        conditions.push("joined > ?".to_owned());
    }
    let mut q = format!(
        "query lookup on Member {{\n  where {}\n",
        conditions.join(" and ")
    );
    if c.sort {
        q.push_str("  sort joined desc\n");
    }
    if c.limit {
        q.push_str("  limit 10\n");
    }
    q.push_str("  rate 50/s\n}\n");
    format!(
        "entity Member {{\n  email: string{opt}{marks}\n  team: string\n  joined: date\n}}\n{q}"
    )
}

fn members(p: &Plan) -> &Collection {
    p.collection("members").expect("members")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn an_equality_on_a_unique_field_uses_its_index(c in case()) {
        let src = text(&c, true);
        let with = plan(&src);
        let without = plan(&text(&c, false));
        let m = members(&with);
        let serving: Vec<_> = m
            .indexes
            .iter()
            .filter(|i| i.reasons.iter().any(|r| r.starts_with("query `lookup`")))
            .collect();
        prop_assert_eq!(serving.len(), 1, "{:#?}\n{}", m.indexes, src);
        let i = serving[0];
        // The unique index compares as the field is declared; the query as it says.
        let same_collation = c.field_ci == (c.field_ci || c.query_ci);
        if same_collation {
            prop_assert!(i.unique && i.keys.len() == 1 && i.keys[0].path == "email", "{:#?}\n{}", i, src);
            prop_assert_eq!(i.sparse, c.optional, "{}", src);
            // One index fewer than without `@unique`, where the query has its own.
            prop_assert_eq!(m.indexes.len(), members(&without).indexes.len(), "{:#?}\n{}", m.indexes, src);
        } else {
            // A case-insensitive lookup on a binary unique index: the query needs its own.
            prop_assert!(!i.unique, "{:#?}\n{}", i, src);
            prop_assert_eq!(m.indexes.len(), members(&without).indexes.len() + 1, "{}", src);
        }
    }
}
