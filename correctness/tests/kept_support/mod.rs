//! What the kept tests share: the Plan's lists and summaries of a parent collection, and the
//! check that each parent holds what its children in `items` give.
#![allow(dead_code)]

use serde_json::Value;
use squillion::__private::arrays::Summary;
use squillion::__private::bson::{doc, oid::ObjectId, Bson, Document};
use squillion::__private::mongodb::Database;
use squillion::__private::summaries::summarise;
pub use squillion_testkit::{documents as all, Lcg};

/// A list of copies the Plan keeps in `owners`: `(path, n, sort_by, largest first, reversed)`.
pub struct List {
    path: String,
    n: usize,
    sort_by: String,
    largest_first: bool,
    reversed: bool,
}

/// `(path, function, field)` of a summary.
pub type SummarySpec = (String, String, Option<String>);

/// What the Plan keeps in `owners` of the items: lists, and summaries.
pub fn kept(plan: &Value) -> (Vec<List>, Vec<SummarySpec>) {
    kept_in(plan, "owners")
}

/// What the Plan keeps in collection `parents` of the items: lists, and summaries.
pub fn kept_in(plan: &Value, parents: &str) -> (Vec<List>, Vec<SummarySpec>) {
    let (mut lists, mut summaries) = (Vec::new(), Vec::new());
    let list = |s: &Value, path: &Value, latest: bool| {
        assert_eq!(
            s["children"]["collection"], "items",
            "the Plan says where the children of {path} are read from"
        );
        let descending = s["descending"].as_bool().unwrap();
        List {
            path: path.as_str().unwrap().to_owned(),
            n: s["n"].as_u64().unwrap() as usize,
            sort_by: s["sort_by"].as_str().unwrap().to_owned(),
            largest_first: latest || descending,
            reversed: latest && !descending,
        }
    };
    for d in plan["relationships"].as_array().unwrap() {
        if d["subset"].is_object() && d["subset"]["collection"] == parents {
            lists.push(list(&d["subset"], &d["subset"]["path"], true));
        }
        for x in d["computed"].as_array().unwrap() {
            if x["collection"] != parents {
                continue;
            }
            match x["function"]["fn"].as_str() {
                Some("top_n") => lists.push(list(&x["function"], &x["path"], false)),
                Some("summary") if x["function"]["summary"] != "avg" => summaries.push((
                    x["path"].as_str().unwrap().to_owned(),
                    x["function"]["summary"].as_str().unwrap().to_owned(),
                    x["field"].as_str().map(str::to_owned),
                )),
                _ => {}
            }
        }
    }
    assert!(
        !summaries.is_empty() || !lists.is_empty(),
        "the Plan keeps something of the items in {parents}"
    );
    (lists, summaries)
}

pub fn num(v: &Bson) -> Option<f64> {
    match v {
        Bson::Int32(x) => Some(f64::from(*x)),
        Bson::Int64(x) => Some(*x as f64),
        Bson::Double(x) => Some(*x),
        _ => None,
    }
}

pub fn cmp(a: Option<&Bson>, b: Option<&Bson>) -> std::cmp::Ordering {
    match (a, b) {
        (Some(Bson::DateTime(x)), Some(Bson::DateTime(y))) => x.cmp(y),
        (Some(Bson::String(x)), Some(Bson::String(y))) => x.cmp(y),
        (Some(x), Some(y)) => num(x)
            .partial_cmp(&num(y))
            .unwrap_or(std::cmp::Ordering::Equal),
        _ => std::cmp::Ordering::Equal,
    }
}

/// The owner an item names at `key` (`owner`, or `owner.id` when the reference is extended).
pub fn owner_of<'d>(item: &'d Document, key: &str) -> Option<&'d Bson> {
    match item.get(key)? {
        Bson::Document(d) => d.get("id"),
        other => Some(other),
    }
}

/// Checks every summary and list of every owner against the items' collection.
pub async fn check(db: &Database, plan: &Value, step: &str) {
    check_in(db, plan, "owners", "owner", step).await
}

/// Checks every summary and list of every document of `parents` against the items naming it at
/// `key`.
pub async fn check_in(db: &Database, plan: &Value, parents: &str, key: &str, step: &str) {
    let (lists, summaries) = kept_in(plan, parents);
    let items = all(db, "items").await.unwrap();
    for owner in all(db, parents).await.unwrap() {
        let id = owner.get("_id").unwrap();
        let mut children: Vec<&Document> = items
            .iter()
            .filter(|c| owner_of(c, key) == Some(id))
            .collect();
        let values: Vec<Bson> = children
            .iter()
            .map(|c| Bson::Document((*c).clone()))
            .collect();
        for (path, f, field) in &summaries {
            let field: Option<&'static str> =
                field.clone().map(|x| &*Box::leak(x.into_boxed_str()));
            let summary = match (f.as_str(), field) {
                ("count", _) => Summary::Count,
                ("total", Some(x)) => Summary::Sum(x),
                ("max", Some(x)) => Summary::Max(x),
                ("min", Some(x)) => Summary::Min(x),
                other => panic!("unexpected summary {other:?}"),
            };
            let want = summarise(summary, &values, None);
            let have = owner.get(path);
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
                "{step}: `{parents}.{path}` ({f}) of {id} holds {have:?}, its {} children give {want:?}",
                children.len()
            );
        }
        for l in &lists {
            children.sort_by(|a, b| {
                let o = cmp(a.get(&l.sort_by), b.get(&l.sort_by)).then_with(|| {
                    a.get_object_id("_id")
                        .unwrap()
                        .cmp(&b.get_object_id("_id").unwrap())
                });
                if l.largest_first {
                    o.reverse()
                } else {
                    o
                }
            });
            let mut want: Vec<&Document> = children.iter().copied().take(l.n).collect();
            if l.reversed {
                want.reverse();
            }
            let want: Vec<(Option<&Bson>, Option<&Bson>)> = want
                .iter()
                .map(|c| (c.get("_id"), c.get(&l.sort_by)))
                .collect();
            let have_list = owner.get_array(&l.path).unwrap();
            let have: Vec<(Option<&Bson>, Option<&Bson>)> = have_list
                .iter()
                .map(|c| {
                    let c = c.as_document().unwrap();
                    (c.get("_id"), c.get(&l.sort_by))
                })
                .collect();
            assert_eq!(
                have,
                want,
                "{step}: `{parents}.{}` of {id} (the {} {} by `{}`) is not what its children give",
                l.path,
                l.n,
                if l.largest_first {
                    "largest"
                } else {
                    "smallest"
                },
                l.sort_by
            );
        }
    }
}

/// A new owner document, with the summaries and lists a fresh owner starts with.
pub fn owner_doc(plan: &Value, id: ObjectId, k: usize) -> Document {
    owner_doc_in(plan, "owners", id, k)
}

/// A new document of `parents`, with the summaries and lists a fresh parent starts with.
pub fn owner_doc_in(plan: &Value, parents: &str, id: ObjectId, k: usize) -> Document {
    let (lists, summaries) = kept_in(plan, parents);
    let mut d = doc! { "_id": id, "title": format!("owner {k}") };
    for l in lists {
        d.insert(l.path, Bson::Array(vec![]));
    }
    for (path, f, _) in summaries {
        if f == "count" {
            d.insert(path, 0);
        } else if f == "total" {
            // A total of int32 values is stored as an int64.
            d.insert(path, 0_i64);
        }
    }
    d
}

/// Counts the `update` commands the client sends to collection `owners`.
#[derive(Clone, Default)]
pub struct OwnerUpdates(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl OwnerUpdates {
    pub fn take(&self) -> usize {
        self.0.swap(0, std::sync::atomic::Ordering::SeqCst)
    }
}

/// A database of its own on a client that counts the updates of `owners`.
pub async fn counting(test: &str) -> (Database, OwnerUpdates) {
    use squillion::__private::mongodb::event::command::CommandEvent;
    use squillion::__private::mongodb::event::EventHandler;
    use squillion::__private::mongodb::options::ClientOptions;
    let mut options = ClientOptions::parse(squillion_testkit::uri())
        .await
        .unwrap();
    let updates = OwnerUpdates::default();
    let count = updates.clone();
    options.command_event_handler = Some(EventHandler::callback(move |event| {
        if let CommandEvent::Started(e) = event {
            if e.command_name == "update" && e.command.get_str("update") == Ok("owners") {
                count.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
        }
    }));
    let client = squillion::__private::mongodb::Client::with_options(options).unwrap();
    let name = format!("t_{test}_{}", &ObjectId::new().to_hex()[16..]);
    (client.database(&name), updates)
}
