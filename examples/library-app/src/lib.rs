//! The library of seed 000 ("Schema Design By Example"): books with their author's name cached,
//! users keyed by username, and notes appended into buckets of ten.
//!
//! The types come from `examples/library.sqn` through `build.rs`; every struct carries
//! `#[derive(squillion::Document)]`, so `BookRepo`, `AuthorRepo`, `BookNotesBucketRepo`, ... keep
//! the planned layout correct: [`rename_author`] fans the new name out to every book that caches
//! it, [`add_note`] appends into a bucket that never holds more than ten notes.
#![deny(missing_docs)]

/// The generated types and repositories.
pub mod schema {
    include!(concat!(env!("OUT_DIR"), "/library.rs"));
}

use schema::{AuthorRepo, BookListing, BookNotesBucketRepo, BookRepo, Note};
use squillion::bson::oid::ObjectId;
use squillion::mongodb::Database;
use squillion::{CursorPage, PageCursor};

/// Creates the indexes and validators the Plan declares (idempotent): the generated
/// `ensure_all` does every collection of the schema.
pub async fn set_up(db: &Database) -> squillion::Result<()> {
    schema::ensure_all(db).await
}

/// Renames an author; the copy of the first name on each of their books follows (rule 5).
pub async fn rename_author(
    db: &Database,
    author: &ObjectId,
    first_name: &str,
) -> squillion::Result<()> {
    AuthorRepo::new(db)
        .set_first_name(author, first_name)
        .await?;
    Ok(())
}

/// Adds a note to a book: into its newest bucket while it has room, else a new bucket.
pub async fn add_note(db: &Database, book: &ObjectId, note: &Note) -> squillion::Result<()> {
    BookNotesBucketRepo::new(db)
        .append_notes(book, note)
        .await?;
    Ok(())
}

/// One page of an author's books for a listing, by title: at most `per_page`, starting after
/// `after` (the `next` of the page before; `None` for the first). Keyset paging on the query
/// `book_listing` (title, then `_id`), served by its index, so every page costs the same however
/// deep it is; each book is read as a [`BookListing`] (its title and author), a projection, so the
/// rest of the document stays on the server.
pub async fn books_of_author(
    db: &Database,
    author: &ObjectId,
    after: Option<&PageCursor>,
    per_page: u32,
) -> squillion::Result<CursorPage<BookListing>> {
    BookRepo::new(db)
        .book_listing_page(author, after, per_page)
        .await
}
