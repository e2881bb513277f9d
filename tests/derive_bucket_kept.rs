//! What an owner keeps of its bucketed children (`latest N`, `top N` beside `page` or
//! `time_range`): every `append_<f>` of the bucket's repository pushes the copy into the owner's
//! lists too. Before, the Plan said so ("adding an Event also pushes a copy into the Ticket's
//! `events`") but nothing did: the lists stayed empty, and their copies required an `_id` that
//! bucket elements do not have.
//!
//! Reference model: for random children appended in random order, each list equals the N
//! children the declared order puts first (the latest by `at`, the best by `votes`, ascending or
//! descending), copied with the kept fields only, in the stored order; and the buckets hold
//! every child once.
//!
//! Run with `scripts/with-server.sh cargo test --test derive_bucket_kept`.

mod derive_support;

use derive_support::database;
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use squillion::__private::bson::{doc, oid::ObjectId, DateTime};
use squillion::BoundedVec;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Note {
    pub at: DateTime,
    pub votes: i32,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Latest {
    pub at: DateTime,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Best {
    pub votes: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "kept_books")]
pub struct Book {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub title: String,
    #[squillion(maintained)]
    pub recent: BoundedVec<Latest, 3>,
    #[squillion(maintained)]
    pub oldest: BoundedVec<Latest, 2>,
    #[squillion(maintained)]
    pub best: BoundedVec<Best, 2>,
    #[squillion(maintained)]
    pub worst: BoundedVec<Best, 3>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, squillion::Document)]
#[squillion(collection = "kept_book_notes")]
pub struct BookNotes {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub book: ObjectId,
    #[squillion(bucket(
        size = 4,
        key = book,
        count = count,
        sort = "at",
        owner = Book,
        latest(path = "recent", n = 3, sort = "at", desc, keep("at", "text")),
        latest(path = "oldest", n = 2, sort = "at", keep("at", "text")),
        top(path = "best", n = 2, sort = "votes", desc, keep("votes")),
        top(path = "worst", n = 3, sort = "votes", keep("votes"))
    ))]
    pub notes: BoundedVec<Note, 4>,
    #[squillion(maintained)]
    pub count: i32,
}

fn latest(n: &Note) -> Latest {
    Latest {
        at: n.at,
        text: n.text.clone(),
    }
}

/// The reference: the first `n` of `notes` in `order`, as stored (`latest` ascending keeps the
/// largest, stored ascending).
fn first<T>(
    notes: &[Note],
    n: usize,
    key: impl Fn(&Note) -> i64,
    desc: bool,
    latest: bool,
    copy: impl Fn(&Note) -> T,
) -> Vec<T> {
    let mut sorted: Vec<&Note> = notes.iter().collect();
    sorted.sort_by_key(|x| key(x));
    if desc {
        sorted.reverse();
        sorted.truncate(n);
    } else if latest {
        let from = sorted.len().saturating_sub(n);
        sorted.drain(..from);
    } else {
        sorted.truncate(n);
    }
    sorted.into_iter().map(copy).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn every_append_keeps_the_owners_lists(
        // Distinct times and votes (ties are broken by `_id`, which bucket elements lack).
        order in Just((0..14i64).collect::<Vec<_>>()).prop_shuffle(),
        votes in Just((0..14i32).collect::<Vec<_>>()).prop_shuffle(),
        count in 0usize..14,
    ) {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let db = database("bucket_kept").await;
            let (books, notes) = (BookRepo::new(&db), BookNotesRepo::new(&db));
            notes.ensure_indexes().await.unwrap();
            let book = Book {
                id: ObjectId::new(),
                title: "t".into(),
                recent: Default::default(),
                oldest: Default::default(),
                best: Default::default(),
                worst: Default::default(),
            };
            books.insert(&book).await.unwrap();
            let mut written = Vec::new();
            for (i, minute) in order.iter().take(count).enumerate() {
                let note = Note {
                    at: DateTime::from_millis(1_700_000_000_000 + minute * 60_000),
                    votes: votes[i],
                    text: format!("n{i}"),
                };
                notes.append_notes(&book.id, &note).await.unwrap();
                written.push(note);
            }
            let stored = books.get(&book.id).await.unwrap().unwrap();
            let at = |n: &Note| n.at.timestamp_millis();
            let v = |n: &Note| i64::from(n.votes);
            let best = |n: &Note| Best { votes: n.votes };
            assert_eq!(stored.recent.to_vec(), first(&written, 3, at, true, true, latest));
            assert_eq!(stored.oldest.to_vec(), first(&written, 2, at, false, true, latest));
            assert_eq!(stored.best.to_vec(), first(&written, 2, v, true, false, best));
            assert_eq!(stored.worst.to_vec(), first(&written, 3, v, false, false, best));
            // Every child once in the buckets, none over 4.
            let buckets = notes.find(doc! { "book": book.id }).await.unwrap();
            assert!(buckets.iter().all(|b| b.notes.len() <= 4));
            let mut held: Vec<String> = buckets.iter().flat_map(|b| b.notes.iter().map(|n| n.text.clone())).collect();
            held.sort();
            let mut texts: Vec<String> = written.iter().map(|n| n.text.clone()).collect();
            texts.sort();
            assert_eq!(held, texts);
        });
    }
}

/// An append for an owner that is not stored fills its bucket and keeps nothing anywhere.
#[tokio::test]
async fn an_owner_that_is_not_stored_keeps_nothing() {
    let db = database("bucket_kept_orphan").await;
    let notes = BookNotesRepo::new(&db);
    let ghost = ObjectId::new();
    let note = Note {
        at: DateTime::from_millis(1_700_000_000_000),
        votes: 1,
        text: "x".into(),
    };
    notes.append_notes(&ghost, &note).await.unwrap();
    assert_eq!(notes.count(doc! { "book": ghost }).await.unwrap(), 1);
    assert_eq!(BookRepo::new(&db).count(doc! {}).await.unwrap(), 0);
}
