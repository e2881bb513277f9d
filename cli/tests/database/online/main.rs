//! The online mode's writers (`cli/tests/database/migrate_online.rs` builds this program with
//! the modules it generates): `migrate-online KIND URI DB` fills the old layout through the old
//! generated code, starts writers through the new generated code (each owning a share of the
//! documents, so that its reference model of them is exact), starts the background migration
//! once they have written, lets them write through it and after it, runs the migration again,
//! and checks every document read through the new code against the writers' models. It prints
//! `writes before/during/after: B D A` and `documents: N`, or the first difference and exits 1.
//! `migrate-online queries URI DB` checks the declared queries instead ([`query_checks`]).

#![deny(warnings)]

#[allow(dead_code)]
mod copy_migrate;
#[allow(dead_code)]
mod copy_new;
#[allow(dead_code)]
mod copy_old;
#[allow(dead_code)]
mod fields_migrate;
#[allow(dead_code)]
mod fields_new;
#[allow(dead_code)]
mod fields_old;
#[allow(dead_code)]
mod rename_migrate;
#[allow(dead_code)]
mod rename_new;
#[allow(dead_code)]
mod rename_old;
#[allow(dead_code)]
mod queries_migrate;
#[allow(dead_code)]
mod queries_new;
#[allow(dead_code)]
mod queries_old;
mod query_checks;

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use std::sync::Arc;
use std::time::Duration;

use squillion::bson::doc;
use squillion::bson::oid::ObjectId;
use squillion::migrate::{MigrationError, Progress, Summary};
use squillion::mongodb::Database;

/// Writers, each owning every `WRITERS`-th document.
const WRITERS: usize = 4;
/// Documents filled through the old code.
const SEEDED: usize = 4000;
/// Writes made by the writers (together) before the migration starts.
const BEFORE: u64 = 200;
/// Writes made by each writer after the migration ended.
const AFTER: u64 = 25;

type Outcome<T> = Result<T, String>;

/// `?` for the repositories' and the migration's errors: the error in words.
trait Said<T> {
    fn said(self, what: &str) -> Outcome<T>;
}

impl<T, E: std::fmt::Display> Said<T> for Result<T, E> {
    fn said(self, what: &str) -> Outcome<T> {
        self.map_err(|e| format!("{what}: {e}"))
    }
}

/// A small deterministic generator (each writer its own).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// When the writers write: before, during or after the migration.
#[derive(Default)]
struct Clock {
    /// A writer failed, or the migration did: everyone stops.
    failed: AtomicBool,
    /// The migration's expand phase is done (validators relaxed, indexes made): the new code
    /// may write.
    expanded: AtomicBool,
    migrating: AtomicBool,
    done: AtomicBool,
    before: AtomicU64,
    during: AtomicU64,
    after: AtomicU64,
}

impl Clock {
    /// Counts one write; false once this writer has written `AFTER` times after the migration
    /// (or something failed).
    fn tick(&self, mine_after: &mut u64) -> bool {
        if self.failed.load(SeqCst) {
            return false;
        }
        if self.done.load(SeqCst) {
            self.after.fetch_add(1, SeqCst);
            *mine_after += 1;
        } else if self.migrating.load(SeqCst) {
            self.during.fetch_add(1, SeqCst);
        } else {
            self.before.fetch_add(1, SeqCst);
        }
        *mine_after < AFTER
    }

    /// The migration's progress callback: when its first move step starts (expand done), lets
    /// the writers write `BEFORE` times, holding the migration meanwhile.
    fn hold(self: &Arc<Self>) -> impl FnMut(&Progress<'_>) {
        let clock = self.clone();
        move |p: &Progress<'_>| {
            let moving = matches!(p, Progress::Started { step, .. } if step.starts_with("move:"));
            if moving && !clock.expanded.swap(true, SeqCst) {
                while clock.before.load(SeqCst) < BEFORE && !clock.failed.load(SeqCst) {
                    std::thread::sleep(Duration::from_millis(5));
                }
                clock.migrating.store(true, SeqCst);
            }
        }
    }

    /// Waits until the writers may write (false: something failed first).
    async fn expanded(&self) -> bool {
        while !self.expanded.load(SeqCst) {
            if self.failed.load(SeqCst) {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        true
    }

    /// Runs the migration (held by [`Self::hold`]).
    async fn migrate<Fut>(&self, run: Fut) -> Outcome<Summary>
    where
        Fut: Future<Output = Result<Summary, MigrationError>>,
    {
        let first = run.await.said("the migration");
        if first.is_err() {
            self.failed.store(true, SeqCst);
        }
        if !self.expanded.swap(true, SeqCst) {
            self.failed.store(true, SeqCst);
            return Err("the migration has no move step".to_owned());
        }
        self.done.store(true, SeqCst);
        first
    }

    /// `written`, after saying that it failed when it did (the other writers then stop).
    fn note<T>(&self, written: Outcome<T>) -> Outcome<T> {
        if written.is_err() {
            self.failed.store(true, SeqCst);
        }
        written
    }

    fn report(&self, first: &Summary, documents: usize) -> String {
        format!(
            "steps run: {}\nwrites before/during/after: {} {} {}\ndocuments: {documents}",
            first.run,
            self.before.load(SeqCst),
            self.during.load(SeqCst),
            self.after.load(SeqCst)
        )
    }
}

/// The writers' models, joined.
async fn joined<M: Ord, V>(
    tasks: Vec<tokio::task::JoinHandle<Outcome<BTreeMap<M, V>>>>,
) -> Outcome<BTreeMap<M, V>> {
    let mut all = BTreeMap::new();
    for t in tasks {
        all.extend(t.await.said("a writer")??);
    }
    Ok(all)
}

/// `found` must equal `model`, document by document.
fn compare<K: Ord + std::fmt::Debug, V: PartialEq + std::fmt::Debug>(
    found: &BTreeMap<K, V>,
    model: &BTreeMap<K, V>,
) -> Outcome<()> {
    if found.len() != model.len() {
        return Err(format!(
            "{} documents read, {} written",
            found.len(),
            model.len()
        ));
    }
    for (k, v) in model {
        match found.get(k) {
            Some(f) if f == v => {}
            f => return Err(format!("{k:?}: read {f:?}, written {v:?} (a write lost)")),
        }
    }
    Ok(())
}

/// A field renamed (`pages` stored as `page_count`): absolute and relative writes of it, reads
/// and replaces of old documents, inserts.
async fn rename(db: &Database) -> Outcome<String> {
    rename_old::ensure_all(db).await.said("old indexes")?;
    let seeded: Vec<rename_old::Book> = (0..SEEDED)
        .map(|i| rename_old::Book {
            id: ObjectId::new(),
            schema_version: 1,
            title: format!("t{i}"),
            pages: i as i32,
        })
        .collect();
    rename_old::BookRepo::new(db)
        .insert_many(&seeded)
        .await
        .said("seed")?;
    let clock = Arc::new(Clock::default());
    let mut tasks = Vec::new();
    for w in 0..WRITERS {
        let mut mine: BTreeMap<ObjectId, (String, i32)> = seeded
            .iter()
            .skip(w)
            .step_by(WRITERS)
            .map(|b| (b.id, (b.title.clone(), b.pages)))
            .collect();
        let (db, clock) = (db.clone(), clock.clone());
        tasks.push(tokio::spawn(async move {
            let clock2 = clock.clone();
            let written = async move {
                if !clock.expanded().await {
                    return Err("stopped before writing".to_owned());
                }
                let books = rename_new::BookRepo::new(&db);
                let mut ids: Vec<ObjectId> = mine.keys().copied().collect();
                let (mut rng, mut after) = (Lcg(w as u64 + 1), 0);
                loop {
                    let id = ids[rng.below(ids.len())];
                    let Some(m) = mine.get_mut(&id) else {
                        return Err(format!("{id} is not in the model"));
                    };
                    match rng.below(4) {
                        0 => {
                            let v = rng.below(10_000) as i32;
                            books.set_pages(&id, &v).await.said("set_pages")?;
                            m.1 = v;
                        }
                        1 => {
                            let n = books.inc_pages(&id, 3).await.said("inc_pages")?;
                            m.1 += 3;
                            if n != m.1 {
                                return Err(format!(
                                    "inc_pages of {id} gave {n}, expected {}",
                                    m.1
                                ));
                            }
                        }
                        2 => {
                            let Some(mut b) = books.get(&id).await.said("get")? else {
                                return Err(format!("{id} not found"));
                            };
                            if (&b.title, b.pages) != (&m.0, m.1) {
                                return Err(format!(
                                    "{id} read as {:?}, written {m:?}",
                                    (&b.title, b.pages)
                                ));
                            }
                            b.title.push('+');
                            books.replace(&b).await.said("replace")?;
                            m.0 = b.title;
                        }
                        _ => {
                            let b = rename_new::Book {
                                id: ObjectId::new(),
                                schema_version: 2,
                                title: format!("new{w}"),
                                pages: rng.below(100) as i32,
                            };
                            books.insert(&b).await.said("insert")?;
                            mine.insert(b.id, (b.title, b.pages));
                            ids.push(b.id);
                        }
                    }
                    if !clock.tick(&mut after) {
                        return Ok(mine);
                    }
                }
            }
            .await;
            clock2.note(written)
        }));
    }
    let mut quiet = |_: &Progress<'_>| {};
    let mut hold = clock.hold();
    let first = clock.migrate(rename_migrate::migrate(db, &mut hold)).await;
    let model = joined(tasks).await?;
    let first = first?;
    again(rename_migrate::migrate(db, &mut quiet).await)?;
    let found: BTreeMap<ObjectId, (String, i32)> = rename_new::BookRepo::new(db)
        .find(doc! {})
        .await
        .said("find")?
        .into_iter()
        .map(|b| (b.id, (b.title, b.pages)))
        .collect();
    compare(&found, &model)?;
    Ok(clock.report(&first, found.len()))
}

/// A second run of the migration runs no step.
fn again(second: Result<Summary, MigrationError>) -> Outcome<()> {
    let second = second.said("the second run")?;
    if second.run != 0 {
        return Err(format!("the second run ran {} steps", second.run));
    }
    Ok(())
}

/// A copy added (`author: id` becomes `author: {id, name}`, backfilled from the authors): the
/// authors renamed through the new code while the backfill runs, old books read and replaced
/// (another author, a wrong copy given), titles set, books inserted.
async fn copy(db: &Database) -> Outcome<String> {
    copy_old::ensure_all(db).await.said("old indexes")?;
    let authors: Vec<copy_old::Author> = (0..40)
        .map(|i| copy_old::Author {
            id: ObjectId::new(),
            name: format!("a{i}"),
        })
        .collect();
    copy_old::AuthorRepo::new(db)
        .insert_many(&authors)
        .await
        .said("seed authors")?;
    // Book `i` is written by writer `i % WRITERS` and names one of that writer's authors.
    let seeded: Vec<copy_old::Book> = (0..SEEDED)
        .map(|i| copy_old::Book {
            id: ObjectId::new(),
            schema_version: 1,
            title: format!("t{i}"),
            author: authors[(i * 7 % 10) * WRITERS + i % WRITERS].id,
        })
        .collect();
    copy_old::BookRepo::new(db)
        .insert_many(&seeded)
        .await
        .said("seed books")?;
    let clock = Arc::new(Clock::default());
    let mut tasks = Vec::new();
    for w in 0..WRITERS {
        let mut mine: BTreeMap<ObjectId, (String, ObjectId)> = seeded
            .iter()
            .skip(w)
            .step_by(WRITERS)
            .map(|b| (b.id, (b.title.clone(), b.author)))
            .collect();
        let my_authors: Vec<ObjectId> = authors
            .iter()
            .skip(w)
            .step_by(WRITERS)
            .map(|a| a.id)
            .collect();
        let mut names: BTreeMap<ObjectId, String> = authors
            .iter()
            .skip(w)
            .step_by(WRITERS)
            .map(|a| (a.id, a.name.clone()))
            .collect();
        let (db, clock) = (db.clone(), clock.clone());
        tasks.push(tokio::spawn(async move {
            let clock2 = clock.clone();
            let written = async move {
                if !clock.expanded().await {
                    return Err("stopped before writing".to_owned());
                }
                let (books, people) =
                    (copy_new::BookRepo::new(&db), copy_new::AuthorRepo::new(&db));
                let mut ids: Vec<ObjectId> = mine.keys().copied().collect();
                let (mut rng, mut after, mut n) = (Lcg(w as u64 + 11), 0, 0);
                loop {
                    n += 1;
                    let id = ids[rng.below(ids.len())];
                    let author = my_authors[rng.below(my_authors.len())];
                    let Some(m) = mine.get_mut(&id) else {
                        return Err(format!("{id} is not in the model"));
                    };
                    match rng.below(4) {
                        0 => {
                            let name = format!("a-w{w}-{n}");
                            people.set_name(&author, &name).await.said("set_name")?;
                            names.insert(author, name);
                        }
                        1 => {
                            let title = format!("t-w{w}-{n}");
                            books.set_title(&id, &title).await.said("set_title")?;
                            m.0 = title;
                        }
                        2 => {
                            let Some(mut b) = books.get(&id).await.said("get")? else {
                                return Err(format!("{id} not found"));
                            };
                            let name = names.get(&b.author.id).cloned().unwrap_or_default();
                            if (&b.title, b.author.id, &b.author.name) != (&m.0, m.1, &name) {
                                return Err(format!(
                                    "{id} read as {:?}, written {m:?} by {name}",
                                    (&b.title, b.author.id, &b.author.name)
                                ));
                            }
                            b.title.push('+');
                            b.author = copy_new::AuthorRef {
                                id: author,
                                name: "not the source's".to_owned(),
                            };
                            books.replace(&b).await.said("replace")?;
                            *m = (b.title, author);
                        }
                        _ => {
                            let b = copy_new::Book {
                                id: ObjectId::new(),
                                schema_version: 2,
                                title: format!("new{w}"),
                                author: copy_new::AuthorRef {
                                    id: author,
                                    name: String::new(),
                                },
                            };
                            books.insert(&b).await.said("insert")?;
                            mine.insert(b.id, (b.title, author));
                            ids.push(b.id);
                        }
                    }
                    if !clock.tick(&mut after) {
                        let with_names: BTreeMap<ObjectId, (String, ObjectId, String)> = mine
                            .into_iter()
                            .map(|(id, (t, a))| {
                                (id, (t, a, names.get(&a).cloned().unwrap_or_default()))
                            })
                            .collect();
                        return Ok(with_names);
                    }
                }
            }
            .await;
            clock2.note(written)
        }));
    }
    let mut quiet = |_: &Progress<'_>| {};
    let mut hold = clock.hold();
    let first = clock.migrate(copy_migrate::migrate(db, &mut hold)).await;
    let model = joined(tasks).await?;
    let first = first?;
    again(copy_migrate::migrate(db, &mut quiet).await)?;
    let found: BTreeMap<ObjectId, (String, ObjectId, String)> = copy_new::BookRepo::new(db)
        .find(doc! {})
        .await
        .said("find")?
        .into_iter()
        .map(|b| (b.id, (b.title, b.author.id, b.author.name)))
        .collect();
    compare(&found, &model)?;
    Ok(clock.report(&first, found.len()))
}

/// A field removed (`note`) and an optional one added (`rating`), the old documents without a
/// version: ratings set and removed, titles set, old documents read and replaced, inserts.
async fn fields(db: &Database) -> Outcome<String> {
    fields_old::ensure_all(db).await.said("old indexes")?;
    let seeded: Vec<fields_old::Book> = (0..SEEDED)
        .map(|i| fields_old::Book {
            id: ObjectId::new(),
            title: format!("t{i}"),
            note: format!("n{i}"),
        })
        .collect();
    fields_old::BookRepo::new(db)
        .insert_many(&seeded)
        .await
        .said("seed")?;
    let clock = Arc::new(Clock::default());
    let mut tasks = Vec::new();
    for w in 0..WRITERS {
        let mut mine: BTreeMap<ObjectId, (String, Option<i32>)> = seeded
            .iter()
            .skip(w)
            .step_by(WRITERS)
            .map(|b| (b.id, (b.title.clone(), None)))
            .collect();
        let (db, clock) = (db.clone(), clock.clone());
        tasks.push(tokio::spawn(async move {
            let clock2 = clock.clone();
            let written = async move {
                if !clock.expanded().await {
                    return Err("stopped before writing".to_owned());
                }
                let books = fields_new::BookRepo::new(&db);
                let mut ids: Vec<ObjectId> = mine.keys().copied().collect();
                let (mut rng, mut after, mut n) = (Lcg(w as u64 + 21), 0, 0);
                loop {
                    n += 1;
                    let id = ids[rng.below(ids.len())];
                    let Some(m) = mine.get_mut(&id) else {
                        return Err(format!("{id} is not in the model"));
                    };
                    match rng.below(5) {
                        0 => {
                            let r = Some(rng.below(5) as i32 + 1);
                            books.set_rating(&id, &r).await.said("set_rating")?;
                            m.1 = r;
                        }
                        1 => {
                            books.set_rating(&id, &None).await.said("set_rating")?;
                            m.1 = None;
                        }
                        2 => {
                            let title = format!("t-w{w}-{n}");
                            books.set_title(&id, &title).await.said("set_title")?;
                            m.0 = title;
                        }
                        3 => {
                            let Some(mut b) = books.get(&id).await.said("get")? else {
                                return Err(format!("{id} not found"));
                            };
                            if (&b.title, b.rating) != (&m.0, m.1) {
                                return Err(format!(
                                    "{id} read as {:?}, written {m:?}",
                                    (&b.title, b.rating)
                                ));
                            }
                            b.rating = Some(9);
                            books.replace(&b).await.said("replace")?;
                            m.1 = Some(9);
                        }
                        _ => {
                            let b = fields_new::Book {
                                id: ObjectId::new(),
                                schema_version: 1,
                                title: format!("new{w}"),
                                rating: Some(1),
                            };
                            books.insert(&b).await.said("insert")?;
                            mine.insert(b.id, (b.title, b.rating));
                            ids.push(b.id);
                        }
                    }
                    if !clock.tick(&mut after) {
                        return Ok(mine);
                    }
                }
            }
            .await;
            clock2.note(written)
        }));
    }
    let mut quiet = |_: &Progress<'_>| {};
    let mut hold = clock.hold();
    let first = clock.migrate(fields_migrate::migrate(db, &mut hold)).await;
    let model = joined(tasks).await?;
    let first = first?;
    again(fields_migrate::migrate(db, &mut quiet).await)?;
    let found: BTreeMap<ObjectId, (String, Option<i32>)> = fields_new::BookRepo::new(db)
        .find(doc! {})
        .await
        .said("find")?
        .into_iter()
        .map(|b| (b.id, (b.title, b.rating)))
        .collect();
    compare(&found, &model)?;
    Ok(clock.report(&first, found.len()))
}

#[tokio::main(flavor = "multi_thread", worker_threads = 4)]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, kind, uri, name] = args.as_slice() else {
        eprintln!("usage: migrate-online KIND URI DB");
        std::process::exit(2);
    };
    let db = match squillion::mongodb::Client::with_uri_str(uri).await {
        Ok(client) => client.database(name),
        Err(e) => {
            eprintln!("cannot connect: {e}");
            std::process::exit(2);
        }
    };
    let outcome = match kind.as_str() {
        "rename" => rename(&db).await,
        "copy" => copy(&db).await,
        "fields" => fields(&db).await,
        "queries" => query_checks::queries(&db).await,
        other => Err(format!("no kind {other}")),
    };
    match outcome {
        Ok(report) => println!("{report}"),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
