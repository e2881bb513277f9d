//! An id array in the parent pays only when the parent lists its children by it (issue 13,
//! class 1). Where the parent's own queries list parents (`limit` above one, the whole document
//! or the relationship's end returned, at a declared rate), every listed parent carries the
//! array unread: the cost model charges those bytes (`parent_reads`), the rules' preference
//! for the array gives way, and the cheaper layout the rules accept wins. Where the parent's
//! queries find one parent (seed 004: `findOne`, then `$in`), project the array away or
//! declare no rate, the rules' array stands. Stated as properties over generated schemas, with
//! the documents read computed here from the generated queries.

use proptest::prelude::*;
use squillion_codegen::model::Layout;

mod planned;
use planned::{decision, plan, snake};

const PAIRS: &[(&str, &str)] = &[
    ("Hotel", "Room"),
    ("Product", "Part"),
    ("Author", "Book"),
    ("Warehouse", "Shelf"),
    ("Course", "Lesson"),
    ("Album", "Photo"),
];

/// How the parent's one query reads it.
#[derive(Debug, Clone, Copy)]
enum Query {
    /// `limit L` at `rate R`, whole documents: a listing.
    Listing,
    /// The same listing, but `returns name`: the array is projected away.
    Projected,
    /// `limit 1`: it finds one parent, whose children may then be listed by the array.
    One,
    /// No limit: an equality that finds one parent.
    Unlimited,
    /// A listing with no rate: nothing declared.
    NoRate,
}

/// A parent with up to `max` standalone children (a bound the rules keep in an id array), and
/// one query on the parent.
fn schema(p: &str, c: &str, max: u64, q: Query, limit: u64, rate: f64) -> String {
    let pf = format!("{}s", snake(c));
    let cf = snake(p);
    let mut src = format!(
        "entity {p} {{ name: string  city: string }}\nentity {c} {{ label: string  size: int32 }}\n\
         relation {p}.{pf}: many({max}) <-> {c}.{cf}: one {{\n  standalone {c}\n}}\n"
    );
    let rate_clause = format!("rate {rate}/s");
    let (limit_clause, returns, rate_clause) = match q {
        Query::Listing => (format!("limit {limit}"), "", rate_clause.as_str()),
        Query::Projected => (
            format!("limit {limit}"),
            "returns name",
            rate_clause.as_str(),
        ),
        Query::One => ("limit 1".to_owned(), "", rate_clause.as_str()),
        Query::Unlimited => (String::new(), "", rate_clause.as_str()),
        Query::NoRate => (format!("limit {limit}"), "", ""),
    };
    src.push_str(&format!(
        "query {}s_in_city on {p} {{\n  where city == ?\n  sort name asc\n  {limit_clause}\n  {returns}\n  {rate_clause}\n}}\n",
        snake(p)
    ));
    src
}

fn query() -> impl Strategy<Value = Query> {
    prop_oneof![
        Just(Query::Projected),
        Just(Query::One),
        Just(Query::Unlimited),
        Just(Query::NoRate),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, .. ProptestConfig::default() })]

    /// Parents listed by their own query: the documents read are the query's rate times its
    /// limit; the array's bytes make `parent_refs` dearer than `child_ref`, which wins; the
    /// parent holds no array, and the sentences say where the rates came from.
    #[test]
    fn listed_parents_do_not_carry_their_childrens_ids(
        (p, c) in prop::sample::select(PAIRS),
        max in 201u64..5000,
        limit in 2u64..200,
        rate in prop::sample::select(&[0.5f64, 2.0, 10.0, 50.0, 200.0, 1000.0][..]),
    ) {
        let src = schema(p, c, max, Query::Listing, limit, rate);
        let plan = plan(&src);
        let d = decision(&plan, &format!("{p}.{}s", snake(c)));
        let cost = d.cost.as_ref().expect("a costed decision");
        let expected = rate * limit as f64;
        prop_assert!(
            (cost.workload.parent_reads - expected).abs() <= 0.01 * expected,
            "parent_reads {} for {rate}/s x {limit}\n{src}", cost.workload.parent_reads
        );
        prop_assert_eq!(d.strategy, Layout::ChildRef, "{}\n{}", src, d.because);
        let micros = |l: Layout| cost.alternatives.iter().find(|a| a.layout == l && !a.nothing_copied).map(|a| a.micros);
        let (Some(array), Some(reference)) = (micros(Layout::ParentRefs), micros(Layout::ChildRef)) else {
            panic!("parent_refs and child_ref are both costed: {:#?}", cost.alternatives);
        };
        prop_assert!(array > reference, "{array} <= {reference}\n{src}");
        // The chosen layout is the cheapest the rules accept.
        let chosen = cost.chosen().map(|a| a.micros).unwrap_or(f64::NAN);
        for a in cost.alternatives.iter().filter(|a| a.acceptable) {
            prop_assert!(chosen <= a.micros, "{:?} at {} beats the chosen {chosen}", a.layout, a.micros);
        }
        let parent = plan.collections.iter().find(|x| x.entity == p).expect("the parent's collection");
        prop_assert!(parent.field(&format!("{}s", snake(c))).is_none(), "an array in {}", parent.name);
        let words = squillion_codegen::prose::cost::workload(&cost.workload);
        prop_assert!(words.contains("parent documents read by the parent's own queries"), "{words}");
        prop_assert!(!words.contains("the rules decide"), "{words}");
        prop_assert!(!d.because.contains(" 0% "), "{}", d.because);
    }

    /// The parent's query finds one parent, projects the array away, or declares no rate: no
    /// parent documents are charged, and the rules' id array stands.
    #[test]
    fn the_array_stands_where_no_listing_carries_it(
        (p, c) in prop::sample::select(PAIRS),
        max in 201u64..5000,
        q in query(),
        limit in 2u64..200,
        rate in prop::sample::select(&[0.5f64, 10.0, 200.0][..]),
    ) {
        let src = schema(p, c, max, q, limit, rate);
        let plan = plan(&src);
        let d = decision(&plan, &format!("{p}.{}s", snake(c)));
        let cost = d.cost.as_ref().expect("a costed decision");
        prop_assert_eq!(cost.workload.parent_reads, 0.0, "{:?}\n{}", q, src);
        prop_assert_eq!(d.strategy, Layout::ParentRefs, "{:?}\n{}\n{}", q, src, d.because);
    }
}
