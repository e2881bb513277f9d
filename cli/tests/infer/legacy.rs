//! Hand-made legacy layouts, written with the raw driver: an unbounded embedded array, a
//! reference without an index, copies gone stale. The draft states each fact with its numbers,
//! the plan decides from them, and the audit flags each problem, ranked by what it concerns.

use bson::oid::ObjectId;
use bson::{doc, Bson, DateTime, Document};
use serde_json::Value;

use super::*;

async fn legacy(t: &TestDb) {
    let db = &t.db;
    // The profiler sees the application's reads and writes, as it would in production.
    db.run_command(doc! { "profile": 2 }).await.unwrap();
    let blogs: Vec<Document> = (0..60)
        .map(|i| {
            let n = if i == 0 { 500 } else { (i * 7) % 12 };
            let comments: Vec<Bson> = (0..n)
                .map(|c| {
                    Bson::Document(doc! {
                        "author": format!("reader{}", c % 9),
                        "text": "first!",
                        "at": DateTime::from_millis(c * 1000),
                    })
                })
                .collect();
            doc! { "_id": ObjectId::new(), "title": format!("post {i}"), "comments": comments }
        })
        .collect();
    db.collection::<Document>("blogs")
        .insert_many(blogs)
        .await
        .unwrap();
    let customers: Vec<Document> = (0..40)
        .map(|i| doc! { "_id": ObjectId::new(), "name": format!("Customer {i}"), "city": "Leeds" })
        .collect();
    db.collection::<Document>("customers")
        .insert_many(customers.clone())
        .await
        .unwrap();
    // Orders copy their customer's name; one customer in five was renamed since.
    let orders: Vec<Document> = (0..400)
        .map(|i| {
            let c = &customers[i % 40];
            let name = c.get_str("name").unwrap();
            let copy = if (i % 40) % 5 == 0 {
                format!("{name} (old)")
            } else {
                name.to_owned()
            };
            doc! {
                "_id": ObjectId::new(),
                "customer_id": c.get_object_id("_id").unwrap(),
                "customer_name": copy,
                "total": (i as f64) * 1.5,
            }
        })
        .collect();
    db.collection::<Document>("orders")
        .insert_many(orders)
        .await
        .unwrap();
    // Orders are listed far more often than customers are renamed.
    let orders = db.collection::<Document>("orders");
    for c in customers.iter().take(20) {
        for _ in 0..10 {
            orders
                .find_one(doc! { "customer_id": c.get_object_id("_id").unwrap() })
                .await
                .unwrap();
        }
    }
    // And looked up on their own, by total.
    for i in 0..50 {
        orders
            .find_one(doc! { "total": f64::from(i) * 1.5 })
            .await
            .unwrap();
    }
    db.collection::<Document>("customers")
        .update_one(
            doc! { "_id": customers[0].get_object_id("_id").unwrap() },
            doc! { "$set": { "name": "Customer 0 Ltd" } },
        )
        .await
        .unwrap();
    db.run_command(doc! { "profile": 0 }).await.unwrap();
}

#[tokio::test]
async fn legacy_layouts_are_stated_planned_and_flagged() {
    let t = TestDb::new("infer_legacy").await;
    legacy(&t).await;
    let (run, text, dir) = infer(&t, &[]).await;
    run.expect(0, "infer");
    assert_valid(&dir).await;
    // The unbounded array: its numbers and the class they make.
    assert!(
        text.contains("relation Blog.comments: many(500, typical 6) <-> Comment.blog: one"),
        "{text}"
    );
    assert!(text.contains("max 500 (all 60 blogs counted"), "{text}");
    // The reference and its stale copy, with the ratio the profiler saw.
    assert!(
        text.contains("relation Customer.orders: few(10) <-> Order.customer_id: one"),
        "{text}"
    );
    // One customer in five renamed: about a fifth of the sampled copies are stale.
    let stale: f64 = text
        .lines()
        .find(|l| l.contains("`customer_name` copies Customer.name;"))
        .and_then(|l| l.rsplit_once('(')?.1.split('%').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no stale rate: {text}"));
    assert!((10.0..=35.0).contains(&stale), "{stale}% stale\n{text}");
    assert!(
        text.contains("show Customer.name on Order ratio 250:1"),
        "{text}"
    );
    assert!(text.contains("measured by the profiler"), "{text}");
    // What the profiler saw: orders read on their own, and how often.
    assert!(text.contains("standalone Order"), "{text}");
    assert!(text.contains("query order_by_total on Order {"), "{text}");
    assert!(
        text.contains("measured by the profiler: 50 queries on total"),
        "{text}"
    );

    let file = dir.path().join("draft.sqn");
    let f = file.display().to_string();
    let plan = squillion(["plan", "--json", f.as_str()]).await;
    plan.expect(0, "plan");
    let plan: Value = serde_json::from_str(&plan.stdout).unwrap();
    let decision = |id: &str| {
        plan["relationships"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("{id}"))
    };
    assert!(
        decision("Blog.comments")["outlier"].is_object(),
        "outlier pattern"
    );
    assert!(
        !decision("Customer.orders")["denormalized"]
            .as_array()
            .unwrap()
            .is_empty(),
        "the name is copied (rule 5)"
    );

    let run = squillion([
        "audit",
        f.as_str(),
        "--uri",
        uri().as_str(),
        "--db",
        t.db.name(),
        "--format",
        "json",
    ])
    .await;
    run.expect(1, "audit finds the problems");
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let findings = report["findings"].as_array().unwrap();
    let has = |collection: &str, kind: &str, path: &str| {
        findings.iter().any(|x| {
            x["collection"] == collection && x["kind"] == kind && x["path"].as_str() == Some(path)
        })
    };
    assert!(
        has("blogs", "array_over_bound", "comments"),
        "{findings:#?}"
    );
    // The reference and the lookup by total have no index.
    assert!(
        has("orders", "missing_index", "customer_id.id_1__id_1"),
        "{findings:#?}"
    );
    // Paged queries' indexes end in `_id` (keyset paging is served by the index).
    assert!(
        has("orders", "missing_index", "total_1__id_1"),
        "{findings:#?}"
    );
    // The copy the plan keeps in an extended reference sits beside a plain id.
    assert!(
        has("orders", "unknown_field", "customer_name"),
        "{findings:#?}"
    );
    assert!(
        has("orders", "layout_differs", "customer_id"),
        "{findings:#?}"
    );
    // Ranked by the data each concerns, largest first.
    let bytes: Vec<u64> = findings
        .iter()
        .map(|x| x["cost"]["bytes"].as_u64().unwrap())
        .collect();
    assert!(bytes.windows(2).all(|w| w[0] >= w[1]), "{bytes:?}");
    let ranks: Vec<u64> = findings
        .iter()
        .map(|x| x["cost"]["rank"].as_u64().unwrap())
        .collect();
    assert_eq!(ranks, (1..=findings.len() as u64).collect::<Vec<_>>());
    t.cleanup().await;
}
