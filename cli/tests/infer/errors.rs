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
            && run.stderr.lines().count() == 1,
        "{}",
        run.stderr
    );
    assert!(!out.exists(), "nothing is written on failure");
    let run = squillion(["infer", "--uri", "not-a-uri"]).await;
    run.expect(2, "bad uri");
    assert!(
        run.stderr.starts_with("error: cannot connect to not-a-uri"),
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
