//! Observed access: index uses from `$indexStats`, operation counts from `$collStats` latency
//! statistics and from the profiler (`system.profile`), where the server keeps them. Read before
//! anything else, so that `infer`'s own reads are not counted.

use std::collections::BTreeMap;

use futures::TryStreamExt;
use mongodb::bson::{doc, Bson, DateTime, Document};
use mongodb::Database;

use super::server::Server;
use super::shape::number;

/// Uses of one index.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexUse {
    /// The index's name.
    pub name: String,
    /// Operations that used it.
    pub ops: u64,
    /// Since when.
    pub since: Option<DateTime>,
}

/// Operations the profiler recorded on one collection.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Profiled {
    /// Queries and getMores.
    pub reads: u64,
    /// Inserts.
    pub inserts: u64,
    /// Updates.
    pub updates: u64,
    /// Removes.
    pub removes: u64,
    /// Seconds between the first and the last recorded operation.
    pub seconds: f64,
    /// Queries by the top-level fields their filters name (sorted), of the latest
    /// [`FILTERS_READ`] recorded.
    pub filters: BTreeMap<Vec<String>, u64>,
}

/// Recorded queries whose filters are read (the newest).
const FILTERS_READ: i64 = 5_000;

/// What the server observed of one collection.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Access {
    /// Per index, its uses (`None`: `$indexStats` missing).
    pub indexes: Option<Vec<IndexUse>>,
    /// Reads and writes counted by `$collStats` latency statistics (`None`: missing).
    pub latency: Option<(u64, u64)>,
    /// What the profiler recorded (`None`: profiler off or empty).
    pub profiled: Option<Profiled>,
}

impl Access {
    /// Reads per second the profiler saw, when it saw any.
    pub fn reads_per_second(&self) -> Option<f64> {
        let p = self.profiled.as_ref()?;
        (p.reads > 0).then(|| p.reads as f64 / p.seconds.max(1.0))
    }
}

fn u(v: Option<&Bson>) -> u64 {
    v.and_then(number).unwrap_or(0.0).max(0.0) as u64
}

/// The access statistics of the named collections (same order).
pub async fn observe(
    db: &Database,
    server: &mut Server,
    names: &[String],
) -> mongodb::error::Result<Vec<Access>> {
    let profiled = profiler(db, server).await?;
    let mut out = Vec::new();
    for name in names {
        let coll = db.collection::<Document>(name);
        let mut access = Access {
            profiled: profiled.get(name).cloned(),
            ..Access::default()
        };
        if let Some(cursor) = server
            .aggregate(
                &coll,
                vec![doc! { "$indexStats": {} }],
                "$indexStats",
                "index uses are unknown: each query from an index asks for its rate",
            )
            .await?
        {
            let docs: Vec<Document> = cursor.try_collect().await?;
            access.indexes = Some(
                docs.iter()
                    .map(|d| IndexUse {
                        name: d.get_str("name").unwrap_or_default().to_owned(),
                        ops: u(d.get_document("accesses").ok().and_then(|a| a.get("ops"))),
                        since: d
                            .get_document("accesses")
                            .ok()
                            .and_then(|a| a.get_datetime("since").ok())
                            .copied(),
                    })
                    .collect(),
            );
        }
        if let Some(cursor) = server
            .aggregate(
                &coll,
                vec![doc! { "$collStats": { "latencyStats": {} } }],
                "$collStats",
                "operation counts per collection are unknown",
            )
            .await?
        {
            let docs: Vec<Document> = cursor.try_collect().await?;
            if let Some(l) = docs
                .first()
                .and_then(|d| d.get_document("latencyStats").ok())
            {
                let ops = |k: &str| u(l.get_document(k).ok().and_then(|d| d.get("ops")));
                access.latency = Some((ops("reads"), ops("writes")));
            }
        }
        out.push(access);
    }
    Ok(out)
}

/// The profiler's operation counts per collection, when it recorded any.
async fn profiler(
    db: &Database,
    server: &mut Server,
) -> mongodb::error::Result<BTreeMap<String, Profiled>> {
    let mut out = BTreeMap::new();
    let names = db.list_collection_names().await?;
    if !names.iter().any(|n| n == "system.profile") {
        return Ok(out);
    }
    let pipeline = vec![doc! { "$group": {
        "_id": { "ns": "$ns", "op": "$op" },
        "n": { "$sum": 1 },
        "first": { "$min": "$ts" },
        "last": { "$max": "$ts" },
    } }];
    let Some(cursor) = server
        .aggregate(
            &db.collection::<Document>("system.profile"),
            pipeline,
            "profiler",
            "the profiler's records could not be read",
        )
        .await?
    else {
        return Ok(out);
    };
    let docs: Vec<Document> = cursor.try_collect().await?;
    let prefix = format!("{}.", db.name());
    for d in docs {
        let Ok(id) = d.get_document("_id") else {
            continue;
        };
        let Some(coll) = id
            .get_str("ns")
            .ok()
            .and_then(|ns| ns.strip_prefix(&prefix))
        else {
            continue;
        };
        let n = u(d.get("n"));
        let p: &mut Profiled = out.entry(coll.to_owned()).or_default();
        match id.get_str("op").unwrap_or_default() {
            "query" | "getmore" => p.reads += n,
            "insert" => p.inserts += n,
            "update" => p.updates += n,
            "remove" => p.removes += n,
            _ => {}
        }
        if let (Ok(first), Ok(last)) = (d.get_datetime("first"), d.get_datetime("last")) {
            let secs = (last.timestamp_millis() - first.timestamp_millis()) as f64 / 1000.0;
            p.seconds = p.seconds.max(secs);
        }
    }
    // What the latest queries filter on: one document each, the newest first, a bounded number.
    let mut cursor = db
        .collection::<Document>("system.profile")
        .find(doc! { "op": "query" })
        .sort(doc! { "ts": -1 })
        .limit(FILTERS_READ)
        .projection(doc! { "ns": 1, "command.filter": 1 })
        .await?;
    while let Some(d) = cursor.try_next().await? {
        let Some(coll) = d.get_str("ns").ok().and_then(|ns| ns.strip_prefix(&prefix)) else {
            continue;
        };
        let Some(p) = out.get_mut(coll) else { continue };
        let mut keys: Vec<String> = d
            .get_document("command")
            .ok()
            .and_then(|c| c.get_document("filter").ok())
            .map(|f| f.keys().filter(|k| !k.starts_with('$')).cloned().collect())
            .unwrap_or_default();
        keys.sort();
        *p.filters.entry(keys).or_default() += 1;
    }
    out.retain(|_, p| p.reads + p.inserts + p.updates + p.removes > 0);
    Ok(out)
}
