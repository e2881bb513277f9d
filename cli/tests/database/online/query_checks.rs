//! `migrate-online queries URI DB`: the declared queries of the new code on a collection holding
//! documents of both versions. Books are filled through the old code (`pages`, a plain `author`
//! id); once the migration's expand phase alone is done (the module's `expand`), the new code inserts books,
//! renames some authors and writes old books (which gives them the new shape in place, without
//! the copy the backfill adds). Every query method is then compared with a reference model of the
//! logical data, with random arguments, before the migration moves anything and after it ends:
//! queries by a renamed field, by the wrapped reference, and by and sorted by the copy of the
//! author's name that old books hold only once the backfill ran.
//! Prints `queries checked before/after: B A`, or the first difference and exits 1.

use std::collections::BTreeMap;

use squillion::__private::futures::TryStreamExt;
use squillion::bson::oid::ObjectId;
use squillion::migrate::Progress;
use squillion::mongodb::Database;
use squillion::PageCursor;

use crate::{queries_migrate, queries_new, queries_old, Lcg, Outcome, Said};

/// One book as the logical data says: title, pages, author.
#[derive(Clone, Debug, PartialEq)]
struct Row {
    title: String,
    pages: i32,
    author: ObjectId,
}

/// A book as a query returns it: id, title, pages, author id and the author's name (the copy).
type Read = (ObjectId, String, i32, ObjectId, String);

struct Model {
    books: BTreeMap<ObjectId, Row>,
    names: BTreeMap<ObjectId, String>,
}

impl Model {
    /// The books passing `keep`, as read, in the order `key` gives (then `_id`).
    fn select<K: Ord>(
        &self,
        keep: impl Fn(&Row) -> bool,
        key: impl Fn(&Row) -> K,
        limit: Option<usize>,
    ) -> Vec<Read> {
        let mut rows: Vec<(&ObjectId, &Row)> = self.books.iter().filter(|(_, r)| keep(r)).collect();
        rows.sort_by(|a, b| key(a.1).cmp(&key(b.1)).then(a.0.cmp(b.0)));
        rows.truncate(limit.unwrap_or(usize::MAX));
        rows.into_iter()
            .map(|(id, r)| {
                let name = self.names.get(&r.author).cloned().unwrap_or_default();
                (*id, r.title.clone(), r.pages, r.author, name)
            })
            .collect()
    }
}

fn read(b: queries_new::Book) -> Outcome<Read> {
    if b.schema_version != 2 {
        return Err(format!("{} read at version {}", b.id, b.schema_version));
    }
    Ok((b.id, b.title, b.pages, b.author.id, b.author.name))
}

fn same<T: PartialEq + std::fmt::Debug>(what: &str, found: &[T], model: &[T]) -> Outcome<()> {
    if found == model {
        return Ok(());
    }
    let at = found.iter().zip(model).position(|(f, m)| f != m);
    Err(format!(
        "{what}: {} read, {} in the model; first difference at {at:?}: read {:?}, model {:?}",
        found.len(),
        model.len(),
        at.and_then(|i| found.get(i)),
        at.and_then(|i| model.get(i)),
    ))
}

/// Every page of a `_page` method, joined.
async fn all_pages<T, F, Fut>(per_page: u32, mut page: F) -> Outcome<Vec<T>>
where
    F: FnMut(Option<PageCursor>, u32) -> Fut,
    Fut: std::future::Future<Output = squillion::Result<squillion::CursorPage<T>>>,
{
    let (mut all, mut after) = (Vec::new(), None);
    loop {
        let p = page(after.take(), per_page).await.said("a page")?;
        all.extend(p.items);
        match p.next {
            Some(next) => after = Some(next),
            None => return Ok(all),
        }
    }
}

/// Every query method, `rounds` times with random arguments, against the model: how many reads
/// were compared.
async fn check(db: &Database, model: &Model, rng: &mut Lcg, rounds: usize) -> Outcome<u64> {
    let books = queries_new::BookRepo::new(db);
    let authors: Vec<ObjectId> = model.names.keys().copied().collect();
    let mut checked = 0;
    for _ in 0..rounds {
        let min = rng.below(320) as i32;
        let per_page = 1 + rng.below(40) as u32;
        let author = authors[rng.below(authors.len())];
        let (lo, hi) = {
            let a = rng.below(300) as i32;
            (a, a + rng.below(120) as i32)
        };

        let want = model.select(|r| r.pages >= min, |r| (-r.pages, r.title.clone()), None);
        let found: Vec<Read> = books
            .long_books(&min)
            .await
            .said("long_books")?
            .into_iter()
            .map(read)
            .collect::<Outcome<_>>()?;
        same("long_books", &found, &want)?;
        let streamed: Vec<queries_new::Book> = books
            .long_books_stream(&min)
            .try_collect()
            .await
            .said("long_books_stream")?;
        let streamed: Vec<Read> = streamed.into_iter().map(read).collect::<Outcome<_>>()?;
        same("long_books_stream", &streamed, &want)?;
        let paged = all_pages(per_page, |after, n| {
            let books = books.clone();
            async move { books.long_books_page(&min, after.as_ref(), n).await }
        })
        .await?;
        let paged: Vec<Read> = paged.into_iter().map(read).collect::<Outcome<_>>()?;
        same("long_books_page", &paged, &want)?;
        let n = books
            .count_long_books(&min)
            .await
            .said("count_long_books")?;
        same("count_long_books", &[n], &[want.len() as u64])?;

        let want = model.select(|r| r.author == author, |r| r.title.clone(), None);
        let found: Vec<Read> = books
            .books_of_author(&author)
            .await
            .said("books_of_author")?
            .into_iter()
            .map(read)
            .collect::<Outcome<_>>()?;
        same("books_of_author", &found, &want)?;
        let paged = all_pages(per_page, |after, n| {
            let books = books.clone();
            async move { books.books_of_author_page(&author, after.as_ref(), n).await }
        })
        .await?;
        let paged: Vec<Read> = paged.into_iter().map(read).collect::<Outcome<_>>()?;
        same("books_of_author_page", &paged, &want)?;
        let n = books
            .count_books_of_author(&author)
            .await
            .said("count_books_of_author")?;
        same("count_books_of_author", &[n], &[want.len() as u64])?;

        let want = model.select(
            |r| r.author == author && r.pages >= min,
            |r| -r.pages,
            Some(5),
        );
        let found: Vec<Read> = books
            .longest_of_author(&author, &min)
            .await
            .said("longest_of_author")?
            .into_iter()
            .map(read)
            .collect::<Outcome<_>>()?;
        same("longest_of_author", &found, &want)?;

        let want: Vec<(ObjectId, String, i32)> = model
            .select(
                |r| r.pages >= lo && r.pages <= hi,
                |r| r.title.clone(),
                None,
            )
            .into_iter()
            .map(|(id, t, p, _, _)| (id, t, p))
            .collect();
        let found: Vec<(ObjectId, String, i32)> = books
            .page_counts(&lo, &hi)
            .await
            .said("page_counts")?
            .into_iter()
            .map(|p| (p.id, p.title, p.pages))
            .collect();
        same("page_counts", &found, &want)?;
        let paged = all_pages(per_page, |after, n| {
            let books = books.clone();
            async move { books.page_counts_page(&lo, &hi, after.as_ref(), n).await }
        })
        .await?;
        let paged: Vec<(ObjectId, String, i32)> = paged
            .into_iter()
            .map(|p| (p.id, p.title, p.pages))
            .collect();
        same("page_counts_page", &paged, &want)?;
        let n = books
            .count_page_counts(&lo, &hi)
            .await
            .said("count_page_counts")?;
        same("count_page_counts", &[n], &[want.len() as u64])?;

        // By the copy of the author's name, which old books hold only once the backfill ran.
        let name = match model.names.get(&author) {
            Some(n) if rng.below(8) > 0 => n.clone(),
            _ => "nobody".to_owned(),
        };
        let name_of = |r: &Row| model.names.get(&r.author).cloned().unwrap_or_default();
        let want = model.select(|r| name_of(r) == name, |r| r.title.clone(), None);
        let found: Vec<Read> = books
            .books_by_author_name(&name)
            .await
            .said("books_by_author_name")?
            .into_iter()
            .map(read)
            .collect::<Outcome<_>>()?;
        same("books_by_author_name", &found, &want)?;
        let paged = all_pages(per_page, |after, n| {
            let (books, name) = (books.clone(), name.clone());
            async move {
                books
                    .books_by_author_name_page(&name, after.as_ref(), n)
                    .await
            }
        })
        .await?;
        let paged: Vec<Read> = paged.into_iter().map(read).collect::<Outcome<_>>()?;
        same("books_by_author_name_page", &paged, &want)?;
        let n = books
            .count_books_by_author_name(&name)
            .await
            .said("count_books_by_author_name")?;
        same("count_books_by_author_name", &[n], &[want.len() as u64])?;

        // Sorted by the copy.
        let want = model.select(|r| r.pages >= min, |r| (name_of(r), r.title.clone()), None);
        let found: Vec<Read> = books
            .books_by_author_names(&min)
            .await
            .said("books_by_author_names")?
            .into_iter()
            .map(read)
            .collect::<Outcome<_>>()?;
        same("books_by_author_names", &found, &want)?;
        let paged = all_pages(per_page, |after, n| {
            let books = books.clone();
            async move {
                books
                    .books_by_author_names_page(&min, after.as_ref(), n)
                    .await
            }
        })
        .await?;
        let paged: Vec<Read> = paged.into_iter().map(read).collect::<Outcome<_>>()?;
        same("books_by_author_names_page", &paged, &want)?;
        checked += 18;
    }
    Ok(checked)
}

/// Books filled through the old code, written through the new one after the expand, queried
/// before and after the migration's moves.
pub async fn queries(db: &Database) -> Outcome<String> {
    let mut rng = Lcg(7);
    queries_old::BookRepo::new(db)
        .ensure_indexes()
        .await
        .said("old indexes")?;
    let authors: Vec<queries_old::Author> = (0..12)
        .map(|i| queries_old::Author {
            id: ObjectId::new(),
            name: format!("a{i}"),
        })
        .collect();
    queries_old::AuthorRepo::new(db)
        .insert_many(&authors)
        .await
        .said("seed authors")?;
    // Few titles and page counts, so that sort keys tie and `_id` breaks the ties.
    let seeded: Vec<queries_old::Book> = (0..600)
        .map(|_| queries_old::Book {
            id: ObjectId::new(),
            schema_version: 1,
            title: format!("t{:02}", rng.below(60)),
            pages: rng.below(300) as i32,
            author: authors[rng.below(authors.len())].id,
        })
        .collect();
    queries_old::BookRepo::new(db)
        .insert_many(&seeded)
        .await
        .said("seed books")?;
    let mut model = Model {
        books: seeded
            .iter()
            .map(|b| {
                (
                    b.id,
                    Row {
                        title: b.title.clone(),
                        pages: b.pages,
                        author: b.author,
                    },
                )
            })
            .collect(),
        names: authors.iter().map(|a| (a.id, a.name.clone())).collect(),
    };

    // The expand phase alone (the generated module's `expand`): indexes made and validators
    // relaxed, no document changed; then the new code writes, the queries are checked, and the
    // rest of the migration runs (the expand steps skipped, as recorded).
    let mut quiet = |_: &Progress<'_>| {};
    let expanded = queries_migrate::expand(db, &mut quiet)
        .await
        .said("the expand phase")?;
    if expanded.run == 0 || expanded.run >= queries_migrate::STEPS.len() {
        return Err(format!(
            "the expand phase ran {} of {} steps",
            expanded.run,
            queries_migrate::STEPS.len()
        ));
    }
    let ids: Vec<ObjectId> = seeded.iter().map(|b| b.id).collect();
    let authors: Vec<ObjectId> = authors.iter().map(|a| a.id).collect();
    write(db, &mut model, &authors, &ids, &mut rng).await?;
    let before = check(db, &model, &mut rng, 10).await?;
    let rest = queries_migrate::migrate(db, &mut quiet)
        .await
        .said("the migration")?;
    if rest.skipped != expanded.run {
        return Err(format!(
            "the migration skipped {} steps, the expand phase ran {}",
            rest.skipped, expanded.run
        ));
    }
    let after = check(db, &model, &mut rng, 10).await?;
    Ok(format!("queries checked before/after: {before} {after}"))
}

/// Writes through the new code: titles and page counts of old books set and increased (which
/// gives them the new shape in place), authors renamed, new books inserted; the model follows.
async fn write(
    db: &Database,
    model: &mut Model,
    authors: &[ObjectId],
    ids: &[ObjectId],
    rng: &mut Lcg,
) -> Outcome<()> {
    let (books, people) = (
        queries_new::BookRepo::new(db),
        queries_new::AuthorRepo::new(db),
    );
    for n in 0..300 {
        let id = ids[rng.below(ids.len())];
        let Some(row) = model.books.get_mut(&id) else {
            return Err(format!("{id} is not in the model"));
        };
        match rng.below(5) {
            0 => {
                let title = format!("t{:02}", rng.below(60));
                books.set_title(&id, &title).await.said("set_title")?;
                row.title = title;
            }
            1 => {
                let pages = rng.below(300) as i32;
                books.set_pages(&id, &pages).await.said("set_pages")?;
                row.pages = pages;
            }
            2 => {
                books.inc_pages(&id, 7).await.said("inc_pages")?;
                row.pages += 7;
            }
            3 if n % 20 == 3 => {
                let author = authors[rng.below(authors.len())];
                let name = format!("renamed{n}");
                people.set_name(&author, &name).await.said("set_name")?;
                model.names.insert(author, name);
            }
            _ => {
                let b = queries_new::Book {
                    id: ObjectId::new(),
                    schema_version: 2,
                    title: format!("t{:02}", rng.below(60)),
                    pages: rng.below(300) as i32,
                    author: queries_new::AuthorRef {
                        id: authors[rng.below(authors.len())],
                        name: String::new(),
                    },
                };
                books.insert(&b).await.said("insert")?;
                model.books.insert(
                    b.id,
                    Row {
                        title: b.title,
                        pages: b.pages,
                        author: b.author.id,
                    },
                );
            }
        }
    }
    Ok(())
}
