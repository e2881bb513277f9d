//! A parent that keeps something of children living in their own collection (`summary`,
//! `latest N`, `top N`) has it kept by the children's writes, which find their parent through the
//! child's reference. An id array in the parent (`parent_refs`) names the children but no child
//! names its parent, so the generated code could not keep it (docs/derive.md: "Not kept"); the
//! engine chose exactly that for a listing's few standalone offers with `summary count`.
//!
//! Reference model: the same relation without what the parent keeps. Where that is
//! `parent_refs`, keeping something makes it `child_ref`; every other layout stays; and no
//! generated schema keeps anything under `parent_refs` unless forced.

mod planned;

use planned::plan;
use proptest::prelude::*;
use squillion_codegen::model::Layout;

#[derive(Debug, Clone)]
struct Case {
    bound: String,
    /// `standalone Item`, a query on the child alone, or neither.
    alone: u8,
    /// Indices into [`KEPT`].
    kept: Vec<usize>,
    navigate_both: bool,
}

const KEPT: [&str; 4] = [
    "summary count",
    "summary count, max(score)",
    "latest 3 by at desc keep score",
    "top 2 by score desc",
];

fn case() -> impl Strategy<Value = Case> {
    (
        prop_oneof![
            (2u64..200).prop_map(|n| format!("few({n})")),
            (201u64..5000).prop_map(|n| format!("many({n})")),
            Just("many".to_owned()),
        ],
        0u8..3,
        prop::collection::btree_set(0usize..KEPT.len(), 1..3),
        prop::bool::weighted(0.2),
    )
        .prop_map(|(bound, alone, kept, navigate_both)| Case {
            bound,
            alone,
            kept: kept.into_iter().collect(),
            navigate_both,
        })
}

impl Case {
    fn source(&self, with_kept: bool) -> String {
        let mut facts = Vec::new();
        if self.alone == 0 {
            facts.push("standalone Item".to_owned());
        }
        if self.navigate_both {
            facts.push("navigate both".to_owned());
        }
        if with_kept {
            // One `summary` at most: the second summary case wins when both are drawn.
            let summary = self.kept.iter().filter(|&&k| k < 2).max();
            facts.extend(summary.map(|&k| KEPT[k].to_owned()));
            facts.extend(
                self.kept
                    .iter()
                    .filter(|&&k| k >= 2)
                    .map(|&k| KEPT[k].to_owned()),
            );
        }
        let mut src = format!(
            "entity Shop {{ name: string }}\n\
             entity Item {{ at: date  score: int32 }}\n\
             relation Shop.items: {} <-> Item.shop: one {{\n  {}\n}}\n",
            self.bound,
            facts.join("\n  ")
        );
        if self.alone == 1 {
            src.push_str(
                "query best_items on Item { where score >= ? sort score desc limit 10 }\n",
            );
        }
        src
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn what_a_parent_keeps_is_kept_through_the_childs_reference(case in case()) {
        let src = case.source(true);
        let with = plan(&src);
        let without = plan(&case.source(false));
        let d = with.relationship("Shop.items").unwrap();
        let base = without.relationship("Shop.items").unwrap();
        let expected = if base.strategy == Layout::ParentRefs {
            Layout::ChildRef
        } else {
            base.strategy
        };
        prop_assert_eq!(d.strategy, expected, "{}\nwith: {}\nwithout: {}", src, d.because, base.because);
        if base.strategy == Layout::ParentRefs {
            prop_assert!(d.because.contains("keeps"), "{}", d.because);
            prop_assert!(
                d.rejected.iter().any(|r| r.strategy == "parent_refs" && r.why.contains("no Item names its Shop")),
                "{:#?}", d.rejected
            );
        }
    }
}

/// Seed-like cases the generator does not draw: the listing's offers of the marketplace, and a
/// forced `parent_refs` that keeps its summaries (forced: the engine honours it and warns
/// nothing new; the derive documents that it does not keep them).
#[test]
fn a_listing_keeps_the_count_of_its_offers_through_their_reference() {
    let p = plan(
        "entity Listing { title: string }\n\
         entity Offer { amount: decimal128  state: one_of(\"open\", \"closed\") }\n\
         entity Member { name: string }\n\
         relation Listing.offers: few(50) <-> Offer.listing: one { summary count, max(amount) }\n\
         relation Member.offers: squillions <-> Offer.buyer: one\n\
         query my_offers on Offer { where buyer == ? and state == ? }\n",
    );
    let d = p.relationship("Listing.offers").unwrap();
    assert_eq!(d.strategy, Layout::ChildRef, "{}", d.because);
    let offers = p.collections.iter().find(|c| c.name == "offers").unwrap();
    assert!(offers.fields.iter().any(|f| f.name == "listing"));
    let forced = plan(
        "entity Listing { title: string }\n\
         entity Offer { amount: decimal128 }\n\
         relation Listing.offers: few(50) <-> Offer.listing: one { standalone Offer  summary count  force parent_refs }\n",
    );
    let d = forced.relationship("Listing.offers").unwrap();
    assert_eq!(d.strategy, Layout::ParentRefs);
    assert!(d.forced);
}
