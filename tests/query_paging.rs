//! Keyset pages and streams of declared queries against the server: for random documents (ties,
//! missing and null sort keys, nested paths), random sorts (one or two keys, either direction),
//! filters and page sizes, the pages read one after another are exactly the full query sorted by
//! the declared keys and then `_id`, and the stream yields the query's documents in its order.
//!
//! Run with `scripts/with-server.sh cargo test --test query_paging`.

use futures::TryStreamExt;
use proptest::prelude::*;
use squillion::__private::paging;
use squillion::bson::{doc, Bson, Document};
use squillion::mongodb::Collection;
use squillion_testkit::TestDb;

/// One stored document: each key may be missing, null or one of few values (many ties).
fn document() -> impl Strategy<Value = Document> {
    let a = prop_oneof![
        Just(None),
        Just(Some(Bson::Null)),
        (0..3i32).prop_map(|v| Some(Bson::Int32(v)))
    ];
    let b = prop_oneof![
        Just(None),
        prop::sample::select(vec!["x", "y", "z"]).prop_map(|v| Some(Bson::String(v.into())))
    ];
    let d = prop_oneof![Just(None), (0..2i64).prop_map(|v| Some(Bson::Int64(v)))];
    (a, b, d).prop_map(|(a, b, d)| {
        let mut doc = Document::new();
        if let Some(a) = a {
            doc.insert("a", a);
        }
        if let Some(b) = b {
            doc.insert("b", b);
        }
        if let Some(d) = d {
            doc.insert("c", doc! { "d": d });
        }
        doc
    })
}

/// A declared sort: up to two distinct keys, each ascending or descending.
fn sort() -> impl Strategy<Value = Option<Document>> {
    let key = (
        prop::sample::select(vec!["a", "b", "c.d", "_id"]),
        any::<bool>(),
    );
    prop::collection::vec(key, 0..3).prop_map(|keys| {
        if keys.is_empty() {
            return None;
        }
        let mut sort = Document::new();
        for (k, asc) in keys {
            if !sort.contains_key(k) {
                sort.insert(k, if asc { 1 } else { -1 });
            }
        }
        Some(sort)
    })
}

fn filter() -> impl Strategy<Value = Document> {
    prop_oneof![
        Just(doc! {}),
        Just(doc! { "b": { "$ne": "z" } }),
        Just(doc! { "a": { "$gte": 1 } }),
    ]
}

async fn all(c: &Collection<Document>, filter: Document, sort: Document) -> Vec<Document> {
    c.find(filter)
        .sort(sort)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

fn key_values(doc: &Document, sort: &Option<Document>) -> Vec<Bson> {
    let keys: Vec<String> = sort.iter().flat_map(|s| s.keys().cloned()).collect();
    keys.iter()
        .map(|k| {
            let mut v = Bson::Document(doc.clone());
            for part in k.split('.') {
                v = match v {
                    Bson::Document(d) => d.get(part).cloned().unwrap_or(Bson::Null),
                    _ => Bson::Null,
                };
            }
            v
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn pages_read_in_turn_are_the_full_query_in_its_order(
        docs in prop::collection::vec(document(), 0..40),
        sort in sort(),
        filter in filter(),
        per_page in 1u32..8,
        returns in prop::option::of(prop::sample::subsequence(vec!["a", "b", "c"], 1..3)),
    ) {
        // A query's `returns`: the projection `{_id: 1, f: 1, ...}`.
        let projection = returns.as_ref().map(|fields| {
            let mut p = doc! { "_id": 1 };
            for f in fields {
                p.insert(*f, 1);
            }
            p
        });
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let t = TestDb::new("query_paging").await;
            let c = t.db.collection::<Document>("items");
            if !docs.is_empty() {
                c.insert_many(docs.clone()).await.unwrap();
            }
            let expected = all(&c, filter.clone(), paging::keyset_sort(sort.clone())).await;

            let mut read: Vec<Document> = Vec::new();
            let mut cursor = None;
            let mut pages = 0;
            loop {
                let page = paging::page(&c, filter.clone(), sort.clone(), None, cursor.as_ref(), per_page, projection.clone())
                    .await
                    .unwrap();
                // Projected pages hold the returned fields and the sort keys their cursor reads.
                if let Some(fields) = &returns {
                    let sorted = paging::keyset_sort(sort.clone());
                    for d in &page.items {
                        for k in d.keys() {
                            let top = |p: &str| p.split('.').next() == Some(k.as_str());
                            assert!(
                                fields.contains(&k.as_str()) || sorted.keys().any(|s| top(s)),
                                "{k} was not projected: {d}"
                            );
                        }
                    }
                }
                pages += 1;
                assert!(page.items.len() <= per_page as usize);
                assert!(page.next.is_none() || page.items.len() == per_page as usize, "a short page is the last");
                read.extend(page.items);
                match page.next {
                    Some(next) => cursor = Some(next),
                    None => break,
                }
                assert!(pages <= docs.len() + 1, "paging does not end");
            }
            let ids = |v: &[Document]| v.iter().map(|d| d.get("_id").cloned()).collect::<Vec<_>>();
            assert_eq!(ids(&read), ids(&expected), "sort {sort:?}, filter {filter:?}, per page {per_page}");

            // The stream: the query's documents, in the declared order of its keys.
            let streamed: Vec<Document> = paging::stream(c.clone(), filter.clone(), sort.clone(), None, None, None)
                .try_collect()
                .await
                .unwrap();
            let keys = |v: &[Document]| v.iter().map(|d| key_values(d, &sort)).collect::<Vec<_>>();
            assert_eq!(keys(&streamed), keys(&expected));
            let mut a = ids(&streamed);
            let mut b = ids(&expected);
            a.sort_by_key(|x| format!("{x:?}"));
            b.sort_by_key(|x| format!("{x:?}"));
            assert_eq!(a, b);
            t.cleanup().await;
        });
    }
}

#[tokio::test]
async fn a_cursor_of_another_query_is_refused() {
    let t = TestDb::new("query_paging_cursor").await;
    let c = t.db.collection::<Document>("items");
    c.insert_many(vec![doc! { "a": 1 }, doc! { "a": 2 }])
        .await
        .unwrap();
    let page = paging::page(&c, doc! {}, Some(doc! { "a": -1 }), None, None, 1, None)
        .await
        .unwrap();
    let next = page.next.expect("a second page");
    let err = paging::page(
        &c,
        doc! {},
        Some(doc! { "b": 1 }),
        None,
        Some(&next),
        1,
        None,
    )
    .await
    .unwrap_err();
    assert!(
        matches!(err, squillion::Error::InvalidCursor { .. }),
        "{err}"
    );
    t.cleanup().await;
}
