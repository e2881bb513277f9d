//! A `page N` of children of which a parent has at most N is the whole list: it is no reason to
//! bucket them (seed 003's pages are for more comments than one page holds), so the layout is
//! the one the schema gets without the page, and note W135 says so. A page smaller than the
//! bound (or of unbounded children) buckets children not read on their own, N to a bucket.
//!
//! The reference is the rule: the same schema planned without its `page` line, and the bound in
//! force (the declared number, or `few` 200, `many` 5,000, `squillions` none).

use proptest::prelude::*;
use squillion_codegen::model::Layout;

mod planned;
use planned::{bound, decision, plan, snake};

const PAIRS: &[(&str, &str)] = &[
    ("User", "Address"),
    ("BlogPost", "Comment"),
    ("Album", "Track"),
    ("Ticket", "Reply"),
];

fn cardinality() -> impl Strategy<Value = String> {
    prop_oneof![
        (1u64..=200).prop_map(|n| format!("few({n})")),
        Just("few".to_owned()),
        (201u64..6000).prop_map(|n| format!("many({n})")),
        Just("many".to_owned()),
        Just("squillions".to_owned()),
    ]
}

fn schema(
    p: &str,
    c: &str,
    card: &str,
    page: Option<u64>,
    standalone: bool,
    latest: bool,
) -> String {
    let (pf, cf) = (format!("{}s", snake(c)), snake(p));
    let mut src = format!(
        "entity {p} {{ name: string }}\nentity {c} {{ title: string  at: date }}\n\
         relation {p}.{pf}: {card} <-> {c}.{cf}: one {{\n"
    );
    if let Some(k) = page {
        src.push_str(&format!("  page {k} by at desc\n"));
    }
    if standalone {
        src.push_str(&format!("  standalone {c}\n"));
    }
    if latest {
        src.push_str("  latest 3 by at desc\n");
    }
    src.push_str("}\n");
    src
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn a_page_of_every_child_changes_nothing(
        (p, c) in prop::sample::select(PAIRS),
        card in cardinality(),
        k in prop_oneof![1u64..50, 50u64..400, 400u64..8000],
        standalone in any::<bool>(),
        latest in any::<bool>(),
    ) {
        let id = format!("{p}.{}s", snake(c));
        let with = plan(&schema(p, c, &card, Some(k), standalone, latest));
        let without = plan(&schema(p, c, &card, None, standalone, latest));
        let d = decision(&with, &id);
        let whole = bound(&card).is_some_and(|n| k >= n);
        let w135 = with.warnings.iter().any(|w| w.code == "W135");
        prop_assert_eq!(w135, whole, "{}", schema(p, c, &card, Some(k), standalone, latest));
        if whole {
            let plain = decision(&without, &id);
            prop_assert_eq!(d.strategy, plain.strategy, "{}\n{}", d.because, plain.because);
            prop_assert!(d.bucket.is_none() || plain.bucket.is_some());
        } else if !standalone {
            prop_assert_eq!(d.strategy, Layout::Bucket, "{}", d.because);
            prop_assert_eq!(d.bucket.as_ref().map(|b| b.size), Some(k));
        }
    }
}
