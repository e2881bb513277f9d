//! One-to-squillions logging (seed 004's hosts and log messages): `Host.logs`, `squillions`,
//! `growth append_heavy, unbounded`, and `recent_logs on Host.logs` (the latest 50, 20/s).
//! 10 hosts of 500 messages; the hot read is a host's latest 50 messages.

use squillion::__private::bson::{doc, oid::ObjectId, DateTime, Document as BsonDocument};
use squillion::__private::mongodb::{Client, Collection, Database};
use squillion::BoundedVec;

use crate::common::{h, old_id, Mix, Op, Variant};
use crate::measure::{workload, Outcome};
use crate::{db, logs_bucket, logs_chosen, logs_embed, logs_parent_refs};

const HOSTS: usize = 10;
const LOGS_PER_HOST: usize = 500;
const LATEST: usize = 50;
/// Every level but this one: all of them.
const NOT: &str = "trace";

fn host_ids() -> Vec<ObjectId> {
    (0..HOSTS).map(|_| ObjectId::new()).collect()
}

fn log_time(k: usize) -> DateTime {
    DateTime::from_millis(1_700_000_000_000 + k as i64 * 1_000)
}

macro_rules! log_entry {
    ($m:ident, $k:expr $(, $f:ident: $v:expr)*) => {
        $m::LogEntry {
            at: log_time($k),
            level: ["info", "warn", "debug"][$k % 3].into(),
            message: format!("{:>6} cpu is on fire on the east rack; fans at full speed, load rising since boot", $k),
            $($f: $v,)*
        }
    };
}

macro_rules! host {
    ($m:ident, $id:expr $(, $f:ident: $v:expr)*) => {
        $m::Host {
            id: $id,
            name: "goofy.example.com".into(),
            ipaddr: "127.66.66.66".into(),
            $($f: $v,)*
        }
    };
}

/// The host an operation reads or writes.
fn target(i: usize, salt: u64) -> usize {
    h(i, salt) % HOSTS
}

struct Chosen {
    hosts: Vec<ObjectId>,
    host_repo: logs_chosen::HostRepo,
    logs: logs_chosen::LogEntryRepo,
}

impl Variant for Chosen {
    fn name(&self) -> &'static str {
        "child_ref (chosen)"
    }
    fn schema(&self) -> &'static str {
        include_str!("../layouts/logs_chosen.sqn")
    }
    async fn seed(&self) {
        self.logs.ensure_indexes().await.unwrap();
        let hosts: Vec<_> = self
            .hosts
            .iter()
            .map(|id| host!(logs_chosen, *id))
            .collect();
        self.host_repo.insert_many(&hosts).await.unwrap();
        let mut all = Vec::new();
        for id in &self.hosts {
            for k in 0..LOGS_PER_HOST {
                all.push(log_entry!(logs_chosen, k, id: ObjectId::new(), host: *id));
            }
        }
        self.logs.insert_many(&all).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        if op == Op::Write {
            let host = self.hosts[target(i, 11)];
            let e = log_entry!(logs_chosen, LOGS_PER_HOST + i, id: ObjectId::new(), host: host);
            self.logs.insert(&e).await.unwrap();
            return 0;
        }
        let host = self.hosts[target(i, 12)];
        self.logs.recent_logs(&host, NOT).await.unwrap().len()
    }
}

struct Bucket {
    hosts: Vec<ObjectId>,
    host_repo: logs_bucket::HostRepo,
    buckets: logs_bucket::HostLogsBucketRepo,
}

impl Variant for Bucket {
    fn name(&self) -> &'static str {
        "bucket(50) (forced)"
    }
    fn schema(&self) -> &'static str {
        include_str!("../layouts/logs_bucket.sqn")
    }
    async fn seed(&self) {
        self.buckets.ensure_indexes().await.unwrap();
        let hosts: Vec<_> = self
            .hosts
            .iter()
            .map(|id| host!(logs_bucket, *id))
            .collect();
        self.host_repo.insert_many(&hosts).await.unwrap();
        let mut all = Vec::new();
        for id in &self.hosts {
            for b in 0..LOGS_PER_HOST / LATEST {
                let logs: Vec<_> = (0..LATEST)
                    .map(|k| log_entry!(logs_bucket, b * LATEST + k))
                    .collect();
                all.push(logs_bucket::HostLogsBucket {
                    id: old_id(),
                    host: *id,
                    logs: BoundedVec::try_from(logs).unwrap(),
                    count: LATEST as i32,
                });
            }
        }
        self.buckets.insert_many(&all).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        if op == Op::Write {
            let host = self.hosts[target(i, 11)];
            let e = log_entry!(logs_bucket, LOGS_PER_HOST + i);
            self.buckets.append_logs(&host, &e).await.unwrap();
            return 0;
        }
        // The generated query: every bucket of the host unwound, sorted, the first 50.
        let host = self.hosts[target(i, 12)];
        self.buckets.recent_logs(&host, NOT).await.unwrap().len()
    }
}

struct Embed {
    hosts: Vec<ObjectId>,
    host_repo: logs_embed::HostRepo,
    raw: Collection<BsonDocument>,
}

impl Variant for Embed {
    fn name(&self) -> &'static str {
        "embed (forced)"
    }
    fn schema(&self) -> &'static str {
        include_str!("../layouts/logs_embed.sqn")
    }
    async fn seed(&self) {
        let hosts: Vec<_> = self
            .hosts
            .iter()
            .map(|id| {
                host!(logs_embed, *id, logs:
                    (0..LOGS_PER_HOST).map(|k| log_entry!(logs_embed, k)).collect())
            })
            .collect();
        self.host_repo.insert_many(&hosts).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        if op == Op::Write {
            // No repository method: the forced embed of an unbounded relation is a plain `Vec`
            // without a layout attribute. Plain driver `$push`.
            let host = self.hosts[target(i, 11)];
            let e = squillion::__private::bson::to_bson(&log_entry!(logs_embed, LOGS_PER_HOST + i))
                .unwrap();
            self.raw
                .update_one(doc! { "_id": host }, doc! { "$push": { "logs": e } })
                .await
                .unwrap();
            return 0;
        }
        let host = self.hosts[target(i, 12)];
        self.host_repo.recent_logs(&host, NOT).await.unwrap().len()
    }
}

struct ParentRefs {
    hosts: Vec<ObjectId>,
    host_repo: logs_parent_refs::HostRepo,
    logs: logs_parent_refs::LogEntryRepo,
    raw_hosts: Collection<BsonDocument>,
}

impl Variant for ParentRefs {
    fn name(&self) -> &'static str {
        "parent_refs (forced)"
    }
    fn schema(&self) -> &'static str {
        include_str!("../layouts/logs_parent_refs.sqn")
    }
    async fn seed(&self) {
        let mut hosts = Vec::new();
        let mut all = Vec::new();
        for id in &self.hosts {
            let es: Vec<_> = (0..LOGS_PER_HOST)
                .map(|k| log_entry!(logs_parent_refs, k, id: ObjectId::new()))
                .collect();
            hosts.push(host!(logs_parent_refs, *id, logs: es.iter().map(|e| e.id).collect()));
            all.extend(es);
        }
        self.host_repo.insert_many(&hosts).await.unwrap();
        self.logs.insert_many(&all).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        if op == Op::Write {
            // The message through the repository; its id added with a plain driver `$push` (the
            // forced, unbounded id array has no layout attribute, so no `add_logs`).
            let host = self.hosts[target(i, 11)];
            let e = log_entry!(logs_parent_refs, LOGS_PER_HOST + i, id: ObjectId::new());
            self.logs.insert(&e).await.unwrap();
            self.raw_hosts
                .update_one(doc! { "_id": host }, doc! { "$push": { "logs": e.id } })
                .await
                .unwrap();
            return 0;
        }
        // No generated query (W119: no single query reads an id array's children): the host,
        // then its last 50 ids with `$in`.
        let host = self.hosts[target(i, 12)];
        let doc = self.host_repo.get(&host).await.unwrap().unwrap();
        let ids: Vec<ObjectId> = doc.logs.iter().rev().take(LATEST).copied().collect();
        let mut es = self
            .logs
            .find(doc! { "_id": { "$in": ids }, "level": { "$ne": NOT } })
            .await
            .unwrap();
        es.sort_by_key(|e| std::cmp::Reverse(e.at));
        es.len()
    }
}

pub async fn run(client: &Client, ops: usize, rounds: usize, dbs: &mut Vec<Database>) -> Outcome {
    let hosts = host_ids();
    let d: Vec<Database> = (0..4).map(|k| db(client, &format!("logs{k}"))).collect();
    dbs.extend(d.iter().cloned());
    let chosen = Chosen {
        hosts: hosts.clone(),
        host_repo: logs_chosen::HostRepo::new(&d[0]),
        logs: logs_chosen::LogEntryRepo::new(&d[0]),
    };
    let bucket = Bucket {
        hosts: hosts.clone(),
        host_repo: logs_bucket::HostRepo::new(&d[1]),
        buckets: logs_bucket::HostLogsBucketRepo::new(&d[1]),
    };
    let embed = Embed {
        hosts: hosts.clone(),
        host_repo: logs_embed::HostRepo::new(&d[2]),
        raw: d[2].collection("hosts"),
    };
    let parent_refs = ParentRefs {
        hosts: hosts.clone(),
        host_repo: logs_parent_refs::HostRepo::new(&d[3]),
        logs: logs_parent_refs::LogEntryRepo::new(&d[3]),
        raw_hosts: d[3].collection("hosts"),
    };
    // The Plan's workload: `recent_logs` 20/s, and, `append_heavy`, ten messages per read.
    let w = workload(chosen.schema(), "Host.logs");
    let mix = Mix::new(&[(Op::Hot, w.list_reads), (Op::Write, w.appends)]);
    let rows = crate::drive!(&mix, ops, rounds; chosen, bucket, embed, parent_refs);
    Outcome {
        schema: rows[0].schema.clone(),
        title: "Logging (seed 004): Host.logs, squillions, the latest 50 read, append-heavy".into(),
        relation: "Host.logs",
        mix: mix.describe(&|op| {
            if op == Op::Hot {
                "latest 50 read"
            } else {
                "message added"
            }
        }),
        rows,
    }
}
