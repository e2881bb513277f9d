//! Library (seed 000, `examples/library.sqn`): `Author.books` with the author's names shown on
//! every book (`show ... ratio 1000:1`) and the example's query rates. 200 authors of 5 books.

use squillion::__private::bson::{doc, oid::ObjectId, Document as BsonDocument};
use squillion::__private::mongodb::{Client, Collection, Database};
use squillion::BoundedVec;

use crate::common::{h, Mix, Op, Variant};
use crate::measure::{workload, Outcome};
use crate::{db, library_all_refs, library_chosen, library_parent_refs};

const AUTHORS: usize = 200;
const BOOKS_PER_AUTHOR: usize = 5;
const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRST";

fn first_name(a: usize) -> String {
    format!("{}{:03} Scott", LETTERS[a % LETTERS.len()] as char, a)
}

fn last_name(a: usize) -> String {
    format!("Fitzgerald{a}")
}

fn title(a: usize, b: usize) -> String {
    format!("The Great Gatsby {a}-{b}")
}

/// The case-insensitive first-name prefix read by operation `i`: about five authors (25 books).
fn name_prefix(i: usize) -> String {
    let l = h(i, 6) % LETTERS.len();
    let hundred = h(i, 7) % (AUTHORS / 100);
    format!("{}{}", (LETTERS[l] as char).to_ascii_lowercase(), hundred)
}

macro_rules! book {
    ($m:ident, $a:expr, $b:expr $(, $f:ident: $v:expr)*) => {
        $m::Book {
            id: ObjectId::new(),
            title: title($a, $b),
            isbn: format!("97818571{:05}", $a * 10 + $b),
            slug: format!("97818571{:05}-the-great-gatsby", $a * 10 + $b),
            available: true,
            pages: 176,
            summary: "Set in the post-Great War world of the Long Island elite. ".repeat(16),
            language: "English".into(),
            $($f: $v,)*
        }
    };
}

macro_rules! library_copied {
    ($ty:ident, $m:ident, $label:literal, $schema:literal, $parent_refs:expr $(, add = $add:ident)?) => {
        struct $ty {
            authors: Vec<ObjectId>,
            author_repo: $m::AuthorRepo,
            books: $m::BookRepo,
        }

        impl Variant for $ty {
            fn name(&self) -> &'static str {
                $label
            }
            fn schema(&self) -> &'static str {
                include_str!($schema)
            }
            async fn seed(&self) {
                self.books.ensure_indexes().await.unwrap();
                self.author_repo.ensure_indexes().await.unwrap();
                let mut books = Vec::new();
                let mut authors = Vec::new();
                for (a, id) in self.authors.iter().enumerate() {
                    let bs: Vec<$m::Book> = (0..BOOKS_PER_AUTHOR)
                        .map(|b| {
                            book!($m, a, b, author: $m::AuthorRef {
                                id: *id,
                                first_name: first_name(a),
                                last_name: last_name(a),
                            })
                        })
                        .collect();
                    let ids: Vec<ObjectId> = bs.iter().map(|b| b.id).collect();
                    authors.push($parent_refs(*id, a, ids));
                    books.extend(bs);
                }
                self.author_repo.insert_many(&authors).await.unwrap();
                self.books.insert_many(&books).await.unwrap();
            }
            async fn run(&self, op: Op, i: usize) -> usize {
                let a = h(i, 8) % AUTHORS;
                match op {
                    Op::Hot => {
                        let bs = self
                            .books
                            .books_by_author_first_name(&name_prefix(i))
                            .await
                            .unwrap();
                        bs.iter().map(|b| b.author.first_name.len().min(1)).sum()
                    }
                    Op::Other(0) => {
                        let b = h(i, 9) % BOOKS_PER_AUTHOR;
                        let bs = self.books.books_by_title(&title(a, b)).await.unwrap();
                        bs.iter().map(|b| b.author.last_name.len().min(1)).sum()
                    }
                    Op::Other(1) => {
                        let bs = self.books.books_by_author(&self.authors[a]).await.unwrap();
                        bs.iter().map(|b| b.author.last_name.len().min(1)).sum()
                    }
                    Op::Other(2) => self
                        .author_repo
                        .author_by_name(&first_name(a), &last_name(a))
                        .await
                        .unwrap()
                        .len(),
                    Op::Other(_) => {
                        // A rename keeps the copies in step: `set_first_name` fans out.
                        self.author_repo
                            .set_first_name(&self.authors[a], &first_name(a))
                            .await
                            .unwrap();
                        0
                    }
                    Op::Write => {
                        // A new book of the author, its names copied in.
                        let b = book!($m, a, BOOKS_PER_AUTHOR + i, author: $m::AuthorRef {
                            id: self.authors[a],
                            first_name: first_name(a),
                            last_name: last_name(a),
                        });
                        self.books.insert(&b).await.unwrap();
                        $(self.author_repo.$add(&self.authors[a], &b.id).await.unwrap();)?
                        0
                    }
                }
            }
        }
    };
}
library_copied!(
    LibraryChosen,
    library_chosen,
    "child_ref + names copied (chosen)",
    "../layouts/library_chosen.sqn",
    |id, a, _ids| library_chosen::Author {
        id,
        first_name: first_name(a),
        last_name: last_name(a),
    }
);
library_copied!(
    LibraryParentRefs,
    library_parent_refs,
    "parent_refs + names copied (forced)",
    "../layouts/library_parent_refs.sqn",
    |id, a, ids: Vec<ObjectId>| library_parent_refs::Author {
        id,
        first_name: first_name(a),
        last_name: last_name(a),
        books: BoundedVec::try_from(ids).unwrap(),
    },
    add = add_books
);

struct LibraryAllRefs {
    authors: Vec<ObjectId>,
    author_repo: library_all_refs::AuthorRepo,
    books: library_all_refs::BookRepo,
    raw_authors: Collection<BsonDocument>,
}

impl Variant for LibraryAllRefs {
    fn name(&self) -> &'static str {
        "child_ref, nothing copied (all references)"
    }
    fn schema(&self) -> &'static str {
        include_str!("../layouts/library_all_refs.sqn")
    }
    async fn seed(&self) {
        self.books.ensure_indexes().await.unwrap();
        self.author_repo.ensure_indexes().await.unwrap();
        let mut books = Vec::new();
        let mut authors = Vec::new();
        for (a, id) in self.authors.iter().enumerate() {
            books.extend((0..BOOKS_PER_AUTHOR).map(|b| book!(library_all_refs, a, b, author: *id)));
            authors.push(library_all_refs::Author {
                id: *id,
                first_name: first_name(a),
                last_name: last_name(a),
            });
        }
        self.author_repo.insert_many(&authors).await.unwrap();
        self.books.insert_many(&books).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        let a = h(i, 8) % AUTHORS;
        match op {
            Op::Hot => {
                // Application-level join: the authors by first name, then their books.
                let authors = self
                    .author_repo
                    .authors_by_first_name(&name_prefix(i))
                    .await
                    .unwrap();
                let ids: Vec<ObjectId> = authors.iter().map(|x| x.id).collect();
                let bs = self
                    .books
                    .find(doc! { "author": { "$in": ids } })
                    .await
                    .unwrap();
                bs.iter()
                    .filter(|b| authors.iter().any(|x| x.id == b.author))
                    .count()
            }
            Op::Other(0) => {
                // The books, then their author's name.
                let b = h(i, 9) % BOOKS_PER_AUTHOR;
                let bs = self.books.books_by_title(&title(a, b)).await.unwrap();
                let author = self.author_repo.get(&bs[0].author).await.unwrap().unwrap();
                bs.len() * author.last_name.len().min(1)
            }
            Op::Other(1) => {
                let bs = self.books.books_by_author(&self.authors[a]).await.unwrap();
                let author = self
                    .author_repo
                    .get(&self.authors[a])
                    .await
                    .unwrap()
                    .unwrap();
                bs.len() * author.last_name.len().min(1)
            }
            Op::Other(2) => self
                .author_repo
                .author_by_name(&first_name(a), &last_name(a))
                .await
                .unwrap()
                .len(),
            Op::Other(_) => {
                // Nothing to fan out; no repository setter without a copy: plain `$set`.
                self.raw_authors
                    .update_one(
                        doc! { "_id": self.authors[a] },
                        doc! { "$set": { "first_name": first_name(a) } },
                    )
                    .await
                    .unwrap();
                0
            }
            Op::Write => {
                let b = book!(library_all_refs, a, BOOKS_PER_AUTHOR + i, author: self.authors[a]);
                self.books.insert(&b).await.unwrap();
                0
            }
        }
    }
}

pub async fn run(client: &Client, ops: usize, rounds: usize, dbs: &mut Vec<Database>) -> Outcome {
    let authors: Vec<ObjectId> = (0..AUTHORS).map(|_| ObjectId::new()).collect();
    let d: Vec<Database> = (0..3).map(|k| db(client, &format!("lib{k}"))).collect();
    dbs.extend(d.iter().cloned());
    let chosen = LibraryChosen {
        authors: authors.clone(),
        author_repo: library_chosen::AuthorRepo::new(&d[0]),
        books: library_chosen::BookRepo::new(&d[0]),
    };
    let parent_refs = LibraryParentRefs {
        authors: authors.clone(),
        author_repo: library_parent_refs::AuthorRepo::new(&d[1]),
        books: library_parent_refs::BookRepo::new(&d[1]),
    };
    let all_refs = LibraryAllRefs {
        authors: authors.clone(),
        author_repo: library_all_refs::AuthorRepo::new(&d[2]),
        books: library_all_refs::BookRepo::new(&d[2]),
        raw_authors: d[2].collection("authors"),
    };
    // The Plan's workload: the queries that find books by their author, through the author's
    // first name (200/s) and by the reference itself (50/s), are its list reads, split by their
    // rates; books by title (100/s) its reads alone; books added, 0.1 per read. Beside it, what
    // the model does not cost: the authors by name (20/s, on Author) and a rename per 1,000
    // reads of the copied names.
    let w = workload(chosen.schema(), "Author.books");
    let reads = w.list_reads + w.alone_reads;
    let mix = Mix::new(&[
        (Op::Hot, w.list_reads * 200.0 / 250.0),
        (Op::Other(0), w.alone_reads),
        (Op::Other(1), w.list_reads * 50.0 / 250.0),
        (Op::Write, w.appends),
        (Op::Other(2), 20.0),
        (Op::Other(3), reads / 1000.0),
    ]);
    let rows = crate::drive!(&mix, ops, rounds; chosen, parent_refs, all_refs);
    Outcome {
        schema: rows[0].schema.clone(),
        title: "Library (seed 000): Author.books, the author's names shown on every book".into(),
        relation: "Author.books",
        mix: mix.describe(&|op| match op {
            Op::Hot => "books by first name",
            Op::Other(0) => "book by title",
            Op::Other(1) => "books by author",
            Op::Other(2) => "author by name",
            Op::Other(_) => "rename",
            Op::Write => "book added",
        }),
        rows,
    }
}
