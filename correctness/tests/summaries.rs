//! Defect 3 against the server: every summary the Plan keeps (count, total, max, min, and the
//! total and count an average is read from) equals the aggregate recomputed from what it
//! summarises after every generated write that adds or removes a child: push, remove, pull and
//! set of an embedded array; the subset's push beside `latest N` (summaries of all the children,
//! recomputed from the children's collection).

use serde_json::Value;
use squillion::__private::arrays::Summary;
use squillion::__private::bson::{doc, oid::ObjectId, Bson, DateTime, Document};
use squillion::__private::mongodb::Database;
use squillion::__private::summaries::summarise;
use squillion_correctness::{summary_embed, summary_latest};
use squillion_testkit::{Lcg, TestDb};

/// `(path, summary)` of every summary the Plan stores in `collection`.
fn summaries(plan_json: &str, collection: &str) -> Vec<(String, String, Option<String>)> {
    let plan: Value = serde_json::from_str(plan_json).unwrap();
    let mut out = Vec::new();
    for d in plan["relationships"].as_array().unwrap() {
        for x in d["computed"].as_array().unwrap() {
            if x["collection"] != collection || x["function"]["fn"] != "summary" {
                continue;
            }
            let f = x["function"]["summary"].as_str().unwrap().to_owned();
            if f == "avg" {
                continue; // never stored: read as total over count
            }
            out.push((
                x["path"].as_str().unwrap().to_owned(),
                f,
                x["field"].as_str().map(str::to_owned),
            ));
        }
    }
    assert!(!out.is_empty(), "the Plan keeps summaries in {collection}");
    out
}

fn summary(f: &str, field: Option<&'static str>) -> Summary {
    match (f, field) {
        ("count", _) => Summary::Count,
        ("total", Some(x)) => Summary::Sum(x),
        ("max", Some(x)) => Summary::Max(x),
        ("min", Some(x)) => Summary::Min(x),
        other => panic!("unexpected summary {other:?}"),
    }
}

/// Asserts the stored summaries of `doc` equal the aggregates of `children`.
fn assert_summaries(
    plan_json: &str,
    collection: &str,
    doc: &Document,
    children: &[Bson],
    step: &str,
) {
    for (path, f, field) in summaries(plan_json, collection) {
        let field: Option<&'static str> = field.map(|x| &*Box::leak(x.into_boxed_str()));
        let want = summarise(summary(&f, field), children, None);
        let have = doc.get(&path);
        let same = match (&want, have) {
            (None, None | Some(Bson::Null)) => true,
            (Some(w), Some(h)) => {
                let num = |v: &Bson| match v {
                    Bson::Int32(x) => Some(f64::from(*x)),
                    Bson::Int64(x) => Some(*x as f64),
                    Bson::Double(x) => Some(*x),
                    _ => None,
                };
                match (num(w), num(h)) {
                    (Some(a), Some(b)) => (a - b).abs() < 1e-9,
                    _ => w == h,
                }
            }
            _ => false,
        };
        assert!(
            same,
            "{step}: `{collection}.{path}` ({f} of {field:?}) holds {have:?}, the children give {want:?}"
        );
    }
}

async fn stored(db: &Database, c: &str, id: ObjectId) -> Document {
    db.collection::<Document>(c)
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
        .unwrap()
}

#[tokio::test]
async fn summaries_of_an_embedded_array_follow_every_write() {
    let t = TestDb::new("summaries_embed").await;
    let db = &t.db;
    summary_embed::ensure_indexes(db).await.unwrap();
    summary_embed::ensure_validators(db).await.unwrap();
    let orders = summary_embed::OrderRepo::new(db);
    let id = ObjectId::new();
    orders
        .insert(&summary_embed::Order {
            id,
            number: 1,
            lines: squillion::BoundedVec::new(),
            lines_count: 0,
            lines_total_qty: 0,
            lines_max: None,
            lines_min: None,
            lines_total_price: 0.0,
        })
        .await
        .unwrap();
    let mut rng = Lcg(11);
    let line = |rng: &mut Lcg| summary_embed::Line {
        qty: rng.below(9) as i32,
        price: rng.below(50) as f64 / 4.0,
    };
    for step in 0..60 {
        let now = stored(db, "orders", id).await;
        let items = now.get_array("lines").unwrap().clone();
        let what = match rng.below(4) {
            0 | 1 if items.len() < 6 => {
                orders.push_lines(&id, &line(&mut rng)).await.unwrap();
                "push"
            }
            2 if !items.is_empty() => {
                let pick = &items[rng.below(items.len() as u64) as usize];
                let item: summary_embed::Line =
                    squillion::__private::bson::from_bson(pick.clone()).unwrap();
                assert!(orders.remove_lines(&id, &item).await.unwrap());
                "remove"
            }
            3 => {
                let n = rng.below(4) as usize;
                let all: Vec<summary_embed::Line> = (0..n).map(|_| line(&mut rng)).collect();
                orders.set_lines(&id, &all).await.unwrap();
                "set"
            }
            _ if !items.is_empty() => {
                let limit = rng.below(9) as i32;
                orders
                    .pull_lines(&id, doc! { "qty": { "$lt": limit } })
                    .await
                    .unwrap();
                "pull"
            }
            _ => continue,
        };
        let after = stored(db, "orders", id).await;
        let children = after.get_array("lines").unwrap().clone();
        assert_summaries(
            summary_embed::PLAN_JSON,
            "orders",
            &after,
            &children,
            &format!("step {step} ({what})"),
        );
    }
    t.cleanup().await;
}

#[tokio::test]
async fn summaries_beside_a_subset_count_every_child() {
    let t = TestDb::new("summaries_latest").await;
    let db = &t.db;
    summary_latest::ensure_indexes(db).await.unwrap();
    summary_latest::ensure_validators(db).await.unwrap();
    let posts = summary_latest::PostRepo::new(db);
    let (a, b) = (ObjectId::new(), ObjectId::new());
    for id in [a, b] {
        let mut post = doc! { "_id": id, "title": "t", "comments": [] };
        for (path, f, _) in summaries(summary_latest::PLAN_JSON, "posts") {
            if f == "count" {
                post.insert(path, 0);
            } else if f == "total" {
                // A total of int32 values is stored as an int64.
                post.insert(path, 0_i64);
            }
        }
        db.collection::<Document>("posts")
            .insert_one(&post)
            .await
            .unwrap();
    }
    let mut rng = Lcg(5);
    for step in 0..20 {
        let parent = if rng.below(2) == 0 { a } else { b };
        let comment = summary_latest::Comment {
            id: ObjectId::new(),
            at: DateTime::from_millis(1_700_000_000_000 + rng.below(100_000) as i64),
            votes: rng.below(20) as i32,
            post: parent,
        };
        posts.push_comments(&parent, &comment).await.unwrap();
        for id in [a, b] {
            let children: Vec<Bson> = db
                .collection::<Document>("comments")
                .find(doc! { "post": id })
                .await
                .unwrap()
                .try_collect::<Vec<Document>>()
                .await
                .unwrap()
                .into_iter()
                .map(Bson::Document)
                .collect();
            let after = stored(db, "posts", id).await;
            assert_summaries(
                summary_latest::PLAN_JSON,
                "posts",
                &after,
                &children,
                &format!("step {step}"),
            );
        }
    }
    t.cleanup().await;
}

use futures::TryStreamExt;
