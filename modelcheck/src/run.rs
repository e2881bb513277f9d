//! Running operation sequences against the server: set up every collection the way an
//! application does (`ensure_validator`, `ensure_indexes`), then per step draw an operation the
//! state allows, apply it to the reference, call the repository, and check the outcome, the
//! stored documents, the typed read-back and the Plan's invariants. A failing sequence shrinks to
//! a minimal one.

use std::collections::BTreeMap;

use bson::{Bson, Document};
use futures::TryStreamExt;
use mongodb::{Client, Database};
use squillion_codegen::plan::{CollectionRole, Plan};

use crate::checks;
use crate::driver::{Driver, Schema as Entry};
use crate::model::{first_difference, normalized_doc, show, Reference};
use crate::ops::{self, Expect, Op, Schema};
use crate::values::Rng;

/// A failure: the schema, the operations up to the failing one, and what went wrong.
#[derive(Debug, Clone)]
pub struct Failure {
    /// The schema's module name.
    pub schema: String,
    /// Its `.sqn` text.
    pub sqn: String,
    /// The operations, the last one failing (empty: the setup failed).
    pub ops: Vec<Op>,
    /// What went wrong.
    pub message: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "schema {}: {}", self.schema, self.message)?;
        writeln!(f, "operations ({}):", self.ops.len())?;
        for op in &self.ops {
            writeln!(f, "  {}", op.describe())?;
        }
        writeln!(f, "--- {}.sqn ---\n{}", self.schema, self.sqn)?;
        let json = serde_json::to_string_pretty(&self.ops).unwrap_or_default();
        write!(f, "--- {}.ops.json ---\n{json}", self.schema)
    }
}

/// What a run did.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Operations called, by method prefix (`insert`, `push`, `link`...).
    pub calls: BTreeMap<String, u64>,
    /// Calls that were refused as expected (bound, duplicate).
    pub refused: u64,
    /// Calls made, by collection and method (the parts that complete an operation included).
    pub methods: BTreeMap<(String, String), u64>,
}

/// The Plan of a schema's text.
pub fn plan_of(name: &str, sqn: &str) -> Result<Plan, String> {
    let source = squillion_grammar::SourceFile::new(format!("{name}.sqn"), sqn.to_owned());
    let checked = squillion_codegen::load(&source).map_err(|d| format!("{d:?}"))?;
    Ok(squillion_codegen::engine::plan(&checked.model, &source))
}

async fn call(
    driver: &dyn Driver,
    db: &Database,
    collection: &str,
    method: &str,
    args: Vec<Bson>,
) -> Result<Result<Bson, squillion::Error>, String> {
    driver.call(db, collection, method, args).await
}

/// Sets up every collection: validator, then indexes; then checks the indexes against the Plan.
async fn setup(driver: &dyn Driver, db: &Database, plan: &Plan) -> Result<(), String> {
    for c in &plan.collections {
        if !driver.methods().iter().any(|m| m.collection == c.name) {
            // The Plan has a collection the generated code has no repository for.
            if c.role == CollectionRole::Entity {
                return Err(format!(
                    "the Plan's collection `{}` has no repository",
                    c.name
                ));
            }
            continue;
        }
        for m in ["ensure_validator", "ensure_indexes"] {
            match call(driver, db, &c.name, m, vec![]).await? {
                Ok(_) => {}
                Err(e) => return Err(format!("{}.{m}() failed: {e}", c.name)),
            }
        }
    }
    let mut listed = BTreeMap::new();
    for c in &plan.collections {
        let specs: Vec<Document> = match db.collection::<Document>(&c.name).list_indexes().await {
            Ok(cursor) => cursor
                .try_collect::<Vec<_>>()
                .await
                .map_err(|e| e.to_string())?
                .into_iter()
                .filter_map(|m| bson::to_document(&m).ok())
                .map(|mut d| {
                    // IndexModel: {key, options: {name, expireAfterSeconds...}}.
                    if let Ok(o) = d.get_document("options").cloned() {
                        d.extend(o);
                    }
                    d
                })
                .collect(),
            Err(_) => vec![],
        };
        listed.insert(c.name.clone(), specs);
    }
    let found = checks::indexes(plan, &listed);
    if found.is_empty() {
        Ok(())
    } else {
        Err(found.join("\n"))
    }
}

/// Every collection's stored documents.
async fn stored(db: &Database, plan: &Plan) -> Result<Reference, String> {
    let mut r = Reference::default();
    for c in &plan.collections {
        let docs: Vec<Document> = db
            .collection::<Document>(&c.name)
            .find(bson::doc! {})
            .await
            .map_err(|e| e.to_string())?
            .try_collect()
            .await
            .map_err(|e| e.to_string())?;
        r.collections.insert(c.name.clone(), docs);
    }
    Ok(r)
}

fn by_id(docs: &[Document]) -> BTreeMap<String, Document> {
    docs.iter()
        .map(|d| {
            let id = d.get("_id").map_or_else(String::new, show);
            (id, normalized_doc(d))
        })
        .collect()
}

/// Compares the stored documents with the reference, reads every document back through its
/// repository, and checks the Plan's invariants.
async fn check(
    driver: &dyn Driver,
    db: &Database,
    plan: &Plan,
    expected: &Reference,
    read: &mut Reference,
) -> Result<(), String> {
    let actual = stored(db, plan).await?;
    for c in &plan.collections {
        let (want, have) = (by_id(expected.docs(&c.name)), by_id(actual.docs(&c.name)));
        if want != have {
            let want_b = Bson::Document(
                want.iter()
                    .map(|(k, v)| (k.clone(), Bson::Document(v.clone())))
                    .collect(),
            );
            let have_b = Bson::Document(
                have.iter()
                    .map(|(k, v)| (k.clone(), Bson::Document(v.clone())))
                    .collect(),
            );
            let diff = first_difference("", &want_b, &have_b).unwrap_or_default();
            return Err(format!(
                "collection `{}` differs from the reference: {diff}",
                c.name
            ));
        }
        if !driver
            .methods()
            .iter()
            .any(|m| m.collection == c.name && m.name == "get")
        {
            continue;
        }
        for d in actual.docs(&c.name) {
            let Some(id) = d.get("_id") else { continue };
            if read.get(&c.name, id) == Some(d) {
                // Read back unchanged at an earlier step.
                continue;
            }
            let read = match call(driver, db, &c.name, "get", vec![id.clone()]).await? {
                Ok(v) => v,
                Err(e) => return Err(format!("{}.get({}) failed: {e}", c.name, show(id))),
            };
            let read = match read {
                Bson::Document(r) => r,
                other => {
                    return Err(format!(
                        "{}.get({}) returned {}",
                        c.name,
                        show(id),
                        show(&other)
                    ))
                }
            };
            let (a, b) = (
                Bson::Document(normalized_doc(d)),
                Bson::Document(normalized_doc(&read)),
            );
            if let Some(diff) = first_difference("", &a, &b) {
                return Err(format!(
                    "{}.get({}) reads back a document other than the stored one (stored vs read): {diff}",
                    c.name,
                    show(id)
                ));
            }
        }
    }
    *read = actual.clone();
    let mut actual = actual;
    actual.deleted.clone_from(&expected.deleted);
    let broken = checks::invariants(plan, &actual);
    if broken.is_empty() {
        Ok(())
    } else {
        Err(broken.join("\n"))
    }
}

/// Whether a call's answer is the expected value, field order aside.
fn same_value(want: &Bson, got: &Bson) -> bool {
    crate::model::normalized(want) == crate::model::normalized(got)
}

fn matches(expect: &Expect, got: &Result<Bson, squillion::Error>) -> bool {
    match (expect, got) {
        (Expect::Ok, Ok(_)) => true,
        (Expect::BoundExceeded, Err(squillion::Error::BoundExceeded { .. })) => true,
        (Expect::Duplicate, Err(e)) => e.is_duplicate_key(),
        (Expect::MissingReference, Err(squillion::Error::MissingReference { .. })) => true,
        (Expect::NotFound, Err(squillion::Error::NotFound { .. })) => true,
        (Expect::NoSuchElement, Err(squillion::Error::NoSuchElement { .. })) => true,
        (Expect::Invalid, Err(e)) => e.is_validation_failure(),
        _ => false,
    }
}

/// Runs one operation; `Ok(None)` when it did not apply to the state and was skipped.
async fn step(
    driver: &dyn Driver,
    db: &Database,
    s: &Schema<'_>,
    r: &mut Reference,
    read: &mut Reference,
    op: &Op,
    methods: &mut BTreeMap<(String, String), u64>,
) -> Result<Option<bool>, String> {
    if let ops::Kind::OutsideEnum { .. } = &op.kind {
        // A raw write, not a repository call: the validator must refuse it.
        if crate::outside::run(db, r, op).await?.is_none() {
            return Ok(None);
        }
        check(driver, db, s.plan, r, read).await?;
        return Ok(Some(true));
    }
    let mut refused = false;
    let mut first = true;
    for part in std::iter::once(op).chain(op.then.iter()) {
        if !s.has(&part.collection, &part.method) {
            // A shrunk schema no longer has the method: the operation does not apply.
            if first {
                return Ok(None);
            }
            continue;
        }
        let part = &crate::apply::settle(s, r, part);
        let mut next = r.clone();
        let Some(expect) = crate::apply::expect(s, &mut next, part) else {
            if first {
                return Ok(None);
            }
            continue;
        };
        // A write that answers a value (a queue's `complete` deleting its job, `insert_under`,
        // `new_version`) changes children as much as one that answers `()`: the reference's
        // kept lists and summaries follow both.
        if matches!(expect, Expect::Ok | Expect::Value(_)) {
            crate::subsets::refill_all(s.plan, &mut next);
        }
        // The repository is sent the document with its copies forged: it must store the
        // sources' values (the reference model's), never the caller's (issue 11).
        let sent = crate::apply::forged(s, part);
        let got = call(driver, db, &part.collection, &part.method, sent.bson_args()).await?;
        *methods
            .entry((part.collection.clone(), part.method.clone()))
            .or_default() += 1;
        if let Expect::Claimed { job, started } = &expect {
            let claimed = match &got {
                Ok(Bson::Document(d)) => d.clone(),
                other => {
                    return Err(format!(
                        "{} answered {}, expected the job {}",
                        part.describe(),
                        other.as_ref().map_or_else(|e| format!("Err({e})"), show),
                        show(&Bson::Document(job.clone()))
                    ))
                }
            };
            let (mut want, mut have) = (job.clone(), claimed.clone());
            want.remove(started);
            let at = have.remove(started);
            if !same_value(&Bson::Document(want), &Bson::Document(have)) {
                return Err(format!(
                    "{} claimed {}, expected {}",
                    part.describe(),
                    show(&Bson::Document(claimed)),
                    show(&Bson::Document(job.clone()))
                ));
            }
            if let (Some(at), Some(id)) = (at, job.get("_id")) {
                if let Some(d) = next.get_mut(&part.collection, id) {
                    d.insert(started.clone(), at);
                }
            }
            crate::subsets::refill_all(s.plan, &mut next);
            *r = next;
            first = false;
            continue;
        }
        if let Expect::Value(want) = &expect {
            match &got {
                Ok(v) if same_value(want, v) => {}
                _ => {
                    let got = match &got {
                        Ok(v) => format!("Ok({})", show(v)),
                        Err(e) => format!("Err({e})"),
                    };
                    return Err(format!(
                        "{} answered {got}, expected Ok({})",
                        part.describe(),
                        show(want)
                    ));
                }
            }
            *r = next;
            first = false;
            continue;
        }
        if let Expect::Query {
            selected,
            sort,
            limit,
        } = &expect
        {
            match &got {
                Ok(v) => crate::queries::answered(selected, sort, *limit, v)
                    .map_err(|e| format!("{}: {e}", part.describe()))?,
                Err(e) => return Err(format!("{} answered Err({e})", part.describe())),
            }
            first = false;
            continue;
        }
        if !matches(&expect, &got) {
            let got = match &got {
                Ok(v) => format!("Ok({})", show(v)),
                Err(e) => format!("Err({e})"),
            };
            return Err(format!(
                "{} answered {got}, expected {expect:?}",
                part.describe()
            ));
        }
        if expect == Expect::Ok {
            if let Ok(v) = &got {
                crate::buckets::adopt(&mut next, part, v);
            }
            *r = next;
        } else {
            refused = true;
            if first {
                // The main call was refused: nothing to complete.
                break;
            }
            // Completing a new child was refused (the parent is full): the application takes
            // the child back, as nothing inserts and links it in one step.
            if op.kind == ops::Kind::Insert {
                let id = op
                    .bson_args()
                    .first()
                    .and_then(|d| d.as_document()?.get("_id").cloned())
                    .unwrap_or(Bson::Null);
                match call(driver, db, &op.collection, "delete", vec![id.clone()]).await? {
                    Ok(_) => {
                        // The delete refills the parents keeping lists or summaries of the
                        // child (its insert added it to them): so does the reference.
                        r.remove(&op.collection, &id);
                        crate::subsets::refill_all(s.plan, r);
                    }
                    Err(e) => return Err(format!("taking back {} failed: {e}", show(&id))),
                }
                break;
            }
        }
        first = false;
    }
    check(driver, db, s.plan, r, read).await?;
    Ok(Some(refused))
}

/// A fresh database name for a run of `schema` (MongoDB allows at most 63 characters).
fn database_name(schema: &str) -> String {
    let short: String = schema.chars().take(30).collect();
    format!("mc_{short}_{}", bson::oid::ObjectId::new().to_hex())
}

/// Replays `ops` on a fresh database; the index of the failing operation and why.
pub async fn replay(client: &Client, entry: &Entry, ops: &[Op]) -> Result<Stats, (usize, String)> {
    let plan = plan_of(entry.name, entry.sqn).map_err(|e| (0, e))?;
    let s = Schema {
        plan: &plan,
        methods: entry.driver.methods(),
    };
    let db = client.database(&database_name(entry.name));
    let result = async {
        setup(entry.driver, &db, &plan).await.map_err(|e| (0, e))?;
        let (mut r, mut read) = (Reference::default(), Reference::default());
        let mut stats = Stats::default();
        for (i, op) in ops.iter().enumerate() {
            match step(
                entry.driver,
                &db,
                &s,
                &mut r,
                &mut read,
                op,
                &mut stats.methods,
            )
            .await
            {
                Ok(Some(refused)) => {
                    let prefix = op.method.split('_').next().unwrap_or_default().to_owned();
                    *stats.calls.entry(prefix).or_default() += 1;
                    stats.refused += u64::from(refused);
                }
                Ok(None) => {}
                Err(e) => return Err((i, e)),
            }
        }
        Ok(stats)
    }
    .await;
    let _ = db.drop().await;
    result
}

/// Draws and runs `steps` operations from `seed`; on failure, shrinks the sequence.
pub async fn run(
    client: &Client,
    entry: &Entry,
    seed: u64,
    steps: usize,
) -> Result<Stats, Failure> {
    let fail = |ops: Vec<Op>, message: String| Failure {
        schema: entry.name.to_owned(),
        sqn: entry.sqn.to_owned(),
        ops,
        message,
    };
    let plan = plan_of(entry.name, entry.sqn).map_err(|e| fail(vec![], e))?;
    let s = Schema {
        plan: &plan,
        methods: entry.driver.methods(),
    };
    let db = client.database(&database_name(entry.name));
    let mut rng = Rng::new(seed);
    let mut ops: Vec<Op> = Vec::new();
    let mut failure = None;
    let mut stats = Stats::default();
    if let Err(e) = setup(entry.driver, &db, &plan).await {
        failure = Some(e);
    } else {
        let (mut r, mut read) = (Reference::default(), Reference::default());
        for _ in 0..steps {
            let Some(op) = crate::draw::draw(&s, &r, &mut rng) else {
                break;
            };
            ops.push(op.clone());
            match step(
                entry.driver,
                &db,
                &s,
                &mut r,
                &mut read,
                &op,
                &mut stats.methods,
            )
            .await
            {
                Ok(Some(refused)) => {
                    let prefix = op.method.split('_').next().unwrap_or_default().to_owned();
                    *stats.calls.entry(prefix).or_default() += 1;
                    stats.refused += u64::from(refused);
                }
                Ok(None) => {}
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
    }
    let _ = db.drop().await;
    match failure {
        None => Ok(stats),
        Some(message) if ops.is_empty() => Err(fail(ops, message)),
        Some(message) => {
            let (ops, message) = crate::shrink::operations(client, entry, ops, message).await;
            Err(fail(ops, message))
        }
    }
}

/// Draws and runs up to `steps` operations from `seed` on a fresh database, each checked as
/// [`run`] checks it, and leaves the database for the caller (who drops it): data written only
/// through the generated repositories, for tools that read a live database (`squillion audit`).
pub async fn populate(
    client: &Client,
    entry: &Entry,
    seed: u64,
    steps: usize,
) -> Result<(Database, Plan), String> {
    let plan = plan_of(entry.name, entry.sqn)?;
    let s = Schema {
        plan: &plan,
        methods: entry.driver.methods(),
    };
    let db = client.database(&database_name(entry.name));
    let filled = async {
        setup(entry.driver, &db, &plan).await?;
        let mut rng = Rng::new(seed);
        let (mut r, mut read) = (Reference::default(), Reference::default());
        let mut methods = BTreeMap::new();
        for _ in 0..steps {
            let Some(op) = crate::draw::draw(&s, &r, &mut rng) else {
                break;
            };
            step(entry.driver, &db, &s, &mut r, &mut read, &op, &mut methods).await?;
        }
        Ok::<(), String>(())
    }
    .await;
    match filled {
        Ok(()) => Ok((db, plan)),
        Err(e) => {
            let _ = db.drop().await;
            Err(e)
        }
    }
}

/// The operations of `ops` that apply when replayed on a fresh database (a shrunk schema skips
/// those whose collection or method it dropped): a regression runs every one of its operations.
pub async fn applied(client: &Client, entry: &Entry, ops: &[Op]) -> Vec<Op> {
    let Ok(plan) = plan_of(entry.name, entry.sqn) else {
        return ops.to_vec();
    };
    let s = Schema {
        plan: &plan,
        methods: entry.driver.methods(),
    };
    let db = client.database(&database_name(entry.name));
    let mut kept = Vec::new();
    if setup(entry.driver, &db, &plan).await.is_ok() {
        let (mut r, mut read) = (Reference::default(), Reference::default());
        let mut methods = BTreeMap::new();
        for op in ops {
            match step(entry.driver, &db, &s, &mut r, &mut read, op, &mut methods).await {
                Ok(Some(_)) => kept.push(op.clone()),
                Ok(None) => {}
                Err(_) => {
                    kept.push(op.clone());
                    break;
                }
            }
        }
    }
    let _ = db.drop().await;
    kept
}
