//! Defect 2 against the server: a copy of `Product.name` in every placement (`families::copies`:
//! top level, subdocument, embedded array, array in an array, bucket, subset copy, top-N copy,
//! array of extended references, and one inside an embedded array). For every copy the Plan
//! lists, the test writes documents holding copies of two products at that place (each array on
//! the way holding elements of both), calls the generated `set_name` of one product, and checks
//! that exactly its copies changed, everywhere, and nothing else did.

use serde_json::Value;
use squillion::__private::bson::{doc, oid::ObjectId, Bson, Document};
use squillion::__private::mongodb::Database;
use squillion_testkit::TestDb;

/// The field `name` among the Plan fields `fields`.
fn field<'a>(fields: &'a Value, name: &str) -> &'a Value {
    fields
        .as_array()
        .and_then(|a| a.iter().find(|f| f["name"] == name))
        .unwrap_or_else(|| panic!("no field {name} in {fields}"))
}

/// A value for the rest `segments` of a copy's path below `fields`, holding copies of every id in
/// `ids` (an array holds one element per id and one with all of them).
fn holding(fields: &Value, segments: &[&str], ids: &[ObjectId]) -> Bson {
    let f = field(fields, segments[0]);
    let array = f["array_depth"].as_u64().unwrap_or(0) > 0;
    let one = |ids: &[ObjectId]| -> Bson {
        if segments.len() == 2 {
            // The reference itself: `{id, name}`.
            Bson::Document(doc! { "id": ids[0], segments[1]: "old" })
        } else {
            let mut d = Document::new();
            d.insert(segments[1], holding(&f["children"], &segments[1..], ids));
            Bson::Document(d)
        }
    };
    if !array {
        return one(ids);
    }
    let mut items: Vec<Bson> = ids.iter().map(|id| one(std::slice::from_ref(id))).collect();
    if segments.len() > 2 && ids.len() > 1 {
        items.push(one(ids));
    }
    Bson::Array(items)
}

/// `value` with the copies of `id` (an `{id, name}` with this id) holding `name`.
fn renamed(value: &Bson, id: ObjectId, name: &str) -> Bson {
    match value {
        Bson::Document(d) => {
            let mut out = Document::new();
            for (k, v) in d {
                out.insert(k.clone(), renamed(v, id, name));
            }
            if d.get("id") == Some(&Bson::ObjectId(id)) && d.contains_key("name") {
                out.insert("name", name);
            }
            Bson::Document(out)
        }
        Bson::Array(a) => Bson::Array(a.iter().map(|v| renamed(v, id, name)).collect()),
        other => other.clone(),
    }
}

/// Writes copies of `a` and `b` at every place the Plan of `plan_json` keeps a copy of
/// `Product.name`; returns the documents written, by collection.
async fn write_copies(
    db: &Database,
    plan_json: &str,
    a: ObjectId,
    b: ObjectId,
) -> Vec<(String, Document)> {
    let plan: Value = serde_json::from_str(plan_json).unwrap();
    let mut written = Vec::new();
    for d in plan["relationships"].as_array().unwrap() {
        for x in d["denormalized"].as_array().unwrap() {
            if x["source"] != "Product.name" {
                continue;
            }
            let coll = x["collection"].as_str().unwrap();
            let c = plan["collections"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["name"] == coll)
                .unwrap();
            let segments: Vec<&str> = x["copy_path"].as_str().unwrap().split('.').collect();
            let top = segments[0];
            // One document holding copies of both products, one holding only `b`'s.
            for ids in [vec![a, b], vec![b]] {
                let mut doc = doc! { "_id": ObjectId::new() };
                doc.insert(top, holding(&c["fields"], &segments, &ids));
                db.collection::<Document>(coll)
                    .insert_one(&doc)
                    .await
                    .unwrap();
                written.push((coll.to_owned(), doc));
            }
        }
    }
    written
}

async fn check_renamed(db: &Database, written: &[(String, Document)], a: ObjectId, module: &str) {
    for (coll, before) in written {
        let stored = db
            .collection::<Document>(coll)
            .find_one(doc! { "_id": before.get("_id").unwrap() })
            .await
            .unwrap()
            .unwrap();
        let want = renamed(&Bson::Document(before.clone()), a, "new");
        assert_eq!(
            Bson::Document(stored.clone()),
            want,
            "{module}: `{coll}` after set_name: exactly the copies of the renamed product change"
        );
    }
}

macro_rules! every_placement {
    ($($m:ident),* $(,)?) => {{
        let t = TestDb::new("copies").await;
        let db = &t.db;
        let mut places = 0;
        $(
            let module = stringify!($m);
            for c in t.db.list_collection_names().await.unwrap() {
                t.db.collection::<Document>(&c).drop().await.unwrap();
            }
            squillion_correctness::$m::ensure_indexes(db).await.unwrap();
            let (a, b) = (ObjectId::new(), ObjectId::new());
            db.collection::<Document>("products")
                .insert_many([doc! { "_id": a, "name": "old" }, doc! { "_id": b, "name": "old" }])
                .await
                .unwrap();
            let written = write_copies(db, squillion_correctness::$m::PLAN_JSON, a, b).await;
            assert!(
                written.len() >= 2,
                "{module}: the Plan keeps a copy of Product.name somewhere"
            );
            places += written.len() / 2;
            let report = squillion_correctness::$m::ProductRepo::new(db)
                .set_name(&a, &"new".to_owned())
                .await
                .unwrap_or_else(|e| panic!("{module}: set_name: {e}"));
            // Every place holds one document with copies of `a`.
            assert_eq!(
                report.copies_modified as usize,
                written.len() / 2,
                "{module}: {report:?}"
            );
            check_renamed(db, &written, a, module).await;
            let product = db
                .collection::<Document>("products")
                .find_one(doc! { "_id": a })
                .await
                .unwrap()
                .unwrap();
            assert_eq!(product.get_str("name").unwrap(), "new", "{module}");
        )*
        t.cleanup().await;
        places
    }};
}

#[tokio::test]
async fn set_name_reaches_every_copy_wherever_it_is_placed() {
    let places = every_placement!(
        copy_top,
        copy_subdocument,
        copy_array,
        copy_nested,
        copy_bucket,
        copy_subset,
        copy_top_n,
        copy_references,
        copy_references_in_array,
    );
    // The subset and top-N schemas copy into the child's collection and into the parent's list.
    assert_eq!(places, 11);
}
