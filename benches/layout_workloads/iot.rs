//! IoT (seed 002, `examples/patterns.sqn`): `Sensor.readings`, `time_range by time`,
//! `summary count, total(value), max(value)`, `growth append_heavy`. 10 sensors of 4,000
//! readings; the hot read is a sensor's readings over a window with their count, total and
//! maximum.
//!
//! Benchmark harness: every value and schema here is the benchmark's own, and the server is the
//! one it started; a failed write or read means the measurement is void, so it stops the run
//! (`unwrap`) rather than reporting numbers for work that did not happen.

use std::cell::Cell;

use squillion::__private::bson::{doc, oid::ObjectId, DateTime, Document as BsonDocument};
use squillion::__private::mongodb::{Client, Collection, Database};
use squillion::BoundedVec;

use crate::common::{h, Mix, Op, Variant};
use crate::measure::{workload, Outcome};
use crate::{db, iot_all_refs, iot_bucket50, iot_child_ref, iot_chosen, iot_embed};

const SENSORS: usize = 10;
const READINGS_PER_SENSOR: usize = 4_000;
/// The windows a range read covers, in seconds (one reading per second per sensor): one bucket's
/// worth, and an hour.
const WINDOWS: [usize; 2] = [200, 3_600];

/// A variant's schema as one window's workload declares it: the range read covers `window`
/// readings (`time_range by time window N`), and the range reads are a declared query with a
/// rate (appends follow from `append_heavy`: ten per read), so the engine decides by cost. The
/// generated code is the same for both windows (the window and the rate change no operation the
/// workload calls); only the Plan's costs and choice differ.
fn with_window(schema: &str, window: usize) -> String {
    let mut s = schema.replacen(
        "time_range by time\n",
        &format!("time_range by time window {window}\n"),
        1,
    );
    s.push_str(
        "\n/// The range reads, 1 a second.\nquery readings_between on Sensor.readings {\n  where time >= ?\n  rate 1/s\n}\n",
    );
    s
}

fn reading_time(k: usize) -> DateTime {
    DateTime::from_millis(1_700_000_000_000 + k as i64 * 1_000)
}

fn reading_value(sensor: usize, k: usize) -> f64 {
    ((sensor * 7 + k * 13) % 100) as f64 / 4.0
}

/// The sensor and window `[from, to]` read by operation `i`, inside the seeded readings.
fn iot_window(i: usize, range: usize) -> (i32, DateTime, DateTime) {
    let s = h(i, 3) % SENSORS;
    let k = h(i, 4) % (READINGS_PER_SENSOR - range);
    (s as i32, reading_time(k), reading_time(k + range - 1))
}

/// Count, total and max of the readings in `[from, to]`.
fn summarize<'a>(
    readings: impl Iterator<Item = (&'a DateTime, f64)>,
    from: DateTime,
    to: DateTime,
) -> usize {
    let (mut n, mut total, mut max) = (0usize, 0.0, f64::MIN);
    for (t, v) in readings {
        if *t >= from && *t <= to {
            n += 1;
            total += v;
            max = max.max(v);
        }
    }
    std::hint::black_box((total, max));
    n
}

macro_rules! iot_bucketed {
    ($ty:ident, $m:ident, $size:expr, $label:literal, $schema:literal) => {
        struct $ty {
            buckets: $m::SensorReadingsBucketRepo,
            range: Cell<usize>,
        }

        impl Variant for $ty {
            fn name(&self) -> &'static str {
                $label
            }
            fn schema(&self) -> &'static str {
                include_str!($schema)
            }
            async fn seed(&self) {
                self.buckets.ensure_indexes().await.unwrap();
                let mut docs = Vec::new();
                for s in 0..SENSORS {
                    for b in 0..READINGS_PER_SENSOR / $size {
                        let rs: Vec<$m::Reading> = (b * $size..(b + 1) * $size)
                            .map(|k| $m::Reading {
                                time: reading_time(k),
                                value: reading_value(s, k),
                            })
                            .collect();
                        docs.push($m::SensorReadingsBucket {
                            id: ObjectId::new(),
                            sensor: s as i32,
                            count: $size as i32,
                            start: rs[0].time,
                            end: rs[$size - 1].time,
                            total: rs.iter().map(|r| r.value).sum(),
                            max: rs.iter().map(|r| r.value).fold(f64::MIN, f64::max),
                            readings: BoundedVec::try_from(rs).unwrap(),
                        });
                    }
                }
                self.buckets.insert_many(&docs).await.unwrap();
            }
            async fn run(&self, op: Op, i: usize) -> usize {
                if op == Op::Write {
                    let s = h(i, 5) % SENSORS;
                    let r = $m::Reading {
                        time: reading_time(READINGS_PER_SENSOR + i),
                        value: reading_value(s, i),
                    };
                    self.buckets.append_readings(&(s as i32), &r).await.unwrap();
                    return 0;
                }
                let (s, from, to) = iot_window(i, self.range.get());
                let bs = self.buckets.readings_between(&s, &from, &to).await.unwrap();
                summarize(
                    bs.iter()
                        .flat_map(|b| b.readings.iter().map(|r| (&r.time, r.value))),
                    from,
                    to,
                )
            }
        }
    };
}
iot_bucketed!(
    IotChosen,
    iot_chosen,
    200,
    "bucket(200) + computed",
    "../layouts/iot_chosen.sqn"
);
iot_bucketed!(
    IotBucket50,
    iot_bucket50,
    50,
    "bucket(50) + computed (forced)",
    "../layouts/iot_bucket50.sqn"
);

struct IotEmbed {
    range: Cell<usize>,
    sensors: iot_embed::SensorRepo,
    raw: Collection<BsonDocument>,
}

impl Variant for IotEmbed {
    fn name(&self) -> &'static str {
        "embed + computed (forced)"
    }
    fn schema(&self) -> &'static str {
        include_str!("../layouts/iot_embed.sqn")
    }
    async fn seed(&self) {
        let docs: Vec<_> = (0..SENSORS)
            .map(|s| {
                let rs: Vec<iot_embed::Reading> = (0..READINGS_PER_SENSOR)
                    .map(|k| iot_embed::Reading {
                        time: reading_time(k),
                        value: reading_value(s, k),
                    })
                    .collect();
                iot_embed::Sensor {
                    number: s as i32,
                    readings_count: rs.len() as i32,
                    readings_total: rs.iter().map(|r| r.value).sum(),
                    readings_max: rs.iter().map(|r| r.value).reduce(f64::max),
                    readings: rs,
                }
            })
            .collect();
        self.sensors.insert_many(&docs).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        if op == Op::Write {
            // No repository method (`computed` is declared, but the unbounded forced array has
            // no layout attribute, so no `push_readings`): the plain driver update the computed
            // fields describe.
            let s = h(i, 5) % SENSORS;
            let v = reading_value(s, i);
            let r = doc! { "ts": reading_time(READINGS_PER_SENSOR + i), "v": v };
            self.raw
                .update_one(
                    doc! { "_id": s as i32 },
                    doc! {
                        "$push": { "readings": r },
                        "$inc": { "readings_count": 1, "readings_total": v },
                        "$max": { "readings_max": v },
                    },
                )
                .await
                .unwrap();
            return 0;
        }
        let (s, from, to) = iot_window(i, self.range.get());
        let sensor = self.sensors.get(&s).await.unwrap().unwrap();
        summarize(sensor.readings.iter().map(|r| (&r.time, r.value)), from, to)
    }
}

/// A reading written as a document of its own through module `$m`'s repository, and a range
/// read by the repository's `find` with the range filter (the child_ref methods page by `_id`,
/// not by time), served by the index `{sensor: 1, ts: 1}` the plan declares. With `$m`'s
/// summaries kept (`iot_child_ref`), the insert also updates the sensor in its transaction.
macro_rules! referenced_run {
    ($self:ident, $m:ident, $op:ident, $i:ident) => {{
        if $op == Op::Write {
            let s = h($i, 5) % SENSORS;
            let r = $m::Reading {
                id: ObjectId::new(),
                time: reading_time(READINGS_PER_SENSOR + $i),
                value: reading_value(s, $i),
                sensor: s as i32,
            };
            $self.readings.insert(&r).await.unwrap();
            return 0;
        }
        let (s, from, to) = iot_window($i, $self.range.get());
        let rs = $self
            .readings
            .find(doc! { "sensor": s, "ts": { "$gte": from, "$lte": to } })
            .await
            .unwrap();
        summarize(rs.iter().map(|r| (&r.time, r.value)), from, to)
    }};
}

struct IotAllRefs {
    range: Cell<usize>,
    readings: iot_all_refs::ReadingRepo,
}

impl Variant for IotAllRefs {
    fn name(&self) -> &'static str {
        "child_ref, nothing precomputed (all references; reference)"
    }
    /// No summaries: the schema's `summary count, total(value), max(value)` is dropped, so this
    /// variant does less on every write than any layout that keeps them.
    fn reference(&self) -> bool {
        true
    }
    fn schema(&self) -> &'static str {
        include_str!("../layouts/iot_all_refs.sqn")
    }
    async fn seed(&self) {
        self.readings.ensure_indexes().await.unwrap();
        let mut docs = Vec::new();
        for s in 0..SENSORS {
            for k in 0..READINGS_PER_SENSOR {
                docs.push(iot_all_refs::Reading {
                    id: ObjectId::new(),
                    time: reading_time(k),
                    value: reading_value(s, k),
                    sensor: s as i32,
                });
            }
        }
        self.readings.insert_many(&docs).await.unwrap();
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        referenced_run!(self, iot_all_refs, op, i)
    }
}

struct IotChildRef {
    range: Cell<usize>,
    sensors: iot_child_ref::SensorRepo,
    readings: iot_child_ref::ReadingRepo,
}

impl Variant for IotChildRef {
    fn name(&self) -> &'static str {
        "child_ref + computed (forced)"
    }
    fn schema(&self) -> &'static str {
        include_str!("../layouts/iot_child_ref.sqn")
    }
    async fn seed(&self) {
        self.readings.ensure_indexes().await.unwrap();
        // The sensors first (a reading's insert keeps its sensor's summaries), then each
        // sensor's readings in one insert: the repository refills the sensor's summaries once.
        let sensors: Vec<_> = (0..SENSORS)
            .map(|s| iot_child_ref::Sensor {
                number: s as i32,
                readings_count: 0,
                readings_total: 0.0,
                readings_max: None,
            })
            .collect();
        self.sensors.insert_many(&sensors).await.unwrap();
        for s in 0..SENSORS {
            let docs: Vec<_> = (0..READINGS_PER_SENSOR)
                .map(|k| iot_child_ref::Reading {
                    id: ObjectId::new(),
                    time: reading_time(k),
                    value: reading_value(s, k),
                    sensor: s as i32,
                })
                .collect();
            self.readings.insert_many(&docs).await.unwrap();
        }
    }
    async fn run(&self, op: Op, i: usize) -> usize {
        referenced_run!(self, iot_child_ref, op, i)
    }
}

pub async fn run(
    client: &Client,
    ops: usize,
    rounds: usize,
    dbs: &mut Vec<Database>,
) -> Vec<Outcome> {
    let d: Vec<Database> = (0..5).map(|k| db(client, &format!("iot{k}"))).collect();
    dbs.extend(d.iter().cloned());
    let chosen = IotChosen {
        buckets: iot_chosen::SensorReadingsBucketRepo::new(&d[0]),
        range: Cell::new(WINDOWS[0]),
    };
    let b50 = IotBucket50 {
        buckets: iot_bucket50::SensorReadingsBucketRepo::new(&d[1]),
        range: Cell::new(WINDOWS[0]),
    };
    let embed = IotEmbed {
        sensors: iot_embed::SensorRepo::new(&d[2]),
        raw: d[2].collection("sensors"),
        range: Cell::new(WINDOWS[0]),
    };
    let all_refs = IotAllRefs {
        readings: iot_all_refs::ReadingRepo::new(&d[3]),
        range: Cell::new(WINDOWS[0]),
    };
    let child_ref = IotChildRef {
        sensors: iot_child_ref::SensorRepo::new(&d[4]),
        readings: iot_child_ref::ReadingRepo::new(&d[4]),
        range: Cell::new(WINDOWS[0]),
    };
    chosen.seed().await;
    b50.seed().await;
    child_ref.seed().await;
    embed.seed().await;
    all_refs.seed().await;
    // The Plan's workload: one range read a second, declared, and, `append_heavy`, ten readings
    // added per read; each window is declared (`with_window`).
    let w = workload(&with_window(chosen.schema(), WINDOWS[0]), "Sensor.readings");
    let mix = Mix::new(&[(Op::Hot, w.list_reads), (Op::Write, w.appends)]);
    let mut out = Vec::new();
    for (k, window) in WINDOWS.into_iter().enumerate() {
        chosen.range.set(window);
        b50.range.set(window);
        embed.range.set(window);
        all_refs.range.set(window);
        child_ref.range.set(window);
        // Later windows continue the write sequence: appends never collide.
        let mut rows =
            crate::measure!(&mix, ops, rounds, k * rounds; chosen, b50, embed, child_ref, all_refs);
        for r in &mut rows {
            r.schema = with_window(&r.schema, window);
        }
        out.push(Outcome {
            schema: with_window(chosen.schema(), window),
            title: if window == WINDOWS[0] {
                "IoT, 200 s (seed 002): Sensor.readings, range reads of 200 readings".into()
            } else {
                "IoT, 1 h (seed 002): Sensor.readings, range reads of 3,600 readings".into()
            },
            relation: "Sensor.readings",
            mix: mix.describe(&|op| {
                if op == Op::Hot {
                    "range read"
                } else {
                    "reading added"
                }
            }),
            rows,
        });
    }
    out
}
