//! Bad input gets clear errors, and odd documents a draft that passes `squillion check`.

use bson::oid::ObjectId;
use bson::spec::BinarySubtype;
use bson::{doc, Binary, Bson, Document};

use super::*;

/// Whether a line of the draft starts (after indentation) with `start` and holds `holds`.
fn has_line(text: &str, start: &str, holds: &str) -> bool {
    text.lines()
        .any(|l| l.trim_start().starts_with(start) && l.contains(holds))
}

#[tokio::test]
async fn an_unreachable_server_is_a_clear_error_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("draft.sqn");
    let run = squillion([
        "infer",
        "--uri",
        "mongodb://squillion:secret@127.0.0.1:1/?serverSelectionTimeoutMS=1000",
        "-o",
        out.to_str().unwrap(),
    ])
    .await;
    run.expect(2, "unreachable");
    assert!(
        run.stderr
            .starts_with("error: cannot reach mongodb://<credentials>@127.0.0.1:1/")
            && !run.stderr.contains("secret")
            && run.stderr.lines().count() == 2
            && run.stderr.contains("\n  help: check that the server runs"),
        "{}",
        run.stderr
    );
    assert!(!out.exists(), "nothing is written on failure");
    let run = squillion(["infer", "--uri", "not-a-uri"]).await;
    run.expect(2, "bad uri");
    assert!(
        run.stderr.starts_with("error: cannot connect to not-a-uri")
            && run
                .stderr
                .contains("\n  help: a connection string looks like"),
        "{}",
        run.stderr
    );
    let run = squillion(["infer", "--uri", "mongodb://127.0.0.1:1", "--sample", "0"]).await;
    run.expect(2, "sample 0");
}

#[tokio::test]
async fn an_empty_database_is_a_clear_error() {
    let t = TestDb::new("infer_empty").await;
    let (run, text, dir) = infer(&t, &[]).await;
    run.expect(2, "no collections");
    assert!(
        run.stderr.contains("has no collections to infer from"),
        "{}",
        run.stderr
    );
    assert!(text.is_empty() && !dir.path().join("draft.sqn").exists());
    t.db.create_collection("nothing").await.unwrap();
    let (run, _, _) = infer(&t, &[]).await;
    run.expect(2, "empty collections");
    assert!(
        run.stderr.contains("hold no documents to infer from") && run.stderr.contains("nothing"),
        "{}",
        run.stderr
    );
    t.cleanup().await;
}

/// Nesting near the server's limit, arrays of 100,000 elements, keys that are not identifiers,
/// binary and mixed `_id`s, types the language cannot name, maps with thousands of keys: the
/// draft still passes `squillion check`, and says what it left out.
#[tokio::test]
async fn odd_documents_give_a_valid_draft() {
    let t = TestDb::new("infer_odd").await;
    let mut deep = doc! { "leaf": 1 };
    for _ in 0..90 {
        deep = doc! { "x": deep };
    }
    let huge: Vec<Bson> = (0..100_000).map(Bson::Int32).collect();
    let mut wide = Document::new();
    for i in 0..3000 {
        wide.insert(format!("2024-01-{i}"), i);
    }
    let docs = vec![
        doc! { "_id": 1, "deep": deep.clone(), "huge": huge.clone(), "wide": wide.clone() },
        doc! {
            "_id": 2,
            "first name": "Ann",
            "1st": true,
            "ünïcode": "x",
            "with\"quote": 1,
            "": "empty key",
            "code": Bson::JavaScriptCode("function() {}".into()),
            "low": Bson::MinKey,
            "sym": Bson::Symbol("s".into()),
            "nothing": Bson::Null,
            "empty": [],
            "mixed": [1, "a", { "k": 1 }, [1]],
            "grid": [[1, 2], [3, 4]],
            "attrs": [{ "k": "colour", "v": "red" }],
        },
        doc! { "_id": "three", "deep": deep },
    ];
    t.db.collection::<Document>("odd")
        .insert_many(docs)
        .await
        .unwrap();
    let bin = |b: u8| {
        Bson::Binary(Binary {
            subtype: BinarySubtype::Uuid,
            bytes: vec![b; 16],
        })
    };
    t.db.collection::<Document>("uuids")
        .insert_many((0..5u8).map(|i| doc! { "_id": bin(i), "name": format!("u{i}") }))
        .await
        .unwrap();
    t.db.collection::<Document>("holders")
        .insert_many((0..5u8).map(|i| doc! { "_id": ObjectId::new(), "owner": bin(i) }))
        .await
        .unwrap();
    let (run, text, dir) = infer(&t, &["--sample", "50"]).await;
    run.expect(0, "odd documents");
    assert_valid(&dir).await;
    assert!(
        text.contains("key:  binary @key") || text.contains("key: binary @key"),
        "{text}"
    );
    assert!(
        text.contains("relation Uuid.holders: one <-> Holder.owner: one"),
        "{text}"
    );
    assert!(text.contains("@stored(\"first name\")"), "{text}");
    assert!(text.contains("@stored(\"with\\\"quote\")"), "{text}");
    assert!(
        text.contains("a field is left out: a field name cannot be empty"),
        "{text}"
    );
    assert!(
        text.contains("mixed types: int in 2, string in 1"),
        "{text}"
    );
    assert!(text.contains("elements of mixed types"), "{text}");
    assert!(text.contains("nest deeper than"), "{text}");
    assert!(
        text.contains("BSON type javascript has no name in the language"),
        "{text}"
    );
    assert!(has_line(&text, "wide:", "map<int32>?"), "{text}");
    assert!(
        has_line(&text, "attrs:", "map<string>? @attributes"),
        "{text}"
    );
    assert!(
        text.contains("huge:") && text.contains("examined in part"),
        "{text}"
    );
    assert!(
        text.contains("grid:") && text.contains("[[int32; 2]; 2]"),
        "{text}"
    );
    t.cleanup().await;
}

/// Where a stage is missing, the draft says so and infer does without it.
#[tokio::test]
async fn missing_stages_degrade_with_a_note() {
    let t = TestDb::new("infer_degrade").await;
    t.db.collection::<Document>("things")
        .insert_many((0..20).map(|i| doc! { "n": i, "tags": (0..i % 4).collect::<Vec<i32>>() }))
        .await
        .unwrap();
    let (run, text, dir) = infer(
        &t,
        &[
            "--without",
            "$sample",
            "--without",
            "$indexStats",
            "--without",
            "$collStats",
        ],
    )
    .await;
    run.expect(0, "without stages");
    assert_valid(&dir).await;
    for stage in ["$sample", "$indexStats", "$collStats"] {
        assert!(
            text.contains(&format!(
                "// Note: `{stage}` is not available: it was turned off with --without"
            )),
            "{stage}: {text}"
        );
    }
    assert!(text.contains("the first documents of each collection were read instead"));
    assert!(text.contains("in all 20 sampled things"), "{text}");
    t.cleanup().await;
}

/// Every BSON value a tool can store as an `_id`, as the `_id` of a collection's documents, of
/// documents embedded one at a time and in arrays, alone and mixed with other types: the draft
/// passes `squillion check` and names nothing a defect. A regular expression as the `_id` of
/// embedded documents became `key: regex @key`, which `check` refuses (E0309), and infer stopped
/// with "please report this".
#[tokio::test]
async fn every_id_type_in_every_place_gives_a_valid_draft() {
    let t = TestDb::new("infer_id_types").await;
    type MakeId = Box<dyn Fn(i32) -> Bson>;
    let values: Vec<(&str, MakeId)> = vec![
        ("double", Box::new(|i| Bson::Double(f64::from(i) + 0.5))),
        ("string", Box::new(|i| Bson::String(format!("k{i}")))),
        ("document", Box::new(|i| Bson::Document(doc! { "a": i }))),
        (
            "binary",
            Box::new(|i| {
                Bson::Binary(Binary {
                    subtype: BinarySubtype::Generic,
                    bytes: vec![i as u8; 3],
                })
            }),
        ),
        ("objectid", Box::new(|_| Bson::ObjectId(ObjectId::new()))),
        ("bool", Box::new(|i| Bson::Boolean(i % 2 == 0))),
        (
            "date",
            Box::new(|i| Bson::DateTime(bson::DateTime::from_millis(i64::from(i)))),
        ),
        ("null", Box::new(|_| Bson::Null)),
        (
            "regex",
            Box::new(|i| {
                Bson::RegularExpression(bson::Regex {
                    pattern: format!("a{i}.*"),
                    options: "i".into(),
                })
            }),
        ),
        (
            "javascript",
            Box::new(|i| Bson::JavaScriptCode(format!("function() {{ return {i}; }}"))),
        ),
        ("int32", Box::new(Bson::Int32)),
        (
            "timestamp",
            Box::new(|i| {
                Bson::Timestamp(bson::Timestamp {
                    time: 1,
                    increment: i as u32,
                })
            }),
        ),
        ("int64", Box::new(|i| Bson::Int64(i64::from(i) << 40))),
        (
            "decimal128",
            Box::new(|i| Bson::Decimal128(format!("{i}.25").parse().unwrap())),
        ),
        ("minkey", Box::new(|_| Bson::MinKey)),
        ("maxkey", Box::new(|_| Bson::MaxKey)),
        ("symbol", Box::new(|i| Bson::Symbol(format!("s{i}")))),
    ];
    let mut stored = 0;
    for (k, (name, value)) in values.iter().enumerate() {
        // Alone, and mixed: every third document's `_id` of the next type.
        for (mix, suffix) in [(false, ""), (true, "_mixed")] {
            let other = &values[(k + 1) % values.len()].1;
            let id = |i: i32| {
                if mix && i % 3 == 0 {
                    other(i)
                } else {
                    value(i)
                }
            };
            let docs: Vec<Document> = (0..6)
                .map(|i| {
                    doc! {
                        "_id": id(i),
                        "name": format!("n{i}"),
                        "address": { "_id": id(i + 10), "city": "c" },
                        "lines": [
                            { "_id": id(i + 20), "qty": 1 },
                            { "_id": id(i + 30), "qty": 2 },
                        ],
                    }
                })
                .collect();
            // The server refuses some `_id`s at the top (a regex, an array): the embedded places
            // still get them.
            let coll = t.db.collection::<Document>(&format!("ids_{name}{suffix}"));
            if coll.insert_many(docs.clone()).await.is_err() {
                let docs: Vec<Document> = docs
                    .into_iter()
                    .map(|mut d| {
                        d.insert("_id", ObjectId::new());
                        d
                    })
                    .collect();
                coll.insert_many(docs).await.unwrap();
            }
            stored += 1;
        }
    }
    assert_eq!(stored, values.len() * 2);
    let (run, text, dir) = infer(&t, &["--sample", "50"]).await;
    run.expect(0, "every _id type");
    assert!(!text.contains("please report"), "{text}");
    assert_valid(&dir).await;
    t.cleanup().await;
}
