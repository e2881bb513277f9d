//! Issue 12 against the server: queries on the attribute pattern (`families::attributes`). For
//! random products with random attribute maps (string, int32, double and bool values; each key
//! present or missing at random), every `has` query's methods (`q`, `q_page` read page after
//! page, `q_stream`, `count_q`, `limit`s, a projection) return what a reference computed here
//! from the inserted products says, in the declared order (ties broken by `_id`). The client
//! records the commands it sends, so the test sees on the wire that each filter is the
//! `$elemMatch` of the attribute (`$all` of two for two attributes of one map); the server holds
//! the index the Plan made for the query, which starts with the pattern's keys, and its `explain`
//! names that index (the test server plans `$elemMatch` on subdocuments as a collection scan
//! whatever the indexes: there the index is checked to serve the attribute's key, see
//! [`explained`]).

use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};

use futures::TryStreamExt;
use squillion::bson::oid::ObjectId;
use squillion::bson::{doc, Bson, Document};
use squillion::mongodb::event::command::CommandEvent;
use squillion::mongodb::event::EventHandler;
use squillion::mongodb::options::ClientOptions;
use squillion::mongodb::{Client, Database};
use squillion_correctness::attributes::{
    ensure_indexes, ColoursAttribute, FlagSet, FlagsAttribute, Product, ProductRepo,
    SizesAttribute, WeightsAttribute, PLAN_JSON,
};
use squillion_testkit::{uri, Lcg};

const COLOUR_KEYS: [&str; 3] = ["body", "trim", "strap"];
const COLOURS: [&str; 4] = ["black", "blue", "blush", "red"];
const SIZE_KEYS: [&str; 3] = ["eu", "uk", "us"];
const WEIGHT_KEYS: [&str; 2] = ["net", "gross"];
const WEIGHTS: [f64; 4] = [0.5, 1.0, 1.5, 2.25];
const FLAG_KEYS: [&str; 2] = ["sale", "new"];
const BRANDS: [&str; 3] = ["acme", "bolt", "core"];

/// The `filter` of every `find` the client sent, in order.
#[derive(Clone, Default)]
struct SentFilters(Arc<Mutex<Vec<Document>>>);

impl SentFilters {
    fn take(&self) -> Vec<Document> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

async fn connect() -> (Database, SentFilters) {
    let mut options = ClientOptions::parse(uri())
        .await
        .unwrap_or_else(|e| panic!("cannot parse SQUILLION_MONGODB_URI: {e}"));
    let sent = SentFilters::default();
    let record = sent.clone();
    options.command_event_handler = Some(EventHandler::callback(move |event| {
        if let CommandEvent::Started(e) = event {
            if e.command_name == "find" {
                let filter = e
                    .command
                    .get_document("filter")
                    .cloned()
                    .unwrap_or_default();
                record
                    .0
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(filter);
            }
        }
    }));
    let client = Client::with_options(options).expect("client");
    let db = client.database(&format!("t_attributes_{}", &ObjectId::new().to_hex()[16..]));
    (db, sent)
}

/// Some of `keys`, each present or not at random, with a value from `value`.
fn some_of<T>(
    r: &mut Lcg,
    keys: &[&str],
    mut value: impl FnMut(&mut Lcg) -> T,
) -> Vec<(String, T)> {
    let mut out = Vec::new();
    for k in keys {
        if r.below(3) > 0 {
            out.push(((*k).to_owned(), value(r)));
        }
    }
    r.shuffle(&mut out);
    out
}

fn products(seed: u64) -> Vec<Product> {
    let mut r = Lcg(seed);
    let count = 10 + r.below(50);
    (0..count)
        .map(|_| Product {
            id: ObjectId::new(),
            // Few SKUs and brands: sort keys tie, `_id` breaks the ties.
            sku: format!("sku{:02}", r.below(12)),
            brand: BRANDS[r.below(3) as usize].to_owned(),
            colours: some_of(&mut r, &COLOUR_KEYS, |r| {
                COLOURS[r.below(4) as usize].to_owned()
            })
            .into_iter()
            .map(|(k, v)| ColoursAttribute { k, v })
            .collect(),
            sizes: some_of(&mut r, &SIZE_KEYS, |r| 36 + r.below(6) as i32)
                .into_iter()
                .map(|(k, v)| SizesAttribute { k, v })
                .collect(),
            weights: some_of(&mut r, &WEIGHT_KEYS, |r| WEIGHTS[r.below(4) as usize])
                .into_iter()
                .map(|(k, v)| WeightsAttribute { k, v })
                .collect(),
            flags: some_of(&mut r, &FLAG_KEYS, |r| r.below(2) == 1)
                .into_iter()
                .map(|(k, v)| FlagsAttribute { k, v })
                .collect(),
        })
        .collect()
}

/// A key to ask for: usually one of `keys`, sometimes one no product has.
fn key(r: &mut Lcg, keys: &[&str]) -> String {
    match r.below(keys.len() as u64 + 1) as usize {
        i if i < keys.len() => keys[i].to_owned(),
        _ => "absent".to_owned(),
    }
}

/// The products `keep` matches, in `order`, ties broken by `_id` (the Plan's sort ends with it).
fn reference(
    all: &[Product],
    keep: impl Fn(&Product) -> bool,
    order: impl Fn(&Product, &Product) -> Ordering,
) -> Vec<Product> {
    let mut out: Vec<Product> = all.iter().filter(|p| keep(p)).cloned().collect();
    out.sort_by(|a, b| order(a, b).then(a.id.cmp(&b.id)));
    out
}

fn ids<T>(items: &[T], id: impl Fn(&T) -> ObjectId) -> Vec<ObjectId> {
    items.iter().map(id).collect()
}

fn by_sku(a: &Product, b: &Product) -> Ordering {
    a.sku.cmp(&b.sku)
}

fn unsorted(_: &Product, _: &Product) -> Ordering {
    Ordering::Equal
}

/// `doc!` of an `$elemMatch` on attribute `key` of map `map`, the value matched by `v`.
fn elem(key: &str, v: Bson) -> Document {
    doc! { "$elemMatch": { "k": key, "v": v } }
}

/// The index names in a reply of `explain` (anywhere in its plans).
fn index_names(reply: &Bson, out: &mut BTreeSet<String>) {
    match reply {
        Bson::Document(d) => {
            for (k, v) in d {
                match (k.as_str(), v) {
                    ("indexName", Bson::String(name)) => {
                        out.insert(name.clone());
                    }
                    _ => index_names(v, out),
                }
            }
        }
        Bson::Array(a) => a.iter().for_each(|v| index_names(v, out)),
        _ => {}
    }
}

/// The index the Plan names for query `name`.
fn planned_index(name: &str) -> String {
    let plan: serde_json::Value = serde_json::from_str(PLAN_JSON).expect("plan");
    plan["queries"]
        .as_array()
        .and_then(|qs| qs.iter().find(|q| q["name"] == name))
        .and_then(|q| q["index"].as_str())
        .unwrap_or_else(|| panic!("the Plan names no index for {name}"))
        .to_owned()
}

/// The server's plan for `filter` (with `sort`) uses the index the Plan made for `query`, which
/// starts with the attribute pattern's keys of `map`, and which the server holds.
///
/// The test server (secantusd-rs 0.5) plans an `$elemMatch` on an array of subdocuments as a
/// collection scan whatever the indexes (MongoDB bounds both keys of the index with it): when its
/// plan names no index, the index is checked to be usable for the attribute's key (`{map.k:
/// key}` is an index scan of an index that starts with the pattern's keys), and the run says so;
/// a plan that names an index must name the Plan's.
async fn explained(
    db: &Database,
    query: &str,
    map: &str,
    key: &str,
    filter: &Document,
    sort: Document,
) {
    let index = planned_index(query);
    let pattern = format!("{map}.k_1_{map}.v_1");
    assert!(
        index.starts_with(&pattern),
        "{query}: the Plan's index {index} does not start with the pattern's keys"
    );
    let held: Vec<String> = db
        .collection::<Document>("products")
        .list_index_names()
        .await
        .expect("listIndexes");
    assert!(
        held.contains(&index),
        "{query}: the server holds {held:?}, not {index}"
    );
    let explain = |filter: Document, sort: Document| async move {
        let mut find = doc! { "find": "products", "filter": filter };
        if !sort.is_empty() {
            find.insert("sort", sort);
        }
        let reply = db
            .run_command(doc! { "explain": find, "verbosity": "queryPlanner" })
            .await
            .unwrap_or_else(|e| panic!("{query}: explain: {e}"));
        let mut names = BTreeSet::new();
        index_names(&Bson::Document(reply.clone()), &mut names);
        (names, reply)
    };
    let (names, reply) = explain(filter.clone(), sort).await;
    if !names.is_empty() {
        assert!(
            names.contains(&index),
            "{query}: the server's plan uses {names:?}, not {index}: {reply:?}"
        );
        return;
    }
    let (names, reply) = explain(doc! { format!("{map}.k"): key }, doc! {}).await;
    assert!(
        !names.is_empty() && names.iter().all(|n| n.starts_with(&pattern)),
        "{query}: the server does not serve `{map}.k` with the pattern's index: {reply:?}"
    );
    eprintln!(
        "{query}: the server plans the `$elemMatch` as a collection scan (secantusd-rs plans no \
         index for `$elemMatch` on subdocuments); indexes that start with the pattern's keys \
         serve `{map}.k`: {names:?}"
    );
}

/// Runs `q`, `q_stream`, every page size of `q_page` and `count_q` of a query without a limit and
/// compares them with `expected` (exactly its order when `sorted`; pages always, which read
/// an unsorted query by `_id`); returns the filter `q` sent.
macro_rules! check_paged {
    ($repo:expr, $sent:expr, $q:ident, $page:ident, $stream:ident, $count:ident,
     ($($arg:expr),*), $expected:expr, sorted: $sorted:expr) => {{
        let query = stringify!($q);
        let expected: Vec<Product> = $expected;
        let want = ids(&expected, |p| p.id);
        let got = $repo.$q($($arg),*).await.expect(query);
        let filters = $sent.take();
        assert_eq!(filters.len(), 1, "{query}: {filters:?}");
        let streamed: Vec<Product> = $repo.$stream($($arg),*).try_collect().await.expect(query);
        for (what, got) in [("q", &got), ("stream", &streamed)] {
            let got = ids(got, |p| p.id);
            if $sorted {
                assert_eq!(got, want, "{query} ({what}): not the reference's order");
            } else {
                let (g, w): (BTreeSet<_>, BTreeSet<_>) =
                    (got.iter().collect(), want.iter().collect());
                assert_eq!((got.len(), g), (want.len(), w), "{query} ({what})");
            }
        }
        for g in &got {
            let inserted = expected.iter().find(|p| p.id == g.id);
            assert_eq!(Some(g), inserted, "{query}: differs from the product inserted");
        }
        let by_pages = if $sorted {
            want.clone()
        } else {
            let mut w = want.clone();
            w.sort();
            w
        };
        for per_page in [1u32, 3, 8] {
            let mut read = Vec::new();
            let mut after = None;
            loop {
                let page = $repo.$page($($arg,)* after.as_ref(), per_page).await.expect(query);
                assert!(page.items.len() <= per_page as usize, "{query}");
                read.extend(page.items.iter().map(|p| p.id));
                match page.next {
                    Some(next) => after = Some(next),
                    None => break,
                }
            }
            assert_eq!(read, by_pages, "{query}: pages of {per_page}");
        }
        $sent.take();
        let counted = $repo.$count($($arg),*).await.expect(query);
        assert_eq!(counted, expected.len() as u64, "{query}: count");
        filters.into_iter().next().unwrap_or_default()
    }};
}

#[tokio::test]
async fn has_queries_return_the_reference_in_order_as_elem_match_on_the_pattern_index() {
    let (db, sent) = connect().await;
    ensure_indexes(&db).await.expect("indexes");
    let repo = ProductRepo::new(&db);
    let mut r = Lcg(1207);
    for round in 0..4u64 {
        db.collection::<Document>("products")
            .delete_many(doc! {})
            .await
            .expect("clear");
        let all = products(31 + round);
        repo.insert_many(&all).await.expect("insert");
        sent.take();
        let explain = round == 0;

        // `==` on a string, sorted, paged.
        let (k, v) = (key(&mut r, &COLOUR_KEYS), COLOURS[r.below(4) as usize]);
        let expected = reference(
            &all,
            |p| p.colours.iter().any(|a| a.k == k && a.v == v),
            by_sku,
        );
        let f = check_paged!(repo, sent, by_colour, by_colour_page, by_colour_stream,
            count_by_colour, (&k, v), expected, sorted: true);
        assert_eq!(
            f,
            doc! { "colours": elem(&k, v.into()) },
            "by_colour's filter"
        );
        if explain {
            explained(
                &db,
                "by_colour",
                "colours",
                &k,
                &f,
                doc! { "sku": 1, "_id": 1 },
            )
            .await;
        }

        // `!=`: an element with this key whose value differs (not "no such value").
        let (k, v) = (key(&mut r, &COLOUR_KEYS), COLOURS[r.below(4) as usize]);
        let expected = reference(
            &all,
            |p| p.colours.iter().any(|a| a.k == k && a.v != v),
            unsorted,
        );
        let f = check_paged!(repo, sent, colour_not, colour_not_page, colour_not_stream,
            count_colour_not, (&k, v), expected, sorted: false);
        assert_eq!(f, doc! { "colours": elem(&k, doc! { "$ne": v }.into()) });

        // `<` on int32, sorted descending, `limit 5`: the first 5, and the stream; the count is
        // all of them.
        let (k, v) = (key(&mut r, &SIZE_KEYS), 36 + r.below(7) as i32);
        let expected = reference(
            &all,
            |p| p.sizes.iter().any(|a| a.k == k && a.v < v),
            |a, b| b.sku.cmp(&a.sku),
        );
        let first: Vec<Product> = expected.iter().take(5).cloned().collect();
        let got = repo.size_below(&k, &v).await.expect("size_below");
        assert_eq!(got, first, "size_below");
        let f = sent.take().into_iter().next().unwrap_or_default();
        assert_eq!(f, doc! { "sizes": elem(&k, doc! { "$lt": v }.into()) });
        let streamed: Vec<Product> = repo
            .size_below_stream(&k, &v)
            .try_collect()
            .await
            .expect("stream");
        assert_eq!(streamed, first, "size_below_stream");
        assert_eq!(
            repo.count_size_below(&k, &v).await.expect("count"),
            expected.len() as u64
        );
        if explain {
            explained(
                &db,
                "size_below",
                "sizes",
                &k,
                &f,
                doc! { "sku": -1, "_id": 1 },
            )
            .await;
        }

        sent.take();

        // `between` on int32 with another condition.
        let (k, lo) = (key(&mut r, &SIZE_KEYS), 36 + r.below(6) as i32);
        let hi = lo + r.below(3) as i32;
        let brand = BRANDS[r.below(3) as usize];
        let expected = reference(
            &all,
            |p| p.brand == brand && p.sizes.iter().any(|a| a.k == k && lo <= a.v && a.v <= hi),
            by_sku,
        );
        let f = check_paged!(repo, sent, size_between, size_between_page, size_between_stream,
            count_size_between, (&k, &lo, &hi, brand), expected, sorted: true);
        assert_eq!(
            f,
            doc! { "brand": brand, "sizes": elem(&k, doc! { "$gte": lo, "$lte": hi }.into()) }
        );
        if explain {
            explained(
                &db,
                "size_between",
                "sizes",
                &k,
                &f,
                doc! { "sku": 1, "_id": 1 },
            )
            .await;
        }

        // `>=` on double, unsorted.
        let (k, w) = (key(&mut r, &WEIGHT_KEYS), WEIGHTS[r.below(4) as usize]);
        let expected = reference(
            &all,
            |p| p.weights.iter().any(|a| a.k == k && a.v >= w),
            unsorted,
        );
        let f = check_paged!(repo, sent, weight_at_least, weight_at_least_page,
            weight_at_least_stream, count_weight_at_least, (&k, &w), expected, sorted: false);
        assert_eq!(f, doc! { "weights": elem(&k, doc! { "$gte": w }.into()) });
        if explain {
            explained(&db, "weight_at_least", "weights", &k, &f, doc! {}).await;
        }

        // `in`, sorted by two keys.
        let k = key(&mut r, &COLOUR_KEYS);
        let wanted: Vec<String> = COLOURS
            .iter()
            .filter(|_| r.below(2) == 0)
            .map(|c| (*c).to_owned())
            .collect();
        let expected = reference(
            &all,
            |p| p.colours.iter().any(|a| a.k == k && wanted.contains(&a.v)),
            |a, b| a.brand.cmp(&b.brand).then(a.sku.cmp(&b.sku)),
        );
        let f = check_paged!(repo, sent, colour_in, colour_in_page, colour_in_stream,
            count_colour_in, (&k, &wanted), expected, sorted: true);
        assert_eq!(
            f,
            doc! { "colours": elem(&k, doc! { "$in": wanted.clone() }.into()) }
        );

        // `starts_with`, `limit 1`: the first by SKU, or none.
        let (k, prefix) = (
            key(&mut r, &COLOUR_KEYS),
            ["bl", "r", "x", ""][r.below(4) as usize],
        );
        let expected = reference(
            &all,
            |p| {
                p.colours
                    .iter()
                    .any(|a| a.k == k && a.v.starts_with(prefix))
            },
            by_sku,
        );
        sent.take();
        let got = repo.colour_prefix(&k, prefix).await.expect("colour_prefix");
        assert_eq!(
            got.as_ref(),
            expected.first(),
            "colour_prefix {k} {prefix:?}"
        );
        assert_eq!(
            repo.count_colour_prefix(&k, prefix).await.expect("count"),
            expected.len() as u64
        );

        // `==` on bool, with a projection: only `_id`, `sku` and `flags` are read.
        let (k, on) = (key(&mut r, &FLAG_KEYS), r.below(2) == 1);
        let expected: Vec<FlagSet> = reference(
            &all,
            |p| p.flags.iter().any(|a| a.k == k && a.v == on),
            by_sku,
        )
        .into_iter()
        .map(|p| FlagSet {
            id: p.id,
            sku: p.sku,
            flags: p.flags,
        })
        .collect();
        let got = repo.flag_set(&k, &on).await.expect("flag_set");
        assert_eq!(got, expected, "flag_set");
        let mut read = Vec::new();
        let mut after = None;
        loop {
            let page = repo
                .flag_set_page(&k, &on, after.as_ref(), 2)
                .await
                .expect("page");
            read.extend(page.items);
            match page.next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
        assert_eq!(read, expected, "flag_set pages");
        sent.take();

        // Two attributes of one map: both present, each matched in one element.
        let (k1, v1) = (key(&mut r, &COLOUR_KEYS), COLOURS[r.below(4) as usize]);
        let (k2, v2) = (key(&mut r, &COLOUR_KEYS), COLOURS[r.below(4) as usize]);
        let expected = reference(
            &all,
            |p| {
                p.colours.iter().any(|a| a.k == k1 && a.v == v1)
                    && p.colours.iter().any(|a| a.k == k2 && a.v == v2)
            },
            by_sku,
        );
        let f = check_paged!(repo, sent, two_colours, two_colours_page, two_colours_stream,
            count_two_colours, (&k1, v1, &k2, v2), expected, sorted: true);
        assert_eq!(
            f,
            doc! { "colours": { "$all": [elem(&k1, v1.into()), elem(&k2, v2.into())] } }
        );
        if explain {
            explained(
                &db,
                "two_colours",
                "colours",
                &k1,
                &f,
                doc! { "sku": 1, "_id": 1 },
            )
            .await;
        }
    }
    let _ = db.drop().await;
}
