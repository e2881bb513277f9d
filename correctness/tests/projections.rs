//! Issue 12 against the server: queries that declare `returns` (`families::projections`). For
//! generated items (few prices, ranks and titles, so sort keys tie), every method of every query
//! (`q`, `q_page` read page after page, `q_stream`, `limit 1`) returns what a reference model
//! says: the matching items, projected, in the declared order (and, for pages, exactly that order
//! with ties broken by `_id`). The client records the documents the server sent, so the tests
//! also see that the projection went over the wire: each sent document holds `_id` and the
//! returned fields (and, for pages, the sort keys the next cursor reads), nothing else, while a
//! query without `returns` receives whole documents.

use squillion_testkit::Lcg;
use std::cmp::Ordering;
use std::collections::BTreeSet;

use futures::TryStreamExt;
use squillion::bson::oid::ObjectId;
use squillion::BoundedVec;
use squillion_correctness::projection_items::{
    ensure_indexes, ByPrice, ByPriceDesc, ByPriceRank, ByRankTitle, Cheapest, Item, ItemRepo,
    Unsorted, PLAN_JSON,
};
use squillion_testkit::{SentDocuments, TestDb};

fn items(seed: u64) -> Vec<Item> {
    let mut r = Lcg(seed);
    let count = r.below(60);
    (0..count)
        .map(|_| {
            let tags: Vec<String> = (0..r.below(4)).map(|t| format!("tag{t}")).collect();
            Item {
                id: ObjectId::new(),
                title: ["a", "b", "c"][r.below(3) as usize].to_owned(),
                price: r.below(5) as i32,
                rank: r.below(3) as i32,
                // Up to 20 KB: what a listing must not pull.
                summary: "x".repeat(r.below(20_000) as usize),
                tags: BoundedVec::try_from(tags).expect("at most 3 tags"),
            }
        })
        .collect()
}

/// The keys of each sent document, which must be exactly `expected` (with `_id`).
fn assert_sent(query: &str, sent: &SentDocuments, returned: usize, expected: &[&str]) {
    let docs = sent.take();
    assert!(
        docs.len() >= returned,
        "{query}: the monitor saw {} documents for {returned} results",
        docs.len()
    );
    let expected: BTreeSet<&str> = expected.iter().copied().chain(["_id"]).collect();
    for d in &docs {
        let keys: BTreeSet<&str> = d.keys().map(String::as_str).collect();
        assert_eq!(keys, expected, "{query}: the server sent {d:?}");
    }
}

/// The items `keep` matches, in `order` and then by `_id` (the pages' order).
fn reference(
    items: &[Item],
    keep: impl Fn(&Item) -> bool,
    order: impl Fn(&Item, &Item) -> Ordering,
) -> Vec<&Item> {
    let mut out: Vec<&Item> = items.iter().filter(|i| keep(i)).collect();
    out.sort_by(|a, b| order(a, b).then(a.id.cmp(&b.id)));
    out
}

/// `got` holds the same items as `expected`, in an order `order` accepts (ties in any order).
fn same_items_in_order<P: PartialEq + std::fmt::Debug>(
    query: &str,
    got: &[P],
    expected: &[&Item],
    project: impl Fn(&Item) -> P,
    id: impl Fn(&P) -> ObjectId,
    order: impl Fn(&Item, &Item) -> Ordering,
) {
    assert_eq!(got.len(), expected.len(), "{query}: {got:?}");
    for (k, g) in got.iter().enumerate() {
        let item = expected
            .iter()
            .find(|i| i.id == id(g))
            .unwrap_or_else(|| panic!("{query}: {g:?} is not a match"));
        assert_eq!(*g, project(item), "{query}: wrong fields");
        if k > 0 {
            let before = expected
                .iter()
                .find(|i| i.id == id(&got[k - 1]))
                .expect("checked above");
            assert_ne!(
                order(before, item),
                Ordering::Greater,
                "{query}: out of the declared order"
            );
        }
    }
}

macro_rules! check {
    (
        $repo:expr, $sent:expr, $items:expr, $q:ident, $page:ident, $stream:ident, $arg:expr,
        keep: $keep:expr, order: $order:expr, sorted: $sorted:expr, project: $project:expr,
        returns: $returns:expr, page_reads: $page_reads:expr $(,)?
    ) => {{
        let query = stringify!($q);
        let expected = reference($items, $keep, $order);
        let want: Vec<_> = expected.iter().map(|i| ($project)(i)).collect();
        let got = $repo.$q(&$arg).await.expect(query);
        assert_sent(query, $sent, got.len(), &$returns);
        same_items_in_order(query, &got, &expected, $project, |p| p.id, $order);

        let streamed: Vec<_> = $repo.$stream(&$arg).try_collect().await.expect(query);
        assert_sent(query, $sent, streamed.len(), &$returns);
        same_items_in_order(query, &streamed, &expected, $project, |p| p.id, $order);
        if $sorted {
            // Ties broken by `_id`: exactly the reference's order.
            assert_eq!(got, want, "{query}: ties not broken by `_id`");
            assert_eq!(streamed, want, "{query} (stream): ties not broken by `_id`");
        }

        for per_page in [1u32, 4, 7] {
            let mut read = Vec::new();
            let mut after = None;
            loop {
                let page = $repo
                    .$page(&$arg, after.as_ref(), per_page)
                    .await
                    .expect(query);
                assert!(page.items.len() <= per_page as usize);
                assert_sent(query, $sent, page.items.len(), &$page_reads);
                read.extend(page.items);
                match page.next {
                    Some(next) => after = Some(next),
                    None => break,
                }
            }
            // Pages: exactly the declared order, ties broken by `_id`.
            assert_eq!(read, want, "{query}: pages of {per_page}");
        }
    }};
}

#[tokio::test]
async fn projected_queries_return_and_receive_only_their_fields_in_the_declared_order() {
    let (t, sent) = TestDb::watching_reads("projections").await;
    ensure_indexes(&t.db).await.expect("indexes");
    let repo = ItemRepo::new(&t.db);
    for seed in [1u64, 2, 3, 4] {
        repo.collection()
            .delete_many(squillion::bson::doc! {})
            .await
            .expect("clear");
        let items = items(seed);
        // Stored against their `_id` order, so the server's order of ties (by the index's
        // record ids) is not already the `_id` order the declared order ends with.
        for i in items.iter().rev() {
            repo.insert(i).await.expect("insert");
        }
        sent.take();
        let min = (seed % 3) as i32;
        let by_price = |a: &Item, b: &Item| a.price.cmp(&b.price);
        check!(repo, &sent, &items, by_price, by_price_page, by_price_stream, min,
            keep: |i: &Item| i.price >= min,
            order: by_price,
            sorted: true,
            project: |i: &Item| ByPrice { id: i.id, title: i.title.clone(), price: i.price },
            returns: ["title", "price"], page_reads: ["title", "price"]);
        let by_price_desc = |a: &Item, b: &Item| b.price.cmp(&a.price);
        check!(repo, &sent, &items, by_price_desc, by_price_desc_page, by_price_desc_stream, min,
            keep: |i: &Item| i.price >= min,
            order: by_price_desc,
            sorted: true,
            project: |i: &Item| ByPriceDesc { id: i.id, title: i.title.clone() },
            returns: ["title"], page_reads: ["title", "price"]);
        let price_rank = |a: &Item, b: &Item| b.price.cmp(&a.price).then(a.rank.cmp(&b.rank));
        check!(repo, &sent, &items, by_price_rank, by_price_rank_page, by_price_rank_stream, min,
            keep: |i: &Item| i.price >= min,
            order: price_rank,
            sorted: true,
            project: |i: &Item| ByPriceRank { id: i.id, rank: i.rank, tags: i.tags.clone() },
            returns: ["rank", "tags"], page_reads: ["rank", "tags", "price"]);
        let rank_title = |a: &Item, b: &Item| a.rank.cmp(&b.rank).then(b.title.cmp(&a.title));
        check!(repo, &sent, &items, by_rank_title, by_rank_title_page, by_rank_title_stream, min,
            keep: |i: &Item| i.rank <= min,
            order: rank_title,
            sorted: true,
            project: |i: &Item| ByRankTitle { id: i.id, title: i.title.clone(), summary: i.summary.clone() },
            returns: ["title", "summary"], page_reads: ["title", "summary", "rank"]);
        let any = |_: &Item, _: &Item| Ordering::Equal;
        check!(repo, &sent, &items, unsorted, unsorted_page, unsorted_stream, min,
            keep: |i: &Item| i.price >= min,
            order: any,
            sorted: false,
            project: |i: &Item| Unsorted { id: i.id, price: i.price },
            returns: ["price"], page_reads: ["price"]);

        // `limit 1`: the first in the declared order, ties broken by `_id`.
        let cheapest = repo.cheapest(&min).await.expect("cheapest");
        assert_sent(
            "cheapest",
            &sent,
            usize::from(cheapest.is_some()),
            &["title"],
        );
        let first = reference(&items, |i| i.price >= min, by_price);
        match (cheapest, first.first()) {
            (None, None) => {}
            (Some(Cheapest { id, title }), Some(low)) => {
                assert_eq!(
                    (id, &title),
                    (low.id, &low.title),
                    "cheapest: ties not broken by `_id`"
                );
            }
            (got, want) => panic!("cheapest: {got:?}, expected {want:?}"),
        }

        // Without `returns`: whole documents, on the wire too (the monitor sees them).
        let whole = repo.whole(&min).await.expect("whole");
        assert_sent(
            "whole",
            &sent,
            whole.len(),
            &["title", "price", "rank", "summary", "tags"],
        );
        let expected = reference(&items, |i| i.price >= min, |a, b| b.price.cmp(&a.price));
        assert_eq!(whole.len(), expected.len());
    }
    t.cleanup().await;
}

/// A paged or sorted query's index holds its declared sort keys (in their directions) then `_id`,
/// so the pages' keyset order, and the order that breaks a sorted query's ties, is read from the
/// index, not sorted in memory; a sorted query's Plan sort keys end with `_id`.
#[test]
fn paged_and_sorted_queries_are_served_by_indexes_with_id_after_the_sort_keys() {
    let plan: serde_json::Value = serde_json::from_str(PLAN_JSON).expect("the Plan's JSON");
    let indexes = plan["collections"][0]["indexes"]
        .as_array()
        .expect("indexes");
    let key = |k: &serde_json::Value| (k["path"].to_string(), k["direction"].as_i64());
    let mut paged = 0;
    for q in plan["queries"].as_array().expect("queries") {
        let sort = q["sort"].as_array().expect("sort");
        if !q["limit"].is_null() && sort.is_empty() {
            continue;
        }
        if let Some(last) = sort.last() {
            assert_eq!(
                key(last),
                ("\"_id\"".to_owned(), Some(1)),
                "{}: ties",
                q["name"]
            );
        }
        paged += 1;
        let name = &q["name"];
        let index = indexes
            .iter()
            .find(|i| i["name"] == q["index"])
            .unwrap_or_else(|| panic!("{name}: no index"));
        let keys: Vec<_> = index["keys"]
            .as_array()
            .expect("keys")
            .iter()
            .map(key)
            .collect();
        let mut served: Vec<_> = q["sort"]
            .as_array()
            .expect("sort")
            .iter()
            .map(key)
            .collect();
        if served.is_empty() {
            served.push(("\"_id\"".to_owned(), Some(1)));
        }
        assert!(
            keys.windows(served.len()).any(|w| w == served.as_slice()),
            "{name}: index {keys:?} does not hold its sort keys then `_id`"
        );
    }
    assert_eq!(paged, 7);
}
