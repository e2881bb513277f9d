//! The loop from an existing database to its audit is coherent: what `infer` reads as a relation
//! the audit of the draft's plan never calls an unknown field. The families: copies beside a
//! reference, found whatever the collections' order (a source described after its holder) and
//! whatever name they are stored under, beside a plain id or inside an extended reference; and
//! references held by entities embedded in another collection, at any depth, which the audit
//! checks at their path.

use bson::oid::ObjectId;
use bson::{doc, Bson, Document};
use serde_json::Value;
use squillion_cli::infer::{infer as run_infer, Options};

use super::*;

fn options() -> Options {
    Options {
        sample: 1000,
        without: Vec::new(),
    }
}

#[tokio::test]
async fn copies_are_found_in_any_collection_order_under_any_name() {
    let t = TestDb::new("infer_copies_family").await;
    let users: Vec<Document> = (0..30)
        .map(|i| doc! { "_id": ObjectId::new(), "name": format!("user {i}"), "level": i % 4 })
        .collect();
    t.db.collection::<Document>("users")
        .insert_many(users.clone())
        .await
        .unwrap();
    // Holders named before and after `users`, copies beside a plain id and inside an extended
    // reference, under the source's name and under another; one copy in ten stale.
    let mut cases = Vec::new();
    for holder in ["aa_orders", "zz_orders"] {
        for extended in [false, true] {
            for key in ["name", "buyer_name"] {
                let coll = format!("{holder}_{}_{key}", if extended { "ext" } else { "plain" });
                let docs: Vec<Document> = (0..120)
                    .map(|i| {
                        let u = &users[(i * 7) % 30];
                        let id = u.get_object_id("_id").unwrap();
                        let name = u.get_str("name").unwrap();
                        let copy = if i % 10 == 0 {
                            format!("{name} (old)")
                        } else {
                            name.to_owned()
                        };
                        let mut r = doc! { "id": id };
                        r.insert(key, copy.clone());
                        let mut d = doc! { "_id": ObjectId::new(), "total": i as i32 };
                        if extended {
                            d.insert("user", r);
                        } else {
                            d.insert("user", id);
                            d.insert(key, copy);
                        }
                        d
                    })
                    .collect();
                t.db.collection::<Document>(&coll)
                    .insert_many(docs)
                    .await
                    .unwrap();
                cases.push(coll);
            }
        }
    }
    let outcome = run_infer(&t.db, &options(), &|_| {}).await.unwrap();
    for coll in &cases {
        let holder = outcome
            .draft
            .entities
            .iter()
            .find(|e| e.collection.as_deref() == Some(coll.as_str()))
            .unwrap_or_else(|| panic!("{coll}: no entity\n{}", outcome.text))
            .name
            .clone();
        let show = format!("show User.name on {holder}");
        assert!(
            outcome.text.contains(&show),
            "{coll}: `{show}` missing\n{}",
            outcome.text
        );
    }
    t.cleanup().await;
}

#[tokio::test]
async fn references_of_embedded_entities_are_relations_in_the_audit() {
    let t = TestDb::new("infer_embedded_refs").await;
    let products: Vec<Document> = (0..50)
        .map(|i| doc! { "_id": ObjectId::new(), "title": format!("product {i}") })
        .collect();
    t.db.collection::<Document>("products")
        .insert_many(products.clone())
        .await
        .unwrap();
    let product = |i: usize| products[(i * 13) % 50].get_object_id("_id").unwrap();
    // One level down (orders.lines[].product) and two (stores.aisles[].shelves[].product).
    let orders: Vec<Document> = (0..200)
        .map(|i| {
            let lines: Vec<Bson> = (0..1 + i % 5)
                .map(|l| Bson::Document(doc! { "product": product(i + l), "qty": (l + 1) as i32 }))
                .collect();
            doc! { "_id": ObjectId::new(), "number": i as i32, "lines": lines }
        })
        .collect();
    t.db.collection::<Document>("orders")
        .insert_many(orders)
        .await
        .unwrap();
    let stores: Vec<Document> = (0..40)
        .map(|i| {
            let aisles: Vec<Bson> = (0..1 + i % 3)
                .map(|a| {
                    let shelves: Vec<Bson> = (0..1 + (i + a) % 4)
                        .map(|s| {
                            Bson::Document(
                                doc! { "product": product(i * 3 + a * 5 + s), "slot": s as i32 },
                            )
                        })
                        .collect();
                    Bson::Document(doc! { "label": format!("aisle {a}"), "shelves": shelves })
                })
                .collect();
            doc! { "_id": ObjectId::new(), "city": format!("city {i}"), "aisles": aisles }
        })
        .collect();
    t.db.collection::<Document>("stores")
        .insert_many(stores)
        .await
        .unwrap();
    let outcome = run_infer(&t.db, &options(), &|_| {}).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("draft.sqn");
    std::fs::write(&file, &outcome.text).unwrap();
    let f = file.display().to_string();
    let planned = squillion(["plan", f.as_str(), "--json"]).await;
    planned.expect(0, "plan");
    let plan: Value = serde_json::from_str(&planned.stdout).unwrap();
    // Whether the plan keeps a field at a dotted path of a collection.
    let keeps = |coll: &str, path: &str| {
        let mut fields = plan["collections"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == coll)
            .map(|c| c["fields"].clone())
            .unwrap_or(Value::Null);
        for seg in path.split('.') {
            let Some(f) = fields
                .as_array()
                .and_then(|fs| fs.iter().find(|f| f["name"] == seg))
            else {
                return false;
            };
            fields = f["children"].clone();
        }
        true
    };
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
    assert!(
        run.code == 0 || run.code == 1,
        "{}{}",
        run.stdout,
        run.stderr
    );
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let findings = report["findings"].as_array().unwrap();
    for (coll, path, place) in [
        ("orders", "lines.product", "orders.lines[].product"),
        (
            "stores",
            "aisles.shelves.product",
            "stores.aisles[].shelves[].product",
        ),
    ] {
        assert!(
            outcome
                .text
                .contains(&format!("{place} holds the _id of a Product")),
            "{place} is not read as a reference\n{}",
            outcome.text
        );
        let at: Vec<&Value> = findings
            .iter()
            .filter(|x| x["collection"] == coll && x["path"].as_str() == Some(path))
            .collect();
        assert!(
            at.iter().all(|x| x["kind"] != "unknown_field"),
            "{place}: a relation's end called an unknown field\n{at:#?}\n{}",
            outcome.text
        );
        // Where the plan keeps the relation elsewhere, the audit says so at the path, or at an
        // array holding it that the plan lays out otherwise as a whole (`lines`, when the plan
        // keeps the lines in a collection of their own and the order an array of their ids).
        if !keeps(coll, path) {
            let differs_at = |p: &str| {
                findings.iter().any(|x| {
                    x["collection"] == coll
                        && x["kind"] == "layout_differs"
                        && x["path"].as_str() == Some(p)
                })
            };
            let mut places = vec![path.to_owned()];
            let mut prefix = String::new();
            for seg in path.split('.') {
                if !prefix.is_empty() {
                    prefix.push('.');
                }
                prefix.push_str(seg);
                places.push(prefix.clone());
            }
            assert!(
                places.iter().any(|p| differs_at(p)),
                "{place}: the plan keeps nothing here and the audit does not say so\n{findings:#?}"
            );
        }
    }
    t.cleanup().await;
}
