//! The workload the cost model derives from the declared queries: a query on the child that
//! filters on its relation end itself (`where owner == ?`) finds the children by their parent
//! exactly as one that filters through a field of the parent (`where owner.name == ?`), so both
//! are list reads of that relation at their rate, never reads of one child alone. Checked over
//! generated relations (one-to-many and many-to-many, any bound), query shapes (extra
//! conditions, sorts, limits) and rates, against the through form as the reference.

use proptest::prelude::*;
use squillion_codegen::plan::{Plan, WorkloadPlan};

mod planned;
use planned::plan;

const ENDS: &[&str] = &[
    "few(10)",
    "many(300)",
    "many(5000, typical 30)",
    "squillions",
];

#[derive(Debug, Clone)]
struct Case {
    class: usize,
    /// `Some(bound)`: the child end is `many(bound)`, a many-to-many.
    many_to_many: Option<u32>,
    standalone: bool,
    rate: u32,
    limit: Option<u32>,
    sorted: bool,
    extra_condition: bool,
    /// A second query reading one child alone, at this rate.
    alone: Option<u32>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        0..ENDS.len(),
        prop::option::of(prop::sample::select(vec![5u32, 40, 300])),
        any::<bool>(),
        1u32..500,
        prop::option::of(prop::sample::select(vec![10u32, 50])),
        any::<bool>(),
        any::<bool>(),
        prop::option::of(1u32..500),
    )
        .prop_map(
            |(class, many_to_many, standalone, rate, limit, sorted, extra_condition, alone)| Case {
                class,
                many_to_many,
                standalone,
                rate,
                limit,
                sorted,
                extra_condition,
                alone,
            },
        )
}

/// The schema, its query filtering on `owner` (`through`: on a field of the owner instead).
fn text(c: &Case, through: bool) -> String {
    let child_end = c
        .many_to_many
        .map_or("one".to_owned(), |b| format!("many({b})"));
    let class = if c.many_to_many.is_some() && ENDS[c.class] == "squillions" {
        "many(300)"
    } else {
        ENDS[c.class]
    };
    let standalone = if c.standalone && c.many_to_many.is_none() {
        "  standalone Item\n"
    } else {
        ""
    };
    let mut s = format!(
        "entity Owner {{\n  name: string @unique @immutable\n}}\n\
         entity Item {{\n  at: date\n  code: string\n}}\n\
         relation Owner.items: {class} <-> Item.owner: {child_end} {{\n{standalone}  navigate both\n}}\n"
    );
    let filter = if through {
        "owner.name == ?"
    } else {
        "owner == ?"
    };
    let mut q = format!("query items_of_owner on Item {{\n  where {filter}");
    if c.extra_condition {
        q.push_str(" and at >= ?");
    }
    q.push('\n');
    if c.sorted {
        q.push_str("  sort at desc\n");
    }
    if let Some(l) = c.limit {
        q.push_str(&format!("  limit {l}\n"));
    }
    q.push_str(&format!("  rate {}/s\n}}\n", c.rate));
    s.push_str(&q);
    if let Some(r) = c.alone {
        s.push_str(&format!(
            "query item_by_code on Item {{\n  where code == ?\n  rate {r}/s\n}}\n"
        ));
    }
    s
}

fn workload(p: &Plan) -> WorkloadPlan {
    p.relationships
        .iter()
        .find(|d| d.id == "Owner.items")
        .and_then(|d| d.cost.as_ref())
        .map(|c| c.workload.clone())
        .expect("Owner.items is costed")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn a_filter_on_the_reference_is_a_list_read_like_one_through_it(c in case()) {
        let direct = workload(&plan(&text(&c, false)));
        let through = workload(&plan(&text(&c, true)));
        let ctx = text(&c, false);
        prop_assert!(direct.declared, "{ctx}");
        prop_assert_eq!(direct.list_reads, through.list_reads, "list reads\n{}", ctx);
        prop_assert_eq!(direct.alone_reads, through.alone_reads, "reads alone\n{}", ctx);
        prop_assert_eq!(direct.children_per_list, through.children_per_list, "children per list\n{}", ctx);
        // The query's rate is a list read of the relation's children, never a read of one child.
        prop_assert!(direct.list_reads >= f64::from(c.rate) - 0.01, "{direct:?}\n{ctx}");
        let alone = f64::from(c.alone.unwrap_or(0));
        prop_assert!(direct.alone_reads <= alone.max(1.0) + 0.01, "{direct:?}\n{ctx}");
    }
}

/// A child of two parents, found by both (`where post == ? and user == ?`: did this user like
/// this post): one child the two share, read alone, for both relations; the query on one parent
/// alone (the reference) is that parent's list.
fn two_parents(rate: u32, both: bool, extra: bool, card: &str) -> String {
    let mut cond = "post == ?".to_owned();
    if both {
        cond.push_str(" and user == ?");
    }
    if extra {
        cond.push_str(" and at > ?");
    }
    format!(
        "entity Post {{ title: string }}\nentity User {{ name: string }}\nentity Like {{ at: date }}\n\
         relation Post.likes: {card} <-> Like.post: one\n\
         relation User.likes: {card} <-> Like.user: one\n\
         query find_like on Like {{\n  where {cond}\n  rate {rate}/s\n}}\n"
    )
}

fn workload_of(p: &Plan, id: &str) -> WorkloadPlan {
    p.relationship(id)
        .and_then(|d| d.cost.as_ref())
        .map(|c| c.workload.clone())
        .expect("costed")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn a_query_naming_both_parents_reads_one_child(
        rate in 1u32..2000,
        extra in any::<bool>(),
        card in prop::sample::select(vec!["many(300)", "many(5000, typical 30)", "squillions"]),
    ) {
        let src = two_parents(rate, true, extra, card);
        let p = plan(&src);
        for id in ["Post.likes", "User.likes"] {
            let w = workload_of(&p, id);
            prop_assert!(w.alone_reads >= f64::from(rate) - 0.01, "{id}: {w:?}\n{src}");
            prop_assert!(w.list_reads <= 1.0, "{id}: {w:?}\n{src}");
        }
        // The reference: by the post alone, it lists the post's likes.
        let one = plan(&two_parents(rate, false, extra, card));
        let w = workload_of(&one, "Post.likes");
        prop_assert!(w.list_reads >= f64::from(rate) - 0.01, "{w:?}");
    }
}
