//! Defect 6 against the server: every subset (`latest N`) and top-N list of the `subset_*`
//! family holds, after every generated write of a child (push, replace, move to another owner,
//! remove), exactly the copies a reference recomputes from the children's collection: the first N
//! children in the list's order, each copy carrying its child's `_id` and current kept fields and
//! never the reference back to the owner; and every summary equals the aggregate of all the
//! owner's children. Random sequences, several owners, every schema of the family.

use futures::TryStreamExt;
use serde_json::Value;
use squillion::__private::arrays::Summary;
use squillion::__private::bson::{doc, oid::ObjectId, Bson, DateTime, Document};
use squillion::__private::mongodb::Database;
use squillion::__private::summaries::summarise;
use squillion_testkit::{Lcg, TestDb};

/// One list of copies the Plan keeps in `owners`.
#[derive(Debug)]
struct List {
    path: String,
    n: usize,
    sort_by: String,
    descending: bool,
    latest: bool,
    child_id: String,
    keep: Vec<String>,
    parent_key: String,
}

fn lists(plan: &Value) -> Vec<List> {
    let mut out = Vec::new();
    for d in plan["relationships"].as_array().unwrap() {
        let s = &d["subset"];
        if s.is_object() {
            out.push(list(s, &s["path"], true));
        }
        for x in d["computed"].as_array().unwrap() {
            if x["function"]["fn"] == "top_n" {
                out.push(list(&x["function"], &x["path"], false));
            }
        }
    }
    assert!(!out.is_empty(), "the Plan keeps a subset or a top-N list");
    out
}

fn list(s: &Value, path: &Value, latest: bool) -> List {
    let children = &s["children"];
    assert_eq!(
        children["collection"], "items",
        "the Plan says where the children of {path} are read from: {s}"
    );
    List {
        path: path.as_str().unwrap().to_owned(),
        n: s["n"].as_u64().unwrap() as usize,
        sort_by: s["sort_by"].as_str().unwrap().to_owned(),
        descending: s["descending"].as_bool().unwrap(),
        latest,
        child_id: s["child_id"].as_str().unwrap().to_owned(),
        keep: s["keep"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap().to_owned())
            .collect(),
        parent_key: children["parent_key"].as_str().unwrap().to_owned(),
    }
}

/// `(path, function, field)` of every summary the Plan stores in `owners`.
fn summaries(plan: &Value) -> Vec<(String, String, Option<String>)> {
    let mut out = Vec::new();
    for d in plan["relationships"].as_array().unwrap() {
        for x in d["computed"].as_array().unwrap() {
            if x["collection"] == "owners" && x["function"]["fn"] == "summary" {
                let f = x["function"]["summary"].as_str().unwrap().to_owned();
                if f != "avg" {
                    out.push((
                        x["path"].as_str().unwrap().to_owned(),
                        f,
                        x["field"].as_str().map(str::to_owned),
                    ));
                }
            }
        }
    }
    out
}

fn get<'a>(d: &'a Document, path: &str) -> Option<&'a Bson> {
    let mut cur: Option<&Bson> = None;
    for (i, seg) in path.split('.').enumerate() {
        cur = if i == 0 {
            d.get(seg)
        } else {
            cur?.as_document()?.get(seg)
        };
    }
    cur
}

fn num(v: &Bson) -> Option<f64> {
    match v {
        Bson::Int32(x) => Some(f64::from(*x)),
        Bson::Int64(x) => Some(*x as f64),
        Bson::Double(x) => Some(*x),
        _ => None,
    }
}

/// Orders two values of one sort field as MongoDB does for the types the family uses.
fn cmp(a: Option<&Bson>, b: Option<&Bson>) -> std::cmp::Ordering {
    match (a, b) {
        (Some(Bson::DateTime(x)), Some(Bson::DateTime(y))) => x.cmp(y),
        (Some(Bson::String(x)), Some(Bson::String(y))) => x.cmp(y),
        (Some(x), Some(y)) => num(x)
            .partial_cmp(&num(y))
            .unwrap_or(std::cmp::Ordering::Equal),
        _ => std::cmp::Ordering::Equal,
    }
}

async fn all(db: &Database, c: &str, filter: Document) -> Vec<Document> {
    db.collection::<Document>(c)
        .find(filter)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

/// Checks every list and summary of every owner against the children's collection.
async fn check(db: &Database, plan: &Value, owners: &[ObjectId], step: &str) {
    let items = all(db, "items", doc! {}).await;
    for owner in owners {
        let stored = all(db, "owners", doc! { "_id": owner }).await;
        let stored = &stored[0];
        for l in lists(plan) {
            let mut children: Vec<&Document> = items
                .iter()
                .filter(|c| get(c, &l.parent_key) == Some(&Bson::ObjectId(*owner)))
                .collect();
            // latest: the N largest; top: the N first in the declared order.
            let largest_first = l.latest || l.descending;
            children.sort_by(|a, b| {
                let o = cmp(a.get(&l.sort_by), b.get(&l.sort_by));
                if largest_first {
                    o.reverse()
                } else {
                    o
                }
            });
            children.truncate(l.n);
            if l.latest && !l.descending {
                children.reverse();
            }
            let have = stored.get_array(&l.path).unwrap();
            let keys = |v: Vec<Option<&Bson>>| -> Vec<String> {
                v.into_iter().map(|x| format!("{x:?}")).collect()
            };
            let want_keys = keys(children.iter().map(|c| c.get(&l.sort_by)).collect());
            let have_keys = keys(
                have.iter()
                    .map(|c| c.as_document().and_then(|d| d.get(&l.sort_by)))
                    .collect(),
            );
            assert_eq!(
                have_keys, want_keys,
                "{step}: `owners.{}` of {owner} holds {have:?}, its children give {:?}",
                l.path, children
            );
            let owned: Vec<&Bson> = items
                .iter()
                .filter(|c| get(c, &l.parent_key) == Some(&Bson::ObjectId(*owner)))
                .filter_map(|c| c.get("_id"))
                .collect();
            let mut seen = Vec::new();
            for copy in have {
                let copy = copy.as_document().unwrap();
                let id = copy.get(&l.child_id).unwrap_or_else(|| {
                    panic!(
                        "{step}: a copy in `owners.{}` has no child id: {copy}",
                        l.path
                    )
                });
                assert!(
                    owned.contains(&id),
                    "{step}: `owners.{}` of {owner} holds a copy of {id}, which is not one of its children",
                    l.path
                );
                assert!(!seen.contains(&id), "{step}: {id} is copied twice");
                seen.push(id);
                let child = items.iter().find(|c| c.get("_id") == Some(id)).unwrap();
                assert!(
                    copy.get("owner").is_none() && !l.keep.iter().any(|k| k == "owner"),
                    "{step}: the copy {copy} carries the reference back to its owner"
                );
                for k in copy.keys() {
                    assert!(
                        *k == l.child_id || l.keep.contains(k),
                        "{step}: the copy {copy} holds `{k}`, which the Plan does not keep"
                    );
                    assert_eq!(
                        copy.get(k),
                        child.get(k),
                        "{step}: `{k}` of the copy of {id} is stale"
                    );
                }
                for k in &l.keep {
                    assert_eq!(
                        copy.get(k),
                        child.get(k),
                        "{step}: the copy of {id} lacks `{k}`"
                    );
                }
            }
        }
        let children: Vec<Bson> = items
            .iter()
            .filter(|c| {
                lists(plan)
                    .first()
                    .is_some_and(|l| get(c, &l.parent_key) == Some(&Bson::ObjectId(*owner)))
            })
            .map(|c| Bson::Document(c.clone()))
            .collect();
        for (path, f, field) in summaries(plan) {
            let field: Option<&'static str> = field.map(|x| &*Box::leak(x.into_boxed_str()));
            let summary = match (f.as_str(), field) {
                ("count", _) => Summary::Count,
                ("total", Some(x)) => Summary::Sum(x),
                ("max", Some(x)) => Summary::Max(x),
                ("min", Some(x)) => Summary::Min(x),
                other => panic!("unexpected summary {other:?}"),
            };
            let want = summarise(summary, &children, None);
            let have = stored.get(&path);
            let same = match (&want, have) {
                (None, None | Some(Bson::Null)) => true,
                (Some(w), Some(h)) => match (num(w), num(h)) {
                    (Some(a), Some(b)) => (a - b).abs() < 1e-9,
                    _ => w == h,
                },
                _ => false,
            };
            assert!(
                same,
                "{step}: `owners.{path}` ({f}) of {owner} holds {have:?}, the children give {want:?}"
            );
        }
    }
}

/// A new owner document, with the summaries a fresh owner starts with.
fn owner_doc(plan: &Value, id: ObjectId, k: usize) -> Document {
    let mut d = doc! { "_id": id, "title": format!("owner {k}") };
    for l in lists(plan) {
        d.insert(l.path, Bson::Array(vec![]));
    }
    for (path, f, _) in summaries(plan) {
        if f == "count" {
            d.insert(path, 0);
        } else if f == "total" {
            // A total of int32 values is stored as an int64.
            d.insert(path, 0_i64);
        }
    }
    d
}

/// A child of `owner` (the reference as the Plan stores it), with random data.
fn item_doc(
    id: ObjectId,
    owner: ObjectId,
    product: Option<(ObjectId, &str)>,
    rng: &mut Lcg,
) -> Document {
    let mut d = doc! {
        "_id": id,
        "at": DateTime::from_millis(1_700_000_000_000 + rng.below(50) as i64 * 1000),
        "n": rng.below(20) as i32,
        "s": format!("s{}", rng.below(30)),
    };
    if let Some((p, name)) = product {
        d.insert("product", doc! { "id": p, "name": name });
    }
    d.insert("owner", owner);
    d
}

macro_rules! family {
    ($test:ident, $m:ident, $push:ident, $replace:ident, $remove:ident) => {
        #[tokio::test]
        async fn $test() {
            use squillion_correctness::$m as m;
            let t = TestDb::new(stringify!($test)).await;
            let db = &t.db;
            m::ensure_indexes(db).await.unwrap();
            m::ensure_validators(db).await.unwrap();
            let plan: Value = serde_json::from_str(m::PLAN_JSON).unwrap();
            let extended = lists(&plan)[0].parent_key == "owner.id";
            let has_product = m::SQN.contains("entity Product");
            let owners: Vec<ObjectId> = (0..3).map(|_| ObjectId::new()).collect();
            for (k, id) in owners.iter().enumerate() {
                db.collection::<Document>("owners")
                    .insert_one(owner_doc(&plan, *id, k))
                    .await
                    .unwrap();
            }
            let product = ObjectId::new();
            if has_product {
                db.collection::<Document>("products")
                    .insert_one(doc! { "_id": product, "name": "p" })
                    .await
                    .unwrap();
            }
            let repo = m::OwnerRepo::new(db);
            let mut rng = Lcg(6 + m::SQN.len() as u64);
            let mut children: Vec<(ObjectId, ObjectId)> = Vec::new();
            let make = |id: ObjectId, owner: ObjectId, rng: &mut Lcg| -> m::Item {
                let k = owners.iter().position(|o| *o == owner).unwrap();
                let mut d = item_doc(id, owner, has_product.then_some((product, "p")), rng);
                if extended {
                    d.insert("owner", doc! { "id": owner, "title": format!("owner {k}") });
                }
                squillion::__private::bson::from_document(d).unwrap()
            };
            for step in 0..80 {
                let what = match rng.below(6) {
                    0..=2 => {
                        let owner = owners[rng.below(3) as usize];
                        let id = ObjectId::new();
                        repo.$push(&owner, &make(id, owner, &mut rng))
                            .await
                            .unwrap();
                        children.push((id, owner));
                        "push"
                    }
                    3 | 4 if !children.is_empty() => {
                        let k = rng.below(children.len() as u64) as usize;
                        let (id, mut owner) = children[k];
                        if rng.below(4) == 0 {
                            owner = owners[rng.below(3) as usize];
                        }
                        assert!(repo.$replace(&make(id, owner, &mut rng)).await.unwrap());
                        children[k].1 = owner;
                        "replace"
                    }
                    _ if !children.is_empty() => {
                        let k = rng.below(children.len() as u64) as usize;
                        let (id, _) = children.remove(k);
                        assert!(repo.$remove(&id).await.unwrap());
                        assert!(!repo.$remove(&id).await.unwrap(), "removed twice");
                        "remove"
                    }
                    _ => continue,
                };
                check(
                    db,
                    &plan,
                    &owners,
                    &format!("{} step {step} ({what})", stringify!($m)),
                )
                .await;
            }
            // An owner deleted (as a queue's `complete` or `delete` does, without touching its
            // children): its former children can still be moved to another owner and removed,
            // and the other owners' lists stay right.
            let gone = owners[2];
            assert!(repo.delete(&gone).await.unwrap());
            let orphans: Vec<ObjectId> = children
                .iter()
                .filter(|(_, o)| *o == gone)
                .map(|(id, _)| *id)
                .collect();
            assert!(!orphans.is_empty(), "the deleted owner had children");
            for (k, id) in orphans.iter().enumerate() {
                if k % 2 == 0 {
                    let moved = repo.$replace(&make(*id, owners[0], &mut rng)).await;
                    assert!(moved.as_ref().is_ok_and(|x| *x), "{moved:?}");
                } else {
                    let removed = repo.$remove(id).await;
                    assert!(removed.as_ref().is_ok_and(|x| *x), "{removed:?}");
                }
                check(
                    db,
                    &plan,
                    &owners[..2],
                    &format!("{} orphan {k}", stringify!($m)),
                )
                .await;
            }
            // A child given to an owner it does not name is refused, and nothing is written.
            let before = all(db, "items", doc! {}).await.len();
            let stray = make(ObjectId::new(), owners[0], &mut rng);
            let refused = repo.$push(&owners[1], &stray).await;
            assert!(
                matches!(refused, Err(squillion::Error::WrongParent { .. })),
                "{refused:?}"
            );
            assert_eq!(all(db, "items", doc! {}).await.len(), before);
            t.cleanup().await;
        }
    };
}

family!(
    latest_with_summaries,
    subset_latest_summaries,
    push_items,
    replace_items,
    remove_items
);
family!(
    latest_ascending,
    subset_latest_asc,
    push_items,
    replace_items,
    remove_items
);
family!(
    top_with_summaries,
    subset_top_summaries,
    push_top_items,
    replace_top_items,
    remove_top_items
);
family!(
    top_one,
    subset_top_one,
    push_top_items,
    replace_top_items,
    remove_top_items
);
family!(
    subset_and_top_together,
    subset_both,
    push_top_items,
    replace_items,
    remove_top_items
);
family!(
    extended_reference,
    subset_extended,
    push_items,
    replace_items,
    remove_items
);
family!(
    child_with_copies,
    subset_copies,
    push_items,
    replace_items,
    remove_items
);
