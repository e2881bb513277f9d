//! The workload the cost model derives from the declared queries: a query on the child that
//! filters on its relation end itself (`where owner == ?`) finds the children by their parent
//! exactly as one that filters through a field of the parent (`where owner.name == ?`), so both
//! are list reads of that relation at their rate, never reads of one child alone. Checked over
//! generated relations (one-to-many and many-to-many, any bound), query shapes (extra
//! conditions, sorts, limits) and rates, against the through form as the reference.

use proptest::prelude::*;
use squillion_codegen::plan::{Plan, WorkloadPlan};
use squillion_grammar::SourceFile;

fn plan(src: &str) -> Plan {
    let source = SourceFile::new("gen.sqn", src);
    match squillion_codegen::load(&source) {
        Ok(checked) => squillion_codegen::engine::plan(&checked.model, &source),
        Err(diags) => panic!(
            "schema does not check:\n{}\n{src}",
            source.render(&diags, false)
        ),
    }
}

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
