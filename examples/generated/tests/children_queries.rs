//! Queries on a parent's children (`query q on Post.comments { ... }`) against the server, for
//! each layout their children can have (`schemas/children.sqn`): embedded in the parent, each
//! referencing its parent, and in buckets. For random parents with random children and random
//! arguments, every generated method returns exactly the children of the given parent that a
//! reference filter over the inserted data selects, in the declared order, at most the limit;
//! other parents' children never appear. Each query's `count_<q>` returns how many children of
//! the parent the reference filter selects (all of them: a query's `limit` is not part of its
//! count), 0 for a parent without children.
//!
//! Run with `scripts/with-server.sh cargo test -p squillion-examples-generated`.

use proptest::prelude::*;
use squillion::bson::oid::ObjectId;
use squillion::bson::DateTime;
use squillion_examples_generated::children::{
    Blog, BlogEntriesBucketRepo, BlogRepo, Book, BookRepo, Comment, Entry, Note, NoteRepo, Post,
    PostRepo,
};
use squillion_testkit::TestDb;

/// Children per parent: small values, so thresholds and ties are common.
fn values(max: usize) -> impl Strategy<Value = Vec<Vec<i32>>> {
    prop::collection::vec(prop::collection::vec(0..12i32, 0..max), 1..4)
}

/// `values` sorted descending, as `sort v desc` orders them (the sort key is the only field
/// the test compares, so ties cannot reorder what it sees).
fn desc(mut v: Vec<i32>) -> Vec<i32> {
    v.sort_by(|a, b| b.cmp(a));
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Embedded (`Post.comments: few(50)`): `votes >= ?`, `sort votes desc`, `limit 5`.
    #[test]
    fn embedded_children_are_filtered_sorted_and_limited(
        posts in values(50),
        at_least in 0..13i32,
    ) {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let t = TestDb::new("children_embedded").await;
            let repo = PostRepo::new(&t.db);
            let mut ids = Vec::new();
            for (i, votes) in posts.iter().enumerate() {
                let comments: Vec<Comment> = votes
                    .iter()
                    .map(|v| Comment { author: format!("a{v}"), votes: *v })
                    .collect();
                let post = Post {
                    id: ObjectId::new(),
                    title: format!("post {i}"),
                    comments: comments.try_into().unwrap(),
                };
                repo.insert(&post).await.unwrap();
                ids.push(post.id);
            }
            for (id, votes) in ids.iter().zip(&posts) {
                let got = repo.popular_comments(id, &at_least).await.unwrap();
                let expected: Vec<i32> = desc(votes.iter().copied().filter(|v| *v >= at_least).collect())
                    .into_iter()
                    .take(5)
                    .collect();
                let got_votes: Vec<i32> = got.iter().map(|c| c.votes).collect();
                assert_eq!(got_votes, expected, "post {id}, votes >= {at_least}");
                for c in &got {
                    assert_eq!(c.author, format!("a{}", c.votes), "the child as stored");
                }
                let count = repo.count_popular_comments(id, &at_least).await.unwrap();
                let matching = votes.iter().filter(|v| **v >= at_least).count() as u64;
                assert_eq!(count, matching, "count of post {id}, votes >= {at_least} (no limit)");
            }
            let none = repo.popular_comments(&ObjectId::new(), &0).await.unwrap();
            assert!(none.is_empty(), "an unknown post has no comments");
            let counted = repo.count_popular_comments(&ObjectId::new(), &0).await.unwrap();
            assert_eq!(counted, 0, "an unknown post counts no comments");
            t.cleanup().await;
        });
    }

    /// Referenced (`Book.notes`, notes standalone: `child_ref`): `stars >= ?`, `sort stars desc`.
    #[test]
    fn referencing_children_are_filtered_and_sorted(
        books in values(30),
        at_least in 0..13i32,
    ) {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let t = TestDb::new("children_child_ref").await;
            let (books_repo, notes) = (BookRepo::new(&t.db), NoteRepo::new(&t.db));
            notes.ensure_indexes().await.unwrap();
            let mut ids = Vec::new();
            for (i, stars) in books.iter().enumerate() {
                let book = Book { id: ObjectId::new(), title: format!("book {i}") };
                books_repo.insert(&book).await.unwrap();
                for s in stars {
                    let note = Note { id: ObjectId::new(), text: format!("n{s}"), stars: *s, book: book.id };
                    notes.insert(&note).await.unwrap();
                }
                ids.push(book.id);
            }
            for (id, stars) in ids.iter().zip(&books) {
                let got = notes.starred_notes(id, &at_least).await.unwrap();
                let expected = desc(stars.iter().copied().filter(|s| *s >= at_least).collect());
                let got_stars: Vec<i32> = got.iter().map(|n| n.stars).collect();
                assert_eq!(got_stars, expected, "book {id}, stars >= {at_least}");
                assert!(got.iter().all(|n| n.book == *id), "only this book's notes");
                let count = notes.count_starred_notes(id, &at_least).await.unwrap();
                assert_eq!(count, expected.len() as u64, "count of book {id}, stars >= {at_least}");
            }
            let counted = notes.count_starred_notes(&ObjectId::new(), &0).await.unwrap();
            assert_eq!(counted, 0, "an unknown book counts no notes");
            t.cleanup().await;
        });
    }

    /// In buckets of 20 (`Blog.entries`, `page 20`): `words between ? and ?`, `sort words asc`,
    /// over parents whose entries fill several buckets.
    #[test]
    fn bucketed_children_are_filtered_and_sorted_across_buckets(
        blogs in values(70),
        bounds in (0..13i32, 0..13i32),
    ) {
        let (from, to) = (bounds.0.min(bounds.1), bounds.0.max(bounds.1));
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let t = TestDb::new("children_bucket").await;
            let (blogs_repo, buckets) = (BlogRepo::new(&t.db), BlogEntriesBucketRepo::new(&t.db));
            buckets.ensure_indexes().await.unwrap();
            let mut ids = Vec::new();
            for (i, words) in blogs.iter().enumerate() {
                let blog = Blog { id: ObjectId::new(), name: format!("blog {i}") };
                blogs_repo.insert(&blog).await.unwrap();
                for (j, w) in words.iter().enumerate() {
                    let entry = Entry { at: DateTime::from_millis(j as i64 * 1000), words: *w };
                    buckets.append_entries(&blog.id, &entry).await.unwrap();
                }
                ids.push(blog.id);
            }
            for (id, words) in ids.iter().zip(&blogs) {
                let got = buckets.entries_of_length(id, &from, &to).await.unwrap();
                let mut expected: Vec<i32> = words.iter().copied().filter(|w| (from..=to).contains(w)).collect();
                expected.sort();
                let got_words: Vec<i32> = got.iter().map(|e| e.words).collect();
                assert_eq!(got_words, expected, "blog {id}, words between {from} and {to}");
                let count = buckets.count_entries_of_length(id, &from, &to).await.unwrap();
                assert_eq!(count, expected.len() as u64, "count of blog {id}, words between {from} and {to}");
            }
            let counted = buckets.count_entries_of_length(&ObjectId::new(), &0, &12).await.unwrap();
            assert_eq!(counted, 0, "an unknown blog counts no entries");
            t.cleanup().await;
        });
    }
}
