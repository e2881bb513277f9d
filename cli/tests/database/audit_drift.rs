//! `squillion audit`'s data invariants on the seed examples: a database written consistently is
//! clean; drift written behind the repositories' back (a source changed without its copies, a
//! child dropped or changed without its parent's subset or summary, one side of a two-way link
//! broken) is found exactly, with the documents, the values and a repair. The family of schemas
//! is covered by modelcheck's `audit` test, which fills databases through generated repositories.

use super::*;

/// `(collection, kind, path, count)` of every finding.
fn found(report: &Value) -> BTreeSet<(String, String, String, u64)> {
    findings(report)
        .iter()
        .map(|f| {
            (
                f["collection"].as_str().unwrap().to_owned(),
                f["kind"].as_str().unwrap().to_owned(),
                f["path"].as_str().unwrap_or("").to_owned(),
                f["count"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn expected(rows: &[(&str, &str, &str, u64)]) -> BTreeSet<(String, String, String, u64)> {
    rows.iter()
        .map(|(c, k, p, n)| ((*c).to_owned(), (*k).to_owned(), (*p).to_owned(), *n))
        .collect()
}

async fn insert(t: &TestDb, collection: &str, docs: Vec<Document>) {
    t.db.collection::<Document>(collection)
        .insert_many(docs)
        .await
        .unwrap();
}

async fn update(t: &TestDb, collection: &str, id: &Bson, change: Document) {
    let r =
        t.db.collection::<Document>(collection)
            .update_one(doc! { "_id": id.clone() }, change)
            .await
            .unwrap();
    assert_eq!(r.matched_count, 1, "{collection} {id}");
}

fn decimal(s: &str) -> Bson {
    Bson::Decimal128(s.parse().unwrap())
}

/// Minutes after a fixed time.
fn at(minute: i64) -> DateTime {
    DateTime::from_millis(1_700_000_000_000 + minute * 60_000)
}

#[tokio::test]
async fn audit_finds_the_copies_subsets_and_links_changed_behind_the_repositories_back() {
    let t = TestDb::new("audit_drift_inventory").await;
    let file = root().join("examples/inventory.sqn");
    indexes(&file, &t, &["--apply"]).await.expect(0, "apply");

    // Products and parts, each copying the other's name (and the catalog number).
    let (bolt, nut) = (ObjectId::new(), ObjectId::new());
    let parts: Vec<(ObjectId, &str, ObjectId)> = vec![
        (ObjectId::new(), "washer", bolt),
        (ObjectId::new(), "thread", bolt),
        (ObjectId::new(), "cap", nut),
    ];
    insert(
        &t,
        "products",
        [(bolt, "bolt", 1), (nut, "nut", 2)]
            .iter()
            .map(|(id, name, number)| {
                let mine: Vec<Bson> = parts
                    .iter()
                    .filter(|p| p.2 == *id)
                    .map(|p| Bson::Document(doc! { "id": p.0, "name": p.1 }))
                    .collect();
                doc! { "_id": id, "name": *name, "manufacturer": "acme", "catalog_number": number, "parts": mine }
            })
            .collect(),
    )
    .await;
    insert(
        &t,
        "parts",
        parts
            .iter()
            .map(|(id, name, product)| {
                let (pname, number) = if *product == bolt {
                    ("bolt", 1)
                } else {
                    ("nut", 2)
                };
                doc! {
                    "_id": id, "partno": format!("p-{name}"), "name": *name, "qty": 1,
                    "cost": decimal("0.5"), "price": decimal("1.25"),
                    "product": { "id": product, "name": pname, "catalog_number": number },
                }
            })
            .collect(),
    )
    .await;

    // Hosts keep their latest messages (newest first), each message copies its host.
    let hosts = [(ObjectId::new(), "alpha", 5), (ObjectId::new(), "beta", 2)];
    let mut messages = Vec::new();
    for (h, name, n) in &hosts {
        let mine: Vec<(ObjectId, i64)> = (0..*n).map(|m| (ObjectId::new(), m)).collect();
        let mut latest: Vec<Bson> = mine
            .iter()
            .map(|(id, m)| {
                Bson::Document(doc! { "_id": id, "time": at(*m), "message": format!("{name} {m}") })
            })
            .collect();
        latest.reverse();
        insert(
            &t,
            "hosts",
            vec![doc! { "_id": h, "name": *name, "ipaddr": format!("10.0.0.{n}"), "logmsgs": latest }],
        )
        .await;
        for (id, m) in mine {
            messages.push((id, *h, m));
            insert(
                &t,
                "logmsg",
                vec![doc! {
                    "_id": id, "time": at(m), "message": format!("{name} {m}"),
                    "host": { "id": h, "ipaddr": format!("10.0.0.{n}"), "name": *name },
                }],
            )
            .await;
        }
    }

    // People and their tasks, linked both ways.
    let (ann, bob) = (ObjectId::new(), ObjectId::new());
    let tasks = [
        (ObjectId::new(), ann),
        (ObjectId::new(), ann),
        (ObjectId::new(), bob),
    ];
    insert(
        &t,
        "person",
        [ann, bob]
            .iter()
            .map(|p| {
                let mine: Vec<Bson> = tasks
                    .iter()
                    .filter(|t| t.1 == *p)
                    .map(|t| Bson::ObjectId(t.0))
                    .collect();
                doc! { "_id": p, "name": "someone", "ssn": "123", "addresses": [], "tasks": mine }
            })
            .collect(),
    )
    .await;
    insert(
        &t,
        "tasks",
        tasks
            .iter()
            .map(|(id, owner)| doc! { "_id": id, "description": "do", "due_date": at(0), "owner": owner })
            .collect(),
    )
    .await;

    let run = audit(&file, &t, &[]).await;
    run.expect(0, "a consistent database");
    run.assert_line(&["the sample agrees with the design"]);

    // A product renamed without its parts' copies; a part renamed without the product's.
    update(
        &t,
        "products",
        &Bson::ObjectId(bolt),
        doc! { "$set": { "name": "bolt v2" } },
    )
    .await;
    let washer = Bson::ObjectId(parts[0].0);
    update(
        &t,
        "parts",
        &washer,
        doc! { "$set": { "name": "spring washer" } },
    )
    .await;
    // alpha's newest message deleted, beta's newest changed, neither in its host's list.
    let newest = |host: ObjectId| {
        messages
            .iter()
            .filter(|m| m.1 == host)
            .max_by_key(|m| m.2)
            .map(|m| Bson::ObjectId(m.0))
            .unwrap()
    };
    t.db.collection::<Document>("logmsg")
        .delete_one(doc! { "_id": newest(hosts[0].0) })
        .await
        .unwrap();
    update(
        &t,
        "logmsg",
        &newest(hosts[1].0),
        doc! { "$set": { "message": "edited" } },
    )
    .await;
    // ann no longer lists her second task, which still names her.
    update(
        &t,
        "person",
        &Bson::ObjectId(ann),
        doc! { "$pull": { "tasks": tasks[1].0 } },
    )
    .await;

    let run = audit(&file, &t, &["--format", "json"]).await;
    run.expect(1, "drift");
    let report = run.json();
    assert_eq!(
        found(&report),
        expected(&[
            ("parts", "stale_copy", "product.name", 2),
            ("products", "stale_copy", "parts.name", 1),
            ("hosts", "wrong_subset", "logmsgs", 1),
            ("hosts", "stale_subset", "logmsgs", 1),
            ("tasks", "broken_link", "owner", 1),
        ]),
        "{:#}",
        report["findings"]
    );
    let f = finding(&report, "stale_copy", "parts.name");
    let m = &f["drift"]["examples"][0];
    assert_eq!(m["id"]["$oid"], bolt.to_hex(), "{f:#}");
    assert_eq!(m["from"]["$oid"], parts[0].0.to_hex(), "{f:#}");
    assert_eq!(
        (m["found"].as_str(), m["expected"].as_str()),
        (Some("washer"), Some("spring washer"))
    );
    assert_eq!(f["drift"]["fan_out"]["set_path"], "parts.$[elem].name");
    let help = f["help"].as_str().unwrap();
    assert!(
        help.contains(&format!(
            "db.products.updateMany({{\"parts.id\": ObjectId(\"{}\")}}",
            parts[0].0.to_hex()
        )) && help.contains("{$set: {\"parts.$[elem].name\": \"spring washer\"}}")
            && help.contains("arrayFilters: [{\"elem.id\": "),
        "{help}"
    );
    let f = finding(&report, "stale_copy", "product.name");
    assert_eq!(f["drift"]["checked"], 3, "{f:#}");
    assert!(
        f["detail"]
            .as_str()
            .unwrap()
            .contains("2 of 3 sampled documents"),
        "{f:#}"
    );
    let f = finding(&report, "wrong_subset", "logmsgs");
    assert_eq!(
        f["drift"]["examples"][0]["id"]["$oid"],
        hosts[0].0.to_hex(),
        "{f:#}"
    );
    assert_eq!(
        f["drift"]["examples"][0]["found"].as_array().unwrap().len(),
        5
    );
    assert_eq!(
        f["drift"]["examples"][0]["expected"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
    let f = finding(&report, "stale_subset", "logmsgs");
    assert_eq!(
        f["drift"]["examples"][0]["id"]["$oid"],
        hosts[1].0.to_hex(),
        "{f:#}"
    );
    assert_eq!(
        f["drift"]["examples"][0]["expected"]["message"], "edited",
        "{f:#}"
    );
    let f = finding(&report, "broken_link", "owner");
    assert_eq!(
        f["drift"]["examples"][0]["id"]["$oid"],
        tasks[1].0.to_hex(),
        "{f:#}"
    );
    assert!(
        f["help"]
            .as_str()
            .unwrap()
            .contains("{$addToSet: {\"tasks\": "),
        "{f:#}"
    );

    // The table says the same, with a help line under each finding.
    let run = audit(&file, &t, &[]).await;
    run.expect(1, "drift, text");
    run.assert_line(&[
        "parts",
        "stale_copy",
        "product.name",
        "Product.name",
        "bolt v2",
    ]);
    run.assert_line(&[
        "hosts",
        "wrong_subset",
        "logmsgs",
        "first 1000 children of logmsg by time descending",
    ]);
    run.assert_line(&["tasks", "broken_link", "owner", "does not name them back"]);
    run.assert_line(&["help:", "db.parts.updateMany({\"product.id\": "]);
    assert_eq!(
        run.stdout
            .lines()
            .filter(|l| l.trim_start().starts_with("help:"))
            .count(),
        5,
        "{}",
        run.stdout
    );
    t.cleanup().await;
}

#[tokio::test]
async fn audit_finds_summaries_that_are_not_the_aggregate_of_their_children() {
    let t = TestDb::new("audit_drift_catalog").await;
    let file = root().join("examples/catalog.sqn");
    indexes(&file, &t, &["--apply"]).await.expect(0, "apply");
    let comment = |n: i64| doc! { "author": "kyle", "date": at(n), "text": "great", "votes": 5 };
    let books: Vec<Document> = (0..4)
        .map(|n| {
            let comments: Vec<Document> = (0..n).map(comment).collect();
            doc! {
                "_id": ObjectId::new(), "author": "hergé", "date": at(0), "text": "moon",
                "tags": ["comic"], "comments": comments, "comments_count": n as i32,
            }
        })
        .collect();
    insert(&t, "books", books.clone()).await;
    let run = audit(&file, &t, &["--format", "json"]).await;
    let report = run.json();
    assert!(
        !findings(&report)
            .iter()
            .any(|f| f["kind"] == "wrong_summary"),
        "{:#}",
        report["findings"]
    );
    // A comment pushed without counting it, one removed without counting it.
    update(
        &t,
        "books",
        &books[1]["_id"],
        doc! { "$push": { "comments": comment(9) } },
    )
    .await;
    update(
        &t,
        "books",
        &books[3]["_id"],
        doc! { "$pop": { "comments": 1 } },
    )
    .await;
    let run = audit(&file, &t, &["--format", "json"]).await;
    let report = run.json();
    let f = finding(&report, "wrong_summary", "comments_count");
    assert_eq!(f["count"], 2, "{f:#}");
    assert_eq!(f["drift"]["checked"], 4, "{f:#}");
    let m = &f["drift"]["examples"];
    let pairs: BTreeSet<(i64, i64)> = m
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["found"].as_i64().unwrap(),
                m["expected"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(pairs, BTreeSet::from([(1, 2), (3, 2)]), "{f:#}");
    assert!(
        f["help"]
            .as_str()
            .unwrap()
            .contains("{$set: {\"comments_count\": "),
        "{f:#}"
    );
    t.cleanup().await;
}

/// A parent's summaries of its bucketed children (not `per bucket`) are recomputed from the
/// elements of every bucket naming it: a clean database is clean, and a sample pushed into a
/// bucket without raising its station is found on the station's count, total and largest value.
#[tokio::test]
async fn audit_recomputes_a_parents_summaries_from_its_buckets() {
    let t = TestDb::new("audit_drift_bucket_owner").await;
    let dir = tempfile::tempdir().unwrap();
    let file = super::migrate_data::write(
        dir.path(),
        "stations.sqn",
        "entity Station { code: string }\n\
         entity Sample { at: date  level: int32 }\n\
         relation Station.samples: squillions <-> Sample.station: one {\n  \
           growth append_heavy, unbounded\n  time_range by at\n  summary count, total(level), max(level)\n}\n",
    );
    indexes(&file, &t, &["--apply"]).await.expect(0, "apply");
    let sample = |n: i64, level: i32| doc! { "at": at(n), "level": level };
    let mut stations = Vec::new();
    let mut buckets = Vec::new();
    for s in 0..3_i32 {
        let id = ObjectId::new();
        // Two buckets per station: the summaries span both.
        let levels: Vec<Vec<i32>> = vec![vec![s, 7, 2], vec![11 + s]];
        let all: Vec<i32> = levels.iter().flatten().copied().collect();
        stations.push(doc! {
            "_id": id, "code": format!("s{s}"),
            "samples_count": all.len() as i32,
            "samples_total": all.iter().map(|l| i64::from(*l)).sum::<i64>(),
            "samples_max": all.iter().max().copied(),
        });
        for (k, ls) in levels.iter().enumerate() {
            let items: Vec<Document> = ls
                .iter()
                .enumerate()
                .map(|(i, l)| sample((k * 10 + i) as i64, *l))
                .collect();
            buckets.push(doc! {
                "_id": ObjectId::new(), "station": id, "samples": items,
                "count": ls.len() as i32,
                "start": at((k * 10) as i64), "end": at((k * 10 + ls.len() - 1) as i64),
            });
        }
    }
    insert(&t, "stations", stations.clone()).await;
    insert(&t, "station_samples", buckets.clone()).await;
    let clean = audit(&file, &t, &["--format", "json"]).await.json();
    assert!(
        !findings(&clean)
            .iter()
            .any(|f| f["kind"] == "wrong_summary"),
        "{:#}",
        clean["findings"]
    );
    // A sample of level 50 appended to station 1's last bucket behind the repository's back.
    update(
        &t,
        "station_samples",
        &buckets[3]["_id"],
        doc! { "$push": { "samples": sample(12, 50) }, "$inc": { "count": 1 } },
    )
    .await;
    let report = audit(&file, &t, &["--format", "json"]).await.json();
    for path in ["samples_count", "samples_total", "samples_max"] {
        let f = finding(&report, "wrong_summary", path);
        assert_eq!(f["count"], 1, "{f:#}");
        assert_eq!(f["drift"]["checked"], 3, "{f:#}");
    }
    let f = finding(&report, "wrong_summary", "samples_max");
    let m = &f["drift"]["examples"][0];
    assert_eq!(
        (m["found"].as_i64(), m["expected"].as_i64()),
        (Some(12), Some(50)),
        "{f:#}"
    );
    t.cleanup().await;
}
