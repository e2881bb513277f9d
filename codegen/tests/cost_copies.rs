//! Copies in the cost model, on generated schemas: where rule 5 copies a parent's fields into its
//! children, the Plan's alternatives hold the chosen layout without the copies; the more a copy is
//! read per update, the more the copies save (the "nothing copied" alternative's cost relative to
//! the chosen never falls, and crosses the chosen cost at most once, from below to above); copies
//! of immutable fields cost nothing to keep, so going without them never costs less.

use proptest::prelude::*;
use squillion_codegen::plan::{AlternativeCost, Decision};

mod planned;
use planned::plan;

const CLASSES: &[&str] = &[
    "many(300)",
    "many(1000)",
    "many(20000, typical 50)",
    "squillions",
];

#[derive(Debug, Clone)]
struct Case {
    class: usize,
    immutable: bool,
    alone_rate: u32,
    list_rate: Option<u32>,
    parent_bytes: u32,
    ratio: u32,
}

fn case() -> impl Strategy<Value = Case> {
    (
        0..CLASSES.len(),
        any::<bool>(),
        1u32..500,
        prop::option::of(1u32..500),
        prop::sample::select(vec![0u32, 200, 4000]),
        1u32..5000,
    )
        .prop_map(
            |(class, immutable, alone_rate, list_rate, parent_bytes, ratio)| Case {
                class,
                immutable,
                alone_rate,
                list_rate,
                parent_bytes,
                ratio,
            },
        )
}

fn text(c: &Case) -> String {
    let immutable = if c.immutable { " @immutable" } else { "" };
    let bio = if c.parent_bytes > 0 {
        format!(" bio: string @size({}B)", c.parent_bytes)
    } else {
        String::new()
    };
    let mut s = format!(
        "entity Owner {{ name: string{immutable}{bio} }}\n\
         entity Item {{ code: string @unique at: date }}\n\
         relation Owner.items: {} <-> Item.owner: one {{\n  standalone Item\n  \
         show Owner.name on Item ratio {}:1\n}}\n\
         query item_by_code on Item {{\n  where code == ?\n  rate {}/s\n}}\n",
        CLASSES[c.class], c.ratio, c.alone_rate
    );
    if let Some(r) = c.list_rate {
        s.push_str(&format!(
            "query items_of_owner on Owner.items {{\n  sort at desc\n  limit 20\n  rate {r}/s\n}}\n"
        ));
    }
    s
}

fn decision(c: &Case) -> Decision {
    plan(&text(c)).relationships[0].clone()
}

fn bare(d: &Decision) -> Option<&AlternativeCost> {
    d.cost
        .as_ref()?
        .alternatives
        .iter()
        .find(|a| a.nothing_copied)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, .. ProptestConfig::default() })]

    /// Every plan that copies fields costs the chosen layout without them, beside it, as an
    /// alternative the rules (rule 5) rule out; its layout is the chosen one.
    #[test]
    fn copies_are_ranked_against_nothing_copied(c in case()) {
        let d = decision(&c);
        if d.denormalized.is_empty() {
            prop_assert!(bare(&d).is_none());
            return Ok(());
        }
        let b = bare(&d).ok_or_else(|| TestCaseError::fail(format!("no nothing-copied alternative\n{}", text(&c))))?;
        let chosen = d.cost.as_ref().and_then(|x| x.chosen()).expect("chosen");
        prop_assert_eq!(b.layout, chosen.layout);
        prop_assert!(!b.chosen && !b.acceptable);
        prop_assert!(b.round_trips >= chosen.round_trips - 1e-6 || !c.immutable);
        if c.immutable {
            prop_assert!(b.micros + 1e-6 >= chosen.micros, "immutable copies cost nothing to keep\n{}", text(&c));
        }
    }

    /// The read/update ratio grows: the copies' saving never shrinks, and the choice between
    /// copying and not crosses at most once, toward the copies.
    #[test]
    fn copies_pay_more_the_more_they_are_read(c in case()) {
        let mut last: Option<f64> = None;
        let mut crossings = 0;
        let mut below: Option<bool> = None;
        for ratio in [1u32, 3, 10, 30, 100, 300, 1000, 3000, 10000] {
            let mut k = c.clone();
            k.ratio = ratio;
            let d = decision(&k);
            let Some(b) = bare(&d) else { continue };
            let rel = b.relative;
            if let Some(prev) = last {
                prop_assert!(rel + 1e-2 >= prev, "nothing copied fell from {}x to {}x at ratio {}\n{}", prev, rel, ratio, text(&k));
            }
            let now_below = rel < 1.0;
            if let Some(was) = below {
                if was != now_below {
                    crossings += 1;
                    prop_assert!(was, "the copies lost ground at ratio {}\n{}", ratio, text(&k));
                }
            }
            below = Some(now_below);
            last = Some(rel);
        }
        prop_assert!(crossings <= 1);
    }
}

/// The generator does make copies (the properties above are not vacuous): at a high ratio every
/// class copies the owner's name and ranks going without it.
#[test]
fn the_generated_schemas_copy() {
    for class in 0..CLASSES.len() {
        let c = Case {
            class,
            immutable: false,
            alone_rate: 100,
            list_rate: None,
            parent_bytes: 200,
            ratio: 1000,
        };
        let d = decision(&c);
        assert!(!d.denormalized.is_empty(), "{}", text(&c));
        assert!(bare(&d).is_some_and(|b| b.relative > 1.0), "{}", text(&c));
    }
}
