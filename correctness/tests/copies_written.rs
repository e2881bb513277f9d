//! Issue 11 against the server: a document holding references with copies never stores the
//! caller's copy values. For every module whose Plan keeps copies (the `copy_*` family: top
//! level, subdocument, embedded array, array in an array, bucket, subset and top-N copies, arrays
//! of extended references, and those inside embedded arrays; the subsets whose children copy a
//! product; the examples; the generated schemas), and every collection holding copies, the test
//! builds documents whose every copy holds a forged value, writes them through the typed
//! repository (`insert`, `insert_many`, `replace`), and checks that every stored copy equals its
//! source. A reference naming no stored source is refused with `Error::MissingReference` and
//! nothing is written.

use std::collections::BTreeMap;

use serde_json::Value;
use squillion::__private::bson::{doc, oid::ObjectId, Bson, DateTime, Document};
use squillion::__private::mongodb::Database;
use squillion_testkit::{documents as all, TestDb};

/// `(holder collection, copy path with `[]` marks, source collection, source field)`.
type Copy = (String, String, String, String);

fn collection<'a>(plan: &'a Value, name: &str) -> &'a Value {
    plan["collections"]
        .as_array()
        .and_then(|a| a.iter().find(|c| c["name"] == name))
        .unwrap_or_else(|| panic!("no collection {name}"))
}

/// Every copy the Plan keeps.
fn copies(plan: &Value) -> Vec<Copy> {
    let mut out = Vec::new();
    for d in plan["relationships"].as_array().unwrap() {
        for x in d["denormalized"].as_array().unwrap() {
            let (entity, field) = x["source"].as_str().unwrap().split_once('.').unwrap();
            let home = plan["collections"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["role"]["kind"] == "entity" && c["entity"] == entity)
                .unwrap_or_else(|| panic!("no home of {entity}"));
            let stored = home["fields"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["name"] == field || f["code_name"] == field)
                .unwrap_or_else(|| panic!("no field {field} in {entity}"));
            let fan = &x["fan_out"];
            // The copy path with its arrays marked, from the fan-out's positional operators.
            let mut marked = fan["set_path"].as_str().unwrap().to_owned();
            for level in 0..fan["array_filters"].as_array().map_or(0, Vec::len) {
                let ident = if level == 0 {
                    "elem".to_owned()
                } else {
                    format!("elem{level}")
                };
                marked = marked.replacen(&format!(".$[{ident}]"), "[]", 1);
            }
            let c = (
                fan["collection"].as_str().unwrap().to_owned(),
                marked,
                home["name"].as_str().unwrap().to_owned(),
                stored["name"].as_str().unwrap().to_owned(),
            );
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out
}

/// A value of a field's BSON type (`n` makes values differ).
fn value_of(f: &Value, n: i64) -> Bson {
    match f["bson_type"].as_str().unwrap_or("") {
        "string" => Bson::String(format!("v{n}")),
        "int" => Bson::Int32(i32::try_from(n % 1000).unwrap()),
        "long" => Bson::Int64(n),
        "double" => Bson::Double(n as f64),
        "bool" => Bson::Boolean(n % 2 == 0),
        "date" => Bson::DateTime(DateTime::from_millis(1_700_000_000_000 + n)),
        "objectId" => {
            // Deterministic: a document built twice keeps its ids.
            let mut bytes = [0x5a; 12];
            bytes[4..].copy_from_slice(&n.to_be_bytes());
            Bson::ObjectId(ObjectId::from_bytes(bytes))
        }
        "object" => Bson::Document(document_of(&f["children"], n)),
        "decimal" => format!("{n}.5")
            .parse()
            .map_or(Bson::Null, Bson::Decimal128),
        "binData" => Bson::Binary(squillion::__private::bson::Binary {
            subtype: squillion::__private::bson::spec::BinarySubtype::Generic,
            bytes: n.to_be_bytes().to_vec(),
        }),
        // A type this builder does not make: the typed read refuses the document and the
        // holder is skipped (never in the `copy_*` family).
        _ => Bson::Null,
    }
}

/// A document of `fields`: every required field, arrays empty.
fn document_of(fields: &Value, n: i64) -> Document {
    let mut d = Document::new();
    for f in fields.as_array().unwrap() {
        let name = f["name"].as_str().unwrap();
        if f["optional"] == true {
            continue;
        }
        if f["array_depth"].as_u64().unwrap_or(0) > 0 {
            d.insert(name, Bson::Array(vec![]));
        } else {
            d.insert(name, value_of(f, n));
        }
    }
    d
}

fn field<'a>(fields: &'a Value, name: &str) -> &'a Value {
    fields
        .as_array()
        .and_then(|a| a.iter().find(|f| f["name"] == name))
        .unwrap_or_else(|| panic!("no field {name} in {fields}"))
}

/// A number no other new element was built with (unique values stay unique).
fn fresh() -> i64 {
    static NEXT: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(10_000);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Puts, in `doc` (a document of `fields`), a reference to each of `ids` at the copy path
/// `segments` (arrays marked), its copy holding `forged`: an array on the way gets one element per
/// id.
fn place(doc: &mut Document, fields: &Value, segments: &[&str], ids: &[Bson], forged: &Bson) {
    let name = segments[0].trim_end_matches("[]");
    let f = field(fields, name);
    let array = segments[0].ends_with("[]");
    if segments.len() == 2 {
        // `name` is the reference (or an array of them): `{id, copy}`.
        let node = |id: &Bson, existing: Option<&Bson>| {
            let mut r = match existing {
                Some(Bson::Document(d)) => d.clone(),
                _ => document_of(&f["children"], fresh()),
            };
            r.insert("id", id.clone());
            r.insert(segments[1], forged.clone());
            Bson::Document(r)
        };
        let v = if array {
            let old = doc.get_array(name).cloned().unwrap_or_default();
            Bson::Array(
                ids.iter()
                    .enumerate()
                    .map(|(k, id)| node(id, old.get(k)))
                    .collect(),
            )
        } else {
            node(&ids[0], doc.get(name))
        };
        doc.insert(name, v);
        return;
    }
    let children = &f["children"];
    if array {
        let mut items = doc.get_array(name).cloned().unwrap_or_default();
        for (k, id) in ids.iter().enumerate() {
            if items.len() <= k {
                items.push(Bson::Document(document_of(children, fresh())));
            }
            if let Some(Bson::Document(item)) = items.get_mut(k) {
                place(
                    item,
                    children,
                    &segments[1..],
                    std::slice::from_ref(id),
                    forged,
                );
            }
        }
        doc.insert(name, items);
    } else {
        let mut sub = doc
            .get_document(name)
            .cloned()
            .unwrap_or_else(|_| document_of(children, fresh()));
        place(&mut sub, children, &segments[1..], ids, forged);
        doc.insert(name, sub);
    }
}

/// Every `(id, copy)` at copy path `segments` of `v`.
fn held(v: &Bson, segments: &[&str], out: &mut Vec<(Bson, Option<Bson>)>) {
    match v {
        Bson::Array(a) => a.iter().for_each(|x| held(x, segments, out)),
        Bson::Document(d) => {
            if segments.len() == 1 {
                if let Some(id) = d.get("id") {
                    out.push((id.clone(), d.get(segments[0]).cloned()));
                }
            } else if let Some(x) = d.get(segments[0].trim_end_matches("[]")) {
                held(x, &segments[1..], out);
            }
        }
        _ => {}
    }
}

/// Every copy stored in `holder` equals its source's field; returns how many were checked.
async fn check(
    db: &Database,
    module: &str,
    holder: &str,
    held_copies: &[&Copy],
    what: &str,
) -> usize {
    let mut checked = 0;
    for doc in all(db, holder).await.unwrap() {
        // The sources written behind the repository's back (a holder of its own kind) are not
        // the test's writes.
        if doc.get_str("_marker") == Ok("source") {
            continue;
        }
        for (_, path, source, field) in held_copies {
            let segments: Vec<&str> = path.split('.').collect();
            let mut found = Vec::new();
            held(&Bson::Document(doc.clone()), &segments, &mut found);
            for (id, copy) in found {
                let src = db
                    .collection::<Document>(source)
                    .find_one(doc! { "_id": id.clone() })
                    .await
                    .unwrap()
                    .unwrap_or_else(|| {
                        panic!("{module}: {what}: `{holder}.{path}` names {id}, not in `{source}`")
                    });
                assert_eq!(
                    copy.as_ref(),
                    src.get(field),
                    "{module}: {what}: the copy `{holder}.{path}` of {id} is the source's `{field}`, not the caller's value"
                );
                checked += 1;
            }
        }
    }
    checked
}

#[tokio::test]
async fn every_write_of_a_document_takes_its_copies_from_their_sources() {
    let t = TestDb::new("copies_written").await;
    let db = &t.db;
    let mut checked = 0;
    let mut modules = 0;
    let mut skipped = 0;
    for module in squillion_correctness::MODULES {
        let plan: Value =
            serde_json::from_str(squillion_correctness::plan_json(module).unwrap()).unwrap();
        let all_copies = copies(&plan);
        if all_copies.is_empty() {
            continue;
        }
        modules += 1;
        let mut holders: BTreeMap<&str, Vec<&Copy>> = BTreeMap::new();
        for c in &all_copies {
            holders.entry(c.0.as_str()).or_default().push(c);
        }
        for (holder, held_copies) in holders {
            for c in t.db.list_collection_names().await.unwrap() {
                t.db.collection::<Document>(&c).drop().await.unwrap();
            }
            squillion_correctness::ensure_indexes(module, db)
                .await
                .unwrap()
                .unwrap();
            // Stored documents of each source collection.
            let mut sources: BTreeMap<&str, Vec<Bson>> = BTreeMap::new();
            for (_, _, source, _) in &held_copies {
                if sources.contains_key(source.as_str()) {
                    continue;
                }
                let c = collection(&plan, source);
                let mut ids = Vec::new();
                // Three: a copy under a unique index names a different source in each of the
                // three documents stored at once.
                for n in [11, 12, 13] {
                    let mut d = document_of(&c["fields"], n);
                    let id = value_of(field(&c["fields"], "_id"), n * 7919);
                    d.insert("_id", id.clone());
                    d.insert("_marker", "source");
                    db.collection::<Document>(source)
                        .insert_one(d)
                        .await
                        .unwrap();
                    ids.push(id);
                }
                sources.insert(source.as_str(), ids);
            }
            let c = collection(&plan, holder);
            let forged_doc = |n: i64, dangling: bool| {
                let mut d = document_of(&c["fields"], n);
                d.insert("_id", value_of(field(&c["fields"], "_id"), n));
                for (_, path, source, field_name) in &held_copies {
                    let src = collection(&plan, source);
                    let forged = value_of(field(&src["fields"], field_name), 900 + n);
                    let ids = if dangling {
                        vec![value_of(field(&src["fields"], "_id"), 424_242 + n)]
                    } else {
                        let mut ids = sources[source.as_str()].clone();
                        let k = usize::try_from(n).unwrap() % ids.len();
                        ids.rotate_left(k);
                        ids
                    };
                    let segments: Vec<&str> = path.split('.').collect();
                    place(&mut d, &c["fields"], &segments, &ids, &forged);
                }
                d
            };
            let write = |how: &'static str, docs: Vec<Document>| async move {
                squillion_correctness::write_raw(module, db, holder, how, docs)
                    .await
                    .unwrap_or_else(|| panic!("{module}: no typed writes of `{holder}`"))
            };
            // A dangling reference: refused, nothing written (the holder may hold its own
            // sources: a reference to its own kind).
            let stored = all(db, holder).await.unwrap();
            match write("insert", vec![forged_doc(1, true)]).await {
                Err(squillion::Error::MissingReference { .. }) => {}
                Err(squillion::Error::Deserialize(e)) if !module.starts_with("copy_") => {
                    // The builder's document is not one of the type (an enum, a range, a
                    // variant): the holder is left to the typed tests and the model checker.
                    eprintln!("copies_written: {module}: `{holder}` skipped: {e}");
                    skipped += 1;
                    continue;
                }
                other => panic!(
                    "{module}: insert into `{holder}` of a reference to no document: {other:?}"
                ),
            }
            assert!(
                all(db, holder).await.unwrap() == stored,
                "{module}: a refused insert wrote nothing"
            );
            match write(
                "insert_many",
                vec![forged_doc(2, false), forged_doc(3, true)],
            )
            .await
            {
                Err(squillion::Error::MissingReference { .. }) => {}
                other => panic!(
                    "{module}: insert_many into `{holder}` with a dangling reference: {other:?}"
                ),
            }
            assert!(
                all(db, holder).await.unwrap() == stored,
                "{module}: a refused insert_many wrote nothing"
            );
            write("insert", vec![forged_doc(4, false)])
                .await
                .unwrap_or_else(|e| panic!("{module}: insert into `{holder}`: {e}"));
            checked += check(db, module, holder, &held_copies, "insert").await;
            write(
                "insert_many",
                vec![forged_doc(5, false), forged_doc(6, false)],
            )
            .await
            .unwrap_or_else(|e| panic!("{module}: insert_many into `{holder}`: {e}"));
            checked += check(db, module, holder, &held_copies, "insert_many").await;
            // The replacement forges other values; a dangling one is refused and changes nothing.
            let mut again = forged_doc(4, false);
            place_forged_again(&mut again);
            write("replace", vec![again])
                .await
                .unwrap_or_else(|e| panic!("{module}: replace in `{holder}`: {e}"));
            checked += check(db, module, holder, &held_copies, "replace").await;
            let before = all(db, holder).await.unwrap();
            match write("replace", vec![forged_doc(4, true)]).await {
                Err(squillion::Error::MissingReference { .. }) => {}
                other => {
                    panic!("{module}: replace in `{holder}` with a dangling reference: {other:?}")
                }
            }
            assert_eq!(
                all(db, holder).await.unwrap(),
                before,
                "{module}: a refused replace wrote nothing"
            );
        }
    }
    eprintln!("copies_written: {modules} modules, {checked} stored copies checked, {skipped} holders skipped");
    assert!(
        modules >= 10,
        "the family holds copies in every placement ({modules} modules)"
    );
    assert!(checked >= 50, "copies were written and checked ({checked})");
}

/// Changes every string in `d` that a forged copy holds (`v9..`) to another forged value.
fn place_forged_again(d: &mut Document) {
    fn walk(v: &mut Bson) {
        match v {
            Bson::String(s) if s.starts_with("v9") => *s = format!("{s}-again"),
            Bson::Document(d) => d.iter_mut().for_each(|(_, v)| walk(v)),
            Bson::Array(a) => a.iter_mut().for_each(walk),
            _ => {}
        }
    }
    d.iter_mut().for_each(|(_, v)| walk(v));
}

/// Two stored products, `alpha` and `beta`, in a fresh database holding module `m`'s collections.
async fn products(t: &TestDb, module: &str) -> (ObjectId, ObjectId) {
    for c in t.db.list_collection_names().await.unwrap() {
        t.db.collection::<Document>(&c).drop().await.unwrap();
    }
    squillion_correctness::ensure_indexes(module, &t.db)
        .await
        .unwrap()
        .unwrap();
    let (a, b) = (ObjectId::new(), ObjectId::new());
    t.db.collection::<Document>("products")
        .insert_many([
            doc! { "_id": a, "name": "alpha" },
            doc! { "_id": b, "name": "beta" },
        ])
        .await
        .unwrap();
    (a, b)
}

fn refused<T: std::fmt::Debug>(r: squillion::Result<T>, what: &str) {
    match r {
        Err(squillion::Error::MissingReference { ref collection, .. })
            if collection == "products" => {}
        other => panic!("{what} with a reference to no product: {other:?}"),
    }
}

/// The methods that write one reference or one element holding references: a setter, an
/// embedded array's push and set, an array of extended references' push, a bucket's append.
#[tokio::test]
async fn every_typed_write_of_a_reference_takes_its_copies_from_the_source() {
    let t = TestDb::new("copies_typed").await;
    let db = &t.db;
    let missing = ObjectId::new();
    {
        use squillion_correctness::copy_top::{Line, LineRepo, ProductRef};
        let (a, b) = products(&t, "copy_top").await;
        let r = |id: ObjectId| ProductRef {
            id,
            name: "forged".into(),
        };
        let lines = LineRepo::new(db);
        let line = Line {
            id: ObjectId::new(),
            qty: 1,
            product: r(a),
        };
        lines.insert(&line).await.unwrap();
        assert_eq!(
            lines.get(&line.id).await.unwrap().unwrap().product.name,
            "alpha"
        );
        lines.set_product(&line.id, &r(b)).await.unwrap();
        let stored = lines.get(&line.id).await.unwrap().unwrap();
        assert_eq!(
            (stored.product.id, stored.product.name.as_str()),
            (b, "beta")
        );
        refused(
            lines.set_product(&line.id, &r(missing)).await,
            "set_product",
        );
        assert_eq!(
            lines.get(&line.id).await.unwrap(),
            Some(stored),
            "a refused set writes nothing"
        );
    }
    {
        use squillion_correctness::copy_array::{Line, Order, OrderRepo, ProductRef};
        let (a, b) = products(&t, "copy_array").await;
        let line = |id: ObjectId| Line {
            qty: 2,
            product: ProductRef {
                id,
                name: "forged".into(),
            },
        };
        let orders = OrderRepo::new(db);
        let order = Order {
            id: ObjectId::new(),
            number: 1,
            lines: vec![line(b)].try_into().unwrap(),
        };
        orders.insert(&order).await.unwrap();
        orders.push_lines(&order.id, &line(a)).await.unwrap();
        let names = |o: &Order| {
            o.lines
                .iter()
                .map(|l| l.product.name.clone())
                .collect::<Vec<_>>()
        };
        let stored = orders.get(&order.id).await.unwrap().unwrap();
        assert_eq!(names(&stored), ["beta", "alpha"]);
        refused(
            orders.push_lines(&order.id, &line(missing)).await,
            "push_lines",
        );
        refused(
            orders.set_lines(&order.id, &[line(a), line(missing)]).await,
            "set_lines",
        );
        assert_eq!(orders.get(&order.id).await.unwrap().as_ref(), Some(&stored));
        orders
            .set_lines(&order.id, &[line(a), line(b), line(a)])
            .await
            .unwrap();
        let stored = orders.get(&order.id).await.unwrap().unwrap();
        assert_eq!(names(&stored), ["alpha", "beta", "alpha"]);
    }
    {
        use squillion_correctness::copy_references::{Order, OrderRepo, ProductRef};
        let (a, b) = products(&t, "copy_references").await;
        let r = |id: ObjectId| ProductRef {
            id,
            name: "forged".into(),
        };
        let orders = OrderRepo::new(db);
        let order = Order {
            id: ObjectId::new(),
            number: 1,
            products: vec![r(a)].try_into().unwrap(),
        };
        orders.insert(&order).await.unwrap();
        orders.push_products(&order.id, &r(b)).await.unwrap();
        let stored = orders.get(&order.id).await.unwrap().unwrap();
        let names: Vec<_> = stored.products.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["alpha", "beta"]);
        refused(
            orders.push_products(&order.id, &r(missing)).await,
            "push_products",
        );
        assert_eq!(orders.get(&order.id).await.unwrap(), Some(stored));
    }
    {
        use squillion_correctness::copy_bucket::{ProductRef, Reading, SensorReadingsBucketRepo};
        let (a, _) = products(&t, "copy_bucket").await;
        let reading = |id: ObjectId| Reading {
            at: DateTime::from_millis(1_700_000_000_000),
            v: 1.0,
            product: ProductRef {
                id,
                name: "forged".into(),
            },
        };
        let buckets = SensorReadingsBucketRepo::new(db);
        let sensor = ObjectId::new();
        refused(
            buckets.append_readings(&sensor, &reading(missing)).await,
            "append_readings",
        );
        assert!(
            all(db, "sensor_readings").await.unwrap().is_empty(),
            "a refused append writes nothing"
        );
        buckets.append_readings(&sensor, &reading(a)).await.unwrap();
        let stored = all(db, "sensor_readings").await.unwrap();
        let mut found = Vec::new();
        held(
            &Bson::Document(stored[0].clone()),
            &["readings", "product", "name"],
            &mut found,
        );
        assert_eq!(
            found,
            [(Bson::ObjectId(a), Some(Bson::String("alpha".into())))]
        );
    }
}
