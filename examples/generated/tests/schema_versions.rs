//! Every read of a versioned collection checks each document's schema version (round 19): a
//! newcomer's declared query returned a document written by a newer application (schema_version
//! 9 where the code reads 2) that `get` refuses with `Error::SchemaVersion`. Every kind of query
//! method (a list, keyset pages, a stream, `limit 1`, a projection with its pages and stream) now
//! refuses it the same way, reads the documents of its own version as before, and still sends the
//! projection of a `returns` (with the version the check needs, nothing else).
//!
//! Run with `scripts/with-server.sh cargo test -p squillion-examples-generated --test schema_versions`.

use futures::TryStreamExt;
use squillion::bson::oid::ObjectId;
use squillion::bson::{doc, DateTime, Document};
use squillion::Error;
use squillion_examples_generated::schema_versions::{ensure_all, Note, NoteRepo};
use squillion_testkit::TestDb;

fn day(n: i64) -> DateTime {
    DateTime::from_millis(1_767_225_600_000 + n * 86_400_000)
}

fn refused<T: std::fmt::Debug>(what: &str, r: squillion::Result<T>) {
    match r {
        Err(Error::SchemaVersion {
            found: Some(9),
            expected: 2,
            ..
        }) => {}
        other => panic!("{what}: expected Error::SchemaVersion, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_query_method_checks_the_schema_version() {
    let (t, sent) = TestDb::watching_reads("schema_versions").await;
    ensure_all(&t.db).await.unwrap();
    let notes = NoteRepo::new(&t.db);
    for i in 0..3 {
        let n = Note {
            id: ObjectId::new(),
            schema_version: 2,
            title: "a".into(),
            at: day(i),
            body: format!("body {i}"),
        };
        notes.insert(&n).await.unwrap();
    }
    // The documents of the version the code reads, through every method.
    assert_eq!(notes.notes_by_title("a").await.unwrap().len(), 3);
    let page = notes.notes_by_title_page("a", None, 2).await.unwrap();
    assert_eq!(page.items.len(), 2);
    let rest = notes
        .notes_by_title_page("a", page.next.as_ref(), 2)
        .await
        .unwrap();
    assert_eq!((rest.items.len(), rest.next.is_none()), (1, true));
    let streamed: Vec<Note> = notes
        .notes_by_title_stream("a")
        .try_collect()
        .await
        .unwrap();
    assert_eq!(streamed.len(), 3);
    assert_eq!(
        notes.latest_note("a").await.unwrap().map(|n| n.at),
        Some(day(2))
    );
    sent.take();
    let titles = notes.note_titles(&day(0)).await.unwrap();
    assert_eq!(titles.len(), 3);
    // The projection is still sent: the title, the id and the version, never the body.
    for d in sent.take() {
        let mut keys: Vec<&str> = d.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["_id", "schema_version", "title"], "{d:?}");
    }

    // A note written by a newer application, behind this one's back.
    let id = ObjectId::new();
    t.db.collection::<Document>("notes")
        .insert_one(
            doc! { "_id": id, "schema_version": 9, "title": "a", "at": day(9), "body": "new" },
        )
        .await
        .unwrap();
    refused("get", notes.get(&id).await);
    refused("list", notes.notes_by_title("a").await);
    refused("page", notes.notes_by_title_page("a", None, 10).await);
    refused(
        "stream",
        notes
            .notes_by_title_stream("a")
            .try_collect::<Vec<_>>()
            .await,
    );
    refused("limit 1", notes.latest_note("a").await);
    refused("projection", notes.note_titles(&day(0)).await);
    refused(
        "projection page",
        notes.note_titles_page(&day(0), None, 10).await,
    );
    refused(
        "projection stream",
        notes
            .note_titles_stream(&day(0))
            .try_collect::<Vec<_>>()
            .await,
    );
    // Counting reads no document: it counts it.
    assert_eq!(notes.count_notes_by_title("a").await.unwrap(), 4);
    // Without it, every method reads again.
    t.db.collection::<Document>("notes")
        .delete_one(doc! { "_id": id })
        .await
        .unwrap();
    assert_eq!(notes.notes_by_title("a").await.unwrap().len(), 3);
    t.cleanup().await;
}
