//! The library app against a real server: the repositories the derive wrote from the generated
//! structs keep seed 000's layout. Stored documents have the planned shape; renaming an author
//! reaches every cached copy; notes fill buckets of ten, never more, with the count and the latest
//! date kept by the same write; the validator refuses a bucket over its bound.

use futures::TryStreamExt;
use squillion::bson::{self, doc, oid::ObjectId, DateTime, Document};
use squillion::BoundedVec;
use squillion_example_library::schema::{
    Author, AuthorRef, Book, BookNotesBucket, BookNotesBucketRepo, BookRepo, Note, Publisher,
};
use squillion_testkit::TestDb;

fn plan() -> squillion_codegen::plan::Plan {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../library.sqn");
    let text = std::fs::read_to_string(path).unwrap();
    let source = squillion_grammar::SourceFile::new("library.sqn", text);
    let checked = squillion_codegen::load(&source).unwrap();
    squillion_codegen::engine::plan(&checked.model, &source)
}

fn book(title: &str, author: &Author) -> Book {
    Book {
        id: ObjectId::new(),
        title: title.to_owned(),
        isbn: format!("isbn-{title}"),
        slug: title.to_lowercase().replace(' ', "-"),
        publisher: Publisher {
            name: "Everyman's Library".to_owned(),
            date: DateTime::from_millis(685_238_400_000),
            city: "London".to_owned(),
        },
        available: true,
        pages: 180,
        summary: "Set in the Jazz Age on Long Island".to_owned(),
        subjects: BoundedVec::try_from(vec!["fiction".to_owned()]).unwrap(),
        language: "English".to_owned(),
        author: AuthorRef {
            id: author.id,
            first_name: author.first_name.clone(),
            last_name: author.last_name.clone(),
        },
    }
}

fn note(i: i64) -> Note {
    Note {
        note: format!("note {i}"),
        date: DateTime::from_millis(1_600_000_000_000 + i * 60_000),
        user: "emily".to_owned(),
        comments: BoundedVec::default(),
    }
}

/// The top-level field names of a stored document and of the Plan's collection, sorted.
fn shapes(stored: &Document, collection: &str) -> (Vec<String>, Vec<String>) {
    let plan = plan();
    let c = plan.collection(collection).expect("planned collection");
    let mut planned: Vec<String> = c.fields.iter().map(|f| f.name.clone()).collect();
    let mut keys: Vec<String> = stored.keys().cloned().collect();
    planned.sort();
    keys.sort();
    (keys, planned)
}

#[tokio::test(flavor = "multi_thread")]
async fn books_cache_their_author_and_a_rename_reaches_every_copy() {
    let t = TestDb::new("library_rename").await;
    squillion_example_library::set_up(&t.db).await.unwrap();
    let author = Author {
        id: ObjectId::new(),
        first_name: "F. Scott".to_owned(),
        last_name: "Fitzgerald".to_owned(),
    };
    squillion_example_library::schema::AuthorRepo::new(&t.db)
        .insert(&author)
        .await
        .unwrap();
    let books = BookRepo::new(&t.db);
    for title in [
        "The Great Gatsby",
        "Tender Is the Night",
        "This Side of Paradise",
    ] {
        books.insert(&book(title, &author)).await.unwrap();
    }

    let raw = t.db.collection::<Document>("books");
    let stored = raw.find_one(doc! {}).await.unwrap().unwrap();
    let (keys, planned) = shapes(&stored, "books");
    assert_eq!(keys, planned, "a stored book has the planned fields");
    let cached = stored.get_document("author").unwrap();
    assert_eq!(cached.get_object_id("id").unwrap(), author.id);
    assert_eq!(cached.get_str("first_name").unwrap(), "F. Scott");

    squillion_example_library::rename_author(&t.db, &author.id, "Francis Scott")
        .await
        .unwrap();
    let names: Vec<String> = raw
        .find(doc! { "author.id": author.id })
        .await
        .unwrap()
        .try_collect::<Vec<Document>>()
        .await
        .unwrap()
        .iter()
        .map(|b| {
            b.get_document("author")
                .unwrap()
                .get_str("first_name")
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        names,
        vec!["Francis Scott"; 3],
        "every copy follows the source"
    );
    let source = squillion_example_library::schema::AuthorRepo::new(&t.db)
        .get(&author.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(source.first_name, "Francis Scott");
    t.cleanup().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn notes_fill_buckets_of_ten_with_their_count_and_latest_date() {
    let t = TestDb::new("library_notes").await;
    squillion_example_library::set_up(&t.db).await.unwrap();
    let book = ObjectId::new();
    for i in 0..25 {
        squillion_example_library::add_note(&t.db, &book, &note(i))
            .await
            .unwrap();
    }
    let buckets: Vec<BookNotesBucket> =
        t.db.collection::<BookNotesBucket>("book_notes")
            .find(doc! { "book": book })
            .sort(doc! { "_id": 1 })
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
    let counts: Vec<i32> = buckets.iter().map(|b| b.count).collect();
    assert_eq!(
        counts,
        [10, 10, 5],
        "seed 000: note_count < 10 starts a new bucket"
    );
    for b in &buckets {
        assert_eq!(b.notes.len() as i32, b.count, "count equals the notes held");
        let latest = b.notes.iter().map(|n| n.date).max().unwrap();
        assert_eq!(
            b.max, latest,
            "the latest date is kept by the append itself"
        );
    }
    let all: Vec<String> = buckets
        .iter()
        .flat_map(|b| b.notes.iter().map(|n| n.note.clone()))
        .collect();
    let expected: Vec<String> = (0..25).map(|i| format!("note {i}")).collect();
    assert_eq!(all, expected, "every note once, in order");

    let stored =
        t.db.collection::<Document>("book_notes")
            .find_one(doc! {})
            .await
            .unwrap()
            .unwrap();
    let (keys, planned) = shapes(&stored, "book_notes");
    assert_eq!(keys, planned, "a stored bucket has the planned fields");

    // Written behind the repository's back, an eleventh note breaks the validator's maxItems.
    let eleven: Vec<bson::Bson> = (0..11).map(|i| bson::to_bson(&note(i)).unwrap()).collect();
    let err =
        t.db.collection::<Document>("book_notes")
            .insert_one(doc! {
                "book": ObjectId::new(),
                "notes": eleven,
                "count": 11,
                "max": DateTime::now(),
            })
            .await
            .expect_err("the validator refuses 11 notes");
    assert!(
        squillion::Error::from(err).is_validation_failure(),
        "refused by the $jsonSchema validator (code 121)"
    );
    let _ = BookNotesBucketRepo::new(&t.db);
    t.cleanup().await;
}

/// The index a find used, from the server's `explain`, or `None` if it reports no index scan.
async fn index_used(db: &squillion::mongodb::Database, find: Document) -> String {
    let reply = db
        .run_command(doc! { "explain": find, "verbosity": "queryPlanner" })
        .await
        .unwrap();
    let plan = reply
        .get_document("queryPlanner")
        .and_then(|q| q.get_document("winningPlan"))
        .unwrap_or_else(|_| panic!("the server reports no query plan: {reply}"));
    plan.to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn declared_queries_are_methods_served_by_their_indexes() {
    let t = TestDb::new("library_queries").await;
    squillion_example_library::set_up(&t.db).await.unwrap();
    let scott = Author {
        id: ObjectId::new(),
        first_name: "F. Scott".to_owned(),
        last_name: "Fitzgerald".to_owned(),
    };
    let ernest = Author {
        id: ObjectId::new(),
        first_name: "Ernest".to_owned(),
        last_name: "Hemingway".to_owned(),
    };
    let authors = squillion_example_library::schema::AuthorRepo::new(&t.db);
    authors.insert(&scott).await.unwrap();
    authors.insert(&ernest).await.unwrap();
    let books = BookRepo::new(&t.db);
    books
        .insert(&book("The Great Gatsby", &scott))
        .await
        .unwrap();
    books
        .insert(&book("Tender Is the Night", &scott))
        .await
        .unwrap();
    books
        .insert(&book("The Sun Also Rises", &ernest))
        .await
        .unwrap();

    // seed 000: books by the first letters of their author's first name, any case, one query.
    for prefix in ["f", "F. s", "f. SCOTT"] {
        let mut titles: Vec<String> = books
            .books_by_author_first_name(prefix)
            .await
            .unwrap()
            .into_iter()
            .map(|b| b.title)
            .collect();
        titles.sort();
        assert_eq!(
            titles,
            ["Tender Is the Night", "The Great Gatsby"],
            "prefix {prefix:?}"
        );
    }
    assert!(books
        .books_by_author_first_name("x")
        .await
        .unwrap()
        .is_empty());
    let by_title = books.books_by_title("The Sun Also Rises").await.unwrap();
    assert_eq!(by_title.len(), 1);
    assert_eq!(by_title[0].author.id, ernest.id);
    let by_author = books.books_by_author(&scott.id).await.unwrap();
    assert_eq!(by_author.len(), 2);
    let found = authors.author_by_name("Ernest", "Hemingway").await.unwrap();
    assert_eq!(found.iter().map(|a| a.id).collect::<Vec<_>>(), [ernest.id]);

    // Each query runs on the index the Plan made for it.
    let plan = plan();
    for (query, find) in [
        (
            "books_by_author_first_name",
            doc! { "find": "books", "filter": { "author.first_name": { "$gte": "f", "$lt": "f\u{FFFF}" } },
            "collation": { "locale": "en", "strength": 2 } },
        ),
        (
            "books_by_title",
            doc! { "find": "books", "filter": { "title": "x" } },
        ),
        (
            "books_by_author",
            doc! { "find": "books", "filter": { "author.id": scott.id } },
        ),
        (
            "author_by_name",
            doc! { "find": "authors", "filter": { "first_name": "Ernest", "last_name": "Hemingway" } },
        ),
    ] {
        let planned = plan
            .queries
            .iter()
            .find(|q| q.name == query)
            .and_then(|q| q.index.clone())
            .unwrap_or_else(|| panic!("{query} has a planned index"));
        let used = index_used(&t.db, find).await;
        assert!(
            used.contains("IXSCAN") && used.contains(&planned),
            "{query} should scan index {planned}: {used}"
        );
    }
    t.cleanup().await;
}

/// An author's books listed page by page (`book_listing_page` through `books_of_author`: keyset
/// on the title, then `_id` for the books of one title) and streamed: every book of the author
/// once, in the order a reference sort gives, none of another author's, whatever the page size.
/// The listing is a projection: the documents the server sends hold `_id`, `title` and `author`
/// only.
#[tokio::test(flavor = "multi_thread")]
async fn an_authors_books_page_and_stream() {
    let (t, sent) = TestDb::watching_reads("library_pages").await;
    squillion_example_library::set_up(&t.db).await.unwrap();
    let authors = squillion_example_library::schema::AuthorRepo::new(&t.db);
    let (scott, ernest) = (
        Author {
            id: ObjectId::new(),
            first_name: "F. Scott".to_owned(),
            last_name: "Fitzgerald".to_owned(),
        },
        Author {
            id: ObjectId::new(),
            first_name: "Ernest".to_owned(),
            last_name: "Hemingway".to_owned(),
        },
    );
    authors.insert(&scott).await.unwrap();
    authors.insert(&ernest).await.unwrap();
    let books = BookRepo::new(&t.db);
    let mut expected = Vec::new();
    for i in 0..11 {
        // Titles repeat: `_id` orders the books of one title.
        let b = book(&format!("Scott {}", (i * 7) % 4), &scott);
        expected.push((b.title.clone(), b.id));
        books.insert(&b).await.unwrap();
        books
            .insert(&book(&format!("Ernest {i}"), &ernest))
            .await
            .unwrap();
    }
    expected.sort();
    sent.take();
    for per_page in [1, 3, 4, 11, 50] {
        let mut read = Vec::new();
        let mut after = None;
        loop {
            let page = squillion_example_library::books_of_author(
                &t.db,
                &scott.id,
                after.as_ref(),
                per_page,
            )
            .await
            .unwrap();
            assert!(page.items.len() <= per_page as usize);
            for b in &page.items {
                assert_eq!(b.author.id, scott.id);
                assert_eq!(b.author.last_name, "Fitzgerald");
            }
            read.extend(page.items.iter().map(|b| (b.title.clone(), b.id)));
            match page.next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
        assert_eq!(read, expected, "pages of {per_page}");
    }
    let wire = sent.take();
    assert!(wire.len() >= expected.len() * 5);
    for d in &wire {
        let mut keys: Vec<&str> = d.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["_id", "author", "title"], "sent: {d}");
    }
    let streamed: Vec<ObjectId> = books
        .book_listing_stream(&scott.id)
        .map_ok(|b| b.id)
        .try_collect()
        .await
        .unwrap();
    let ids: Vec<ObjectId> = expected.iter().map(|(_, id)| *id).collect();
    let mut sorted = streamed.clone();
    sorted.sort();
    let mut want = ids.clone();
    want.sort();
    assert_eq!(sorted, want);
    let all = books
        .books_by_author_stream(&scott.id)
        .map_ok(|b| b.summary)
        .try_collect::<Vec<_>>()
        .await
        .unwrap();
    assert_eq!(all.len(), ids.len());
    t.cleanup().await;
}
