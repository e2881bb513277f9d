//! Issue 11 against the server: the summaries a parent keeps of children living in their own
//! collection (no array beside them), and the subsets and top-N lists refilled from that
//! collection, stay equal to what the children's collection gives after every write of the
//! children's *own* repository: insert, insert_many, replace (moving the child to another owner
//! or not), delete, `set_<f>` and `inc_<f>` of a field a summary or a list reads. Random
//! sequences, several owners, every schema of the `kept_*` family (layouts x summary kinds).

use futures::TryStreamExt;
use serde_json::Value;
use squillion::__private::arrays::Summary;
use squillion::__private::bson::{doc, oid::ObjectId, Bson, DateTime, Document};
use squillion::__private::mongodb::Database;
use squillion::__private::summaries::summarise;
use squillion_testkit::TestDb;

/// A small deterministic sequence of numbers.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % below
    }
}

/// A list of copies the Plan keeps in `owners`: `(path, n, sort_by, largest first, reversed)`.
struct List {
    path: String,
    n: usize,
    sort_by: String,
    largest_first: bool,
    reversed: bool,
}

/// `(path, function, field)` of a summary.
type SummarySpec = (String, String, Option<String>);

/// What the Plan keeps in `owners` of the items: lists, and summaries.
fn kept(plan: &Value) -> (Vec<List>, Vec<SummarySpec>) {
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
        if d["subset"].is_object() {
            lists.push(list(&d["subset"], &d["subset"]["path"], true));
        }
        for x in d["computed"].as_array().unwrap() {
            if x["collection"] != "owners" {
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
        "the Plan keeps something of the items in owners"
    );
    (lists, summaries)
}

fn num(v: &Bson) -> Option<f64> {
    match v {
        Bson::Int32(x) => Some(f64::from(*x)),
        Bson::Int64(x) => Some(*x as f64),
        Bson::Double(x) => Some(*x),
        _ => None,
    }
}

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

/// The owner an item names (`owner`, or `owner.id` when the reference is extended).
fn owner_of(item: &Document) -> Option<&Bson> {
    match item.get("owner")? {
        Bson::Document(d) => d.get("id"),
        other => Some(other),
    }
}

async fn all(db: &Database, c: &str) -> Vec<Document> {
    db.collection::<Document>(c)
        .find(doc! {})
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

/// Checks every summary and list of every owner against the items' collection.
async fn check(db: &Database, plan: &Value, step: &str) {
    let (lists, summaries) = kept(plan);
    let items = all(db, "items").await;
    for owner in all(db, "owners").await {
        let id = owner.get("_id").unwrap();
        let mut children: Vec<&Document> =
            items.iter().filter(|c| owner_of(c) == Some(id)).collect();
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
                "{step}: `owners.{path}` ({f}) of {id} holds {have:?}, its {} children give {want:?}",
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
                "{step}: `owners.{}` of {id} (the {} {} by `{}`) is not what its children give",
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
fn owner_doc(plan: &Value, id: ObjectId, k: usize) -> Document {
    let (lists, summaries) = kept(plan);
    let mut d = doc! { "_id": id, "title": format!("owner {k}") };
    for l in lists {
        d.insert(l.path, Bson::Array(vec![]));
    }
    for (path, f, _) in summaries {
        if f == "count" || f == "total" {
            d.insert(path, 0);
        }
    }
    d
}

macro_rules! family {
    ($test:ident, $m:ident) => {
        #[tokio::test]
        async fn $test() {
            use squillion_correctness::$m as m;
            let t = TestDb::new(stringify!($test)).await;
            let db = &t.db;
            m::ensure_indexes(db).await.unwrap();
            m::ensure_validators(db).await.unwrap();
            let plan: Value = serde_json::from_str(m::PLAN_JSON).unwrap();
            let extended = m::SQN.contains("show Owner.title");
            let owners: Vec<ObjectId> = (0..3).map(|_| ObjectId::new()).collect();
            for (k, id) in owners.iter().enumerate() {
                db.collection::<Document>("owners")
                    .insert_one(owner_doc(&plan, *id, k))
                    .await
                    .unwrap();
            }
            let items = m::ItemRepo::new(db);
            let mut rng = Lcg(17 + m::SQN.len() as u64);
            let mut children: Vec<ObjectId> = Vec::new();
            let make = |id: ObjectId, rng: &mut Lcg| -> m::Item {
                let k = rng.next(3) as usize;
                let owner = if extended {
                    Bson::Document(doc! { "id": owners[k], "title": format!("owner {k}") })
                } else {
                    Bson::ObjectId(owners[k])
                };
                let d = doc! {
                    "_id": id,
                    "at": DateTime::from_millis(1_700_000_000_000 + rng.next(40) as i64 * 1000),
                    "n": rng.next(30) as i32 - 10,
                    "s": format!("s{}", rng.next(20)),
                    "owner": owner,
                };
                squillion::__private::bson::from_document(d).unwrap()
            };
            for step in 0..90 {
                let pick = |rng: &mut Lcg, children: &[ObjectId]| {
                    children[rng.next(children.len() as u64) as usize]
                };
                let what = match rng.next(8) {
                    0 | 1 => {
                        let id = ObjectId::new();
                        items.insert(&make(id, &mut rng)).await.unwrap();
                        children.push(id);
                        "insert"
                    }
                    2 => {
                        let batch: Vec<m::Item> =
                            (0..3).map(|_| make(ObjectId::new(), &mut rng)).collect();
                        items.insert_many(&batch).await.unwrap();
                        children.extend(batch.iter().map(|i| i.id));
                        "insert_many"
                    }
                    3 if !children.is_empty() => {
                        // A new owner one time in three: the child moves.
                        let id = pick(&mut rng, &children);
                        assert!(items.replace(&make(id, &mut rng)).await.unwrap());
                        "replace"
                    }
                    4 if !children.is_empty() => {
                        let k = rng.next(children.len() as u64) as usize;
                        let id = children.remove(k);
                        assert!(items.delete(&id).await.unwrap());
                        assert!(!items.delete(&id).await.unwrap(), "deleted twice");
                        "delete"
                    }
                    5 if !children.is_empty() => {
                        let id = pick(&mut rng, &children);
                        items.set_n(&id, &(rng.next(40) as i32 - 15)).await.unwrap();
                        "set_n"
                    }
                    6 if !children.is_empty() => {
                        let id = pick(&mut rng, &children);
                        items.inc_n(&id, rng.next(9) as i32 - 4).await.unwrap();
                        "inc_n"
                    }
                    7 if !children.is_empty() => {
                        let id = pick(&mut rng, &children);
                        let at =
                            DateTime::from_millis(1_700_000_000_000 + rng.next(40) as i64 * 1000);
                        items.set_at(&id, &at).await.unwrap();
                        "set_at"
                    }
                    _ => continue,
                };
                check(
                    db,
                    &plan,
                    &format!("{} step {step} ({what})", stringify!($m)),
                )
                .await;
            }
            t.cleanup().await;
        }
    };
}

family!(counts_follow_the_childrens_writes, kept_counts);
family!(extremes_follow_the_childrens_writes, kept_extremes);
family!(
    extended_references_follow_the_childrens_writes,
    kept_extended
);
family!(latest_follows_the_childrens_writes, kept_latest);
family!(top_follows_the_childrens_writes, kept_top);

/// Counts the `update` commands the client sends to collection `owners`.
#[derive(Clone, Default)]
struct OwnerUpdates(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl OwnerUpdates {
    fn take(&self) -> usize {
        self.0.swap(0, std::sync::atomic::Ordering::SeqCst)
    }
}

/// A database of its own on a client that counts the updates of `owners`.
async fn counting(test: &str) -> (Database, OwnerUpdates) {
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

/// A bulk insert of many children, then the parent's own push of one more: with and without
/// a transaction, every kept family. The bulk insert writes each parent once, whatever the number
/// of its children (one update per child made inventory's 5,160-message insert outlive the
/// server's transaction limit: "transaction already closed"), and the pushes that follow it keep
/// every list and summary equal to what the children give.
macro_rules! bulk {
    ($test:ident, $m:ident) => {
        #[tokio::test]
        async fn $test() {
            use squillion::__private::{kept, subsets};
            use squillion::Document as _;
            use squillion_correctness::$m as m;
            let (db, updates) = counting(stringify!($test)).await;
            let db = &db;
            m::ensure_indexes(db).await.unwrap();
            let plan: Value = serde_json::from_str(m::PLAN_JSON).unwrap();
            let extended = m::SQN.contains("show Owner.title");
            let key = if extended { "owner.id" } else { "owner" };
            let mut keepers = Vec::new();
            kept::keepers("owners", m::Owner::KEEPS, "items", key, &mut keepers);
            assert_eq!(keepers.len(), 1, "Owner keeps one kind of the items");
            let spec = keepers[0].spec;
            let (owners_c, items_c) = (
                db.collection::<Document>("owners"),
                db.collection::<Document>("items"),
            );
            let mut rng = Lcg(5 + m::SQN.len() as u64);
            for transactions in [true, false] {
                let owners: Vec<ObjectId> = (0..3).map(|_| ObjectId::new()).collect();
                for (k, id) in owners.iter().enumerate() {
                    owners_c.insert_one(owner_doc(&plan, *id, k)).await.unwrap();
                }
                let item = |k: usize, rng: &mut Lcg| {
                    let owner = if extended {
                        Bson::Document(doc! { "id": owners[k], "title": format!("owner {k}") })
                    } else {
                        Bson::ObjectId(owners[k])
                    };
                    doc! {
                        "_id": ObjectId::new(),
                        "at": DateTime::from_millis(1_700_000_000_000 + rng.next(400) as i64 * 1000),
                        "n": rng.next(300) as i32 - 100,
                        "s": format!("s{}", rng.next(200)),
                        "owner": owner,
                    }
                };
                let step = format!("{} transactions {transactions}", stringify!($m));
                // 200 children of owner 0, 40 of owner 1, one of owner 2, interleaved.
                let batch: Vec<Document> = (0..241)
                    .map(|i| item(if i == 120 { 2 } else if i % 6 == 1 { 1 } else { 0 }, &mut rng))
                    .collect();
                updates.take();
                kept::insert(&items_c, transactions, &keepers, batch).await.unwrap();
                let written = updates.take();
                assert!(
                    written <= owners.len(),
                    "{step}: a bulk insert of 241 children of 3 owners updated `owners` {written} times"
                );
                check(db, &plan, &format!("{step}: after the bulk insert")).await;
                for p in 0..6 {
                    let k = p % owners.len();
                    let child = item(k, &mut rng);
                    subsets::push(&owners_c, transactions, Bson::ObjectId(owners[k]), spec, child)
                        .await
                        .unwrap();
                    check(db, &plan, &format!("{step}: after the owner's push {p}")).await;
                }
                owners_c.delete_many(doc! {}).await.unwrap();
                items_c.delete_many(doc! {}).await.unwrap();
            }
            db.drop().await.unwrap();
        }
    };
}

bulk!(counts_bulk_then_push, kept_counts);
bulk!(extremes_bulk_then_push, kept_extremes);
bulk!(extended_bulk_then_push, kept_extended);
bulk!(latest_bulk_then_push, kept_latest);
bulk!(top_bulk_then_push, kept_top);
