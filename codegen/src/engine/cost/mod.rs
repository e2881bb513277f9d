//! The cost model: what each layout of a relationship costs under its declared workload.
//!
//! Data only. For one relation it derives the workload from the facts ([`Workload`]: how often the
//! children are read together, found by their parent, read alone, and how often one is added),
//! estimates per alternative layout the round trips, documents and bytes read, index entries
//! written and documents rewritten per unit of that workload ([`Estimate`]), and turns them into
//! an estimated server time with constants calibrated once (below). The engine chooses by that
//! time among the alternatives the rules accept (`choose`); the others are costed and shown.
//! `crate::prose` words nothing here: the Plan carries the numbers ([`crate::plan::CostPlan`]).

use crate::model::{Layout, Relation, RelationKind};
use crate::plan::{AlternativeCost, CostPlan, WorkloadPlan};

use super::context::Ctx;

mod workload;

pub(crate) use workload::*;

// Calibration, once, from the measurements in docs/benchmarks.md ("Calibration of the cost
// model"): the repository benchmark (`benches/repo_ops.rs`: get by id, insert, bounded push,
// bucket append) and the layout benchmark's IoT run (`benches/layouts.rs`: 200 and 3,600
// readings read by `find`, one embedded document of 4,000 readings rewritten per append), all
// through the typed repositories against the test server, in microseconds. The transaction's
// cost comes from the layout benchmark's calibration step
// (`benches/layout_workloads/calibrate.rs`), which isolates each constant as the difference of
// two plain driver operations timed in the same round; its other figures are reported beside
// these (docs/benchmarks.md) and not used: raw operations without the typed decoding price a
// document read at a third of what the repositories pay.

/// One command sent and answered (get by id: 2,607/s).
pub(crate) const ROUND_TRIP_US: f64 = 380.0;
/// Each document the server returns (3,600 small readings in 40 ms, 2 round trips).
pub(crate) const DOCUMENT_READ_US: f64 = 10.0;
/// Each KiB the server returns (one 120 KiB sensor document read in 7.9 ms).
pub(crate) const KIB_READ_US: f64 = 50.0;
/// A new document inserted (insert: 2,530/s, with its `_id` index entry).
pub(crate) const DOCUMENT_INSERTED_US: f64 = 40.0;
/// An existing document updated in place (bucket append: 943/s against insert's 2,530/s).
pub(crate) const DOCUMENT_REWRITTEN_US: f64 = 300.0;
/// Each KiB of a document rewritten (an append to a 120 KiB embedded array: 13.4 ms).
pub(crate) const KIB_REWRITTEN_US: f64 = 100.0;
/// Each index entry written (a child_ref append with two index entries: 610 µs).
pub(crate) const INDEX_ENTRY_US: f64 = 60.0;
/// A transaction around writes, beyond the writes themselves and the commit's round trip
/// counted with the round trips: two `$inc`s in a transaction with its commit less the same two
/// without one (399 µs in the calibration run of 2026-11-26) less that run's round trip (269 µs).
pub(crate) const TRANSACTION_US: f64 = 130.0;

/// Documents the driver receives in its first batch; more take a `getMore` round trip.
const FIRST_BATCH: f64 = 101.0;

/// What one alternative costs per unit of workload.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Estimate {
    pub round_trips: f64,
    pub documents_read: f64,
    pub bytes_read: f64,
    pub index_entries_written: f64,
    pub documents_inserted: f64,
    pub documents_rewritten: f64,
    pub bytes_rewritten: f64,
    /// Transactions committed (each also counts its commit among the round trips).
    pub transactions: f64,
}

impl Estimate {
    /// Estimated server time, in microseconds.
    pub fn micros(&self) -> f64 {
        self.round_trips * ROUND_TRIP_US
            + self.documents_read * DOCUMENT_READ_US
            + self.bytes_read / 1024.0 * KIB_READ_US
            + self.documents_inserted * DOCUMENT_INSERTED_US
            + self.documents_rewritten * DOCUMENT_REWRITTEN_US
            + self.bytes_rewritten / 1024.0 * KIB_REWRITTEN_US
            + self.index_entries_written * INDEX_ENTRY_US
            + self.transactions * TRANSACTION_US
    }

    /// `self + other * times`.
    fn add(&mut self, other: Estimate, times: f64) {
        self.round_trips += other.round_trips * times;
        self.documents_read += other.documents_read * times;
        self.bytes_read += other.bytes_read * times;
        self.index_entries_written += other.index_entries_written * times;
        self.documents_inserted += other.documents_inserted * times;
        self.documents_rewritten += other.documents_rewritten * times;
        self.bytes_rewritten += other.bytes_rewritten * times;
        self.transactions += other.transactions * times;
    }
}

/// One alternative: a layout (and a bucket's size).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Alternative {
    pub layout: Layout,
    pub bucket_size: Option<u64>,
}

/// The cost of `alt` under `w`.
pub(crate) fn estimate(w: &Workload, alt: Alternative) -> Estimate {
    let mut total = Estimate::default();
    total.add(list_read(w, alt), w.list_reads);
    total.add(alone_read(w, alt), w.alone_reads);
    total.add(append(w, alt), w.appends);
    total.add(parent_read(w, alt), w.parent_reads);
    total
}

/// What one parent document read by the parent's own queries carries that nobody reads: the
/// ids of its children when the parent holds them (an id array pays only when the parent lists
/// its children by it; issue 13). Embedded children are not charged: embedding is chosen for
/// children shown with their parent (rule 1), and a query that wants the parent without them
/// says so with `returns`. The document is read whatever the layout; only these bytes differ.
fn parent_read(w: &Workload, alt: Alternative) -> Estimate {
    let bytes = match alt.layout {
        Layout::ParentRefs | Layout::OneWay | Layout::TwoWay => w.children * ID_BYTES,
        Layout::Embed | Layout::ChildRef | Layout::Bucket | Layout::LinkCollection => 0.0,
    };
    Estimate {
        bytes_read: bytes,
        ..Estimate::default()
    }
}

/// Bytes of an id in an array (the id and its array key).
const ID_BYTES: f64 = 16.0;

fn list_read(w: &Workload, alt: Alternative) -> Estimate {
    let k = w.children_per_list;
    let (n, c, p) = (w.children, w.child_bytes, w.parent_bytes);
    let batches = |docs: f64| 1.0 + if docs > FIRST_BATCH { 1.0 } else { 0.0 };
    match alt.layout {
        Layout::Embed => Estimate {
            round_trips: 1.0,
            documents_read: 1.0,
            bytes_read: p + n * c,
            ..Estimate::default()
        },
        Layout::Bucket => {
            let b = alt.bucket_size.unwrap_or(1).max(1) as f64;
            // A page is one bucket; a range overlaps one bucket more than it covers.
            let docs = if w.aligned {
                (k / b).ceil().max(1.0)
            } else {
                (k / b).ceil() + 1.0
            };
            let filled = b.min(n.max(1.0));
            let parent = if w.with_parent { 1.0 } else { 0.0 };
            Estimate {
                round_trips: parent + batches(docs),
                documents_read: parent + docs,
                bytes_read: parent * p + docs * filled * c,
                ..Estimate::default()
            }
        }
        Layout::ChildRef | Layout::LinkCollection => {
            let parent = if w.with_parent { 1.0 } else { 0.0 };
            let links = f64::from(u8::from(alt.layout == Layout::LinkCollection));
            Estimate {
                round_trips: parent + links + batches(k),
                documents_read: parent + links * k + k,
                bytes_read: parent * p + links * k * 2.0 * ID_BYTES + k * c,
                ..Estimate::default()
            }
        }
        Layout::ParentRefs | Layout::TwoWay | Layout::OneWay => Estimate {
            round_trips: 1.0 + batches(k),
            documents_read: 1.0 + k,
            bytes_read: p + n * ID_BYTES + k * (c + back_ids(w, alt.layout)),
            ..Estimate::default()
        },
    }
}

/// Bytes of the ids a child holds of the other side beyond its own fields: under `two_way`
/// every child document carries its partners' ids, read with it.
fn back_ids(w: &Workload, layout: Layout) -> f64 {
    if layout == Layout::TwoWay {
        w.partners * ID_BYTES
    } else {
        0.0
    }
}

fn alone_read(w: &Workload, alt: Alternative) -> Estimate {
    let (n, c, p) = (w.children, w.child_bytes, w.parent_bytes);
    match alt.layout {
        // The child is found inside its parent (or its bucket), which is read whole.
        Layout::Embed => Estimate {
            round_trips: 1.0,
            documents_read: 1.0,
            bytes_read: p + n * c,
            ..Estimate::default()
        },
        Layout::Bucket => {
            let b = alt.bucket_size.unwrap_or(1).max(1) as f64;
            Estimate {
                round_trips: 1.0,
                documents_read: 1.0,
                bytes_read: b.min(n.max(1.0)) * c,
                ..Estimate::default()
            }
        }
        _ => Estimate {
            round_trips: 1.0,
            documents_read: 1.0,
            bytes_read: c + back_ids(w, alt.layout),
            ..Estimate::default()
        },
    }
}

fn append(w: &Workload, alt: Alternative) -> Estimate {
    if w.links {
        return link(w, alt);
    }
    let mut e = written(w, alt);
    let kept = w.kept.on_parent(alt.layout);
    if kept > 0.0 {
        if parent_rewritten_by_append(alt.layout) {
            // The parent is rewritten by the append already (its array): what it keeps goes in
            // the same write.
            e.bytes_rewritten += kept;
        } else {
            // The child is written apart from its parent: the parent's update is a second write,
            // in one transaction with the child's (`squillion::__private::kept`), and its commit.
            e.round_trips += 2.0;
            e.documents_rewritten += 1.0;
            e.bytes_rewritten += w.parent_bytes + kept;
            e.transactions += 1.0;
        }
    }
    e
}

/// Whether adding a child under `layout` rewrites its parent anyway (the embedded children or
/// the array of ids are in it), so that what the parent keeps of its children goes in that
/// write; otherwise (a child document of its own, a bucket) keeping it is a second write.
pub(crate) fn parent_rewritten_by_append(layout: Layout) -> bool {
    matches!(
        layout,
        Layout::Embed | Layout::ParentRefs | Layout::OneWay | Layout::TwoWay
    )
}

/// The writes of one child added, before what its parent keeps of it.
fn written(w: &Workload, alt: Alternative) -> Estimate {
    let (n, c, p) = (w.children, w.child_bytes, w.parent_bytes);
    match alt.layout {
        // The parent is rewritten with every child it holds.
        Layout::Embed => Estimate {
            round_trips: 1.0,
            documents_rewritten: 1.0,
            bytes_rewritten: p + n * c,
            ..Estimate::default()
        },
        // The bucket with room is rewritten (half full on average); its count's index entry moves
        // with every append, and a new bucket writes its index entries once per `size` children.
        Layout::Bucket => {
            let b = alt.bucket_size.unwrap_or(1).max(1) as f64;
            Estimate {
                round_trips: 1.0,
                documents_rewritten: 1.0,
                bytes_rewritten: b.min(n.max(1.0)) / 2.0 * c,
                index_entries_written: 1.0 + 3.0 / b,
                ..Estimate::default()
            }
        }
        // A document of its own: its `_id` and the reference to its parent are indexed.
        Layout::ChildRef => Estimate {
            round_trips: 1.0,
            documents_inserted: 1.0,
            index_entries_written: 2.0,
            ..Estimate::default()
        },
        // The child, then its id pushed onto the parent's array.
        Layout::ParentRefs | Layout::OneWay => Estimate {
            round_trips: 2.0,
            documents_inserted: 1.0,
            documents_rewritten: 1.0,
            bytes_rewritten: p + n * ID_BYTES,
            index_entries_written: 1.0,
            ..Estimate::default()
        },
        Layout::TwoWay => Estimate {
            round_trips: 2.0,
            documents_inserted: 1.0,
            documents_rewritten: 1.0,
            bytes_rewritten: p + n * ID_BYTES,
            index_entries_written: 2.0,
            ..Estimate::default()
        },
        // The child, and a link document with an index entry per side.
        Layout::LinkCollection => Estimate {
            round_trips: 2.0,
            documents_inserted: 2.0,
            index_entries_written: 4.0,
            ..Estimate::default()
        },
    }
}

/// A link between two documents that exist already (many-to-many): nothing is inserted but a
/// link document; the arrays that hold ids are rewritten.
fn link(w: &Workload, alt: Alternative) -> Estimate {
    let (n, c, p) = (w.children, w.child_bytes, w.parent_bytes);
    match alt.layout {
        // A copy of the other side pushed into the holder.
        Layout::Embed => Estimate {
            round_trips: 1.0,
            documents_rewritten: 1.0,
            bytes_rewritten: p + n * c,
            ..Estimate::default()
        },
        // Both sides' arrays in one transaction: two updates and the commit; the holder's ids
        // and the other side's.
        Layout::TwoWay => Estimate {
            round_trips: 3.0,
            documents_rewritten: 2.0,
            bytes_rewritten: p + c + (n + w.partners) * ID_BYTES,
            index_entries_written: 2.0,
            transactions: 1.0,
            ..Estimate::default()
        },
        // The holder's array, with its multikey index entry (the other direction reads by it).
        Layout::OneWay | Layout::ParentRefs => Estimate {
            round_trips: 1.0,
            documents_rewritten: 1.0,
            bytes_rewritten: p + n * ID_BYTES,
            index_entries_written: 1.0,
            ..Estimate::default()
        },
        // A link document: its `_id` and an index entry per side.
        Layout::LinkCollection | Layout::ChildRef | Layout::Bucket => Estimate {
            round_trips: 1.0,
            documents_inserted: 1.0,
            index_entries_written: 3.0,
            ..Estimate::default()
        },
    }
}

/// The alternatives worth costing for a relation of this kind, the engine's own first.
pub(crate) fn alternatives(rel: &Relation, chosen: Alternative, bucket: u64) -> Vec<Alternative> {
    let layouts: &[Layout] = match rel.kind {
        RelationKind::OneToOne => &[Layout::Embed, Layout::ChildRef, Layout::TwoWay],
        RelationKind::OneToMany => &[
            Layout::Embed,
            Layout::Bucket,
            Layout::ChildRef,
            Layout::ParentRefs,
            Layout::TwoWay,
        ],
        RelationKind::ManyToMany => &[
            Layout::Embed,
            Layout::OneWay,
            Layout::TwoWay,
            Layout::LinkCollection,
        ],
    };
    let mut out = vec![chosen];
    for &layout in layouts {
        if layout == chosen.layout {
            continue;
        }
        let bucket_size = (layout == Layout::Bucket).then_some(bucket);
        out.push(Alternative {
            layout,
            bucket_size,
        });
    }
    out
}

/// Rounds the Plan's numbers (estimates, and stable in JSON): two decimals, or three
/// significant digits below 0.01 (a rate of 20 a day is 0.000231 a second, not 0).
fn round(x: f64) -> f64 {
    if x != 0.0 && x.abs() < 0.01 {
        let scale = 10f64.powi(2 - x.abs().log10().floor() as i32);
        (x * scale).round() / scale
    } else {
        (x * 100.0).round() / 100.0
    }
}

/// The Plan's record of the costs: every alternative, whether the rules accept it, which one won.
pub(crate) fn record(
    w: &Workload,
    costed: &[(Alternative, bool, Estimate)],
    chosen: Alternative,
) -> CostPlan {
    let chosen_us = costed
        .iter()
        .find(|(a, _, _)| *a == chosen)
        .map(|(_, _, e)| e.micros())
        .unwrap_or(0.0);
    CostPlan {
        workload: WorkloadPlan {
            list_reads: round(w.list_reads),
            children_per_list: round(w.children_per_list),
            alone_reads: round(w.alone_reads),
            appends: round(w.appends),
            children: round(w.children),
            child_bytes: w.child_bytes.round() as u64,
            parent_bytes: w.parent_bytes.round() as u64,
            declared: w.declared,
            appends_declared: w.appends_declared,
            range_window: w.range_window,
            parent_reads: round(w.parent_reads),
        },
        alternatives: costed
            .iter()
            .map(|(a, acceptable, e)| alternative_cost(*a, *acceptable, *a == chosen, e, chosen_us))
            .collect(),
    }
}

/// One alternative's line of the cost table, `relative` to the chosen one's `chosen_us`.
fn alternative_cost(
    a: Alternative,
    acceptable: bool,
    chosen: bool,
    e: &Estimate,
    chosen_us: f64,
) -> AlternativeCost {
    AlternativeCost {
        layout: a.layout,
        bucket_size: a.bucket_size,
        chosen,
        nothing_copied: false,
        acceptable,
        round_trips: round(e.round_trips),
        documents_read: round(e.documents_read),
        bytes_read: round(e.bytes_read),
        index_entries_written: round(e.index_entries_written),
        documents_written: round(e.documents_inserted + e.documents_rewritten),
        documents_rewritten: round(e.documents_rewritten),
        bytes_rewritten: round(e.bytes_rewritten),
        transactions: round(e.transactions),
        micros: round(e.micros()),
        relative: if chosen_us > 0.0 {
            round(e.micros() / chosen_us)
        } else {
            1.0
        },
    }
}

/// The layout changed after it was costed (an embedding cycle broken with a reference): the
/// alternative now chosen is marked and listed first (estimated under `w` if it was not), every
/// cost is relative to it, and the one it replaced is ruled out.
pub(crate) fn rechoose(plan: &mut CostPlan, chosen: Alternative, w: &Workload) {
    for a in &mut plan.alternatives {
        if a.chosen {
            a.acceptable = false;
        }
        a.chosen = false;
    }
    let now = match plan
        .alternatives
        .iter()
        .position(|a| a.layout == chosen.layout && a.bucket_size == chosen.bucket_size)
    {
        Some(i) => plan.alternatives.remove(i),
        None => alternative_cost(chosen, true, true, &estimate(w, chosen), 0.0),
    };
    let base = now.micros;
    plan.alternatives.insert(
        0,
        AlternativeCost {
            chosen: true,
            acceptable: true,
            ..now
        },
    );
    for a in &mut plan.alternatives {
        a.relative = if base > 0.0 {
            round(a.micros / base)
        } else {
            1.0
        };
    }
}

/// Reads of a copied field per update of its source when the schema states no ratio (a copy a
/// query needs): the read-mostly default of every other write.
pub(crate) const COPY_READS_PER_UPDATE: f64 = 1.0 / WRITES_PER_READ;

/// What the copies rule 5 made cost and save. With copies, every update of a source rewrites the
/// documents holding its copies (one `updateMany`, its parent's children); without them, every
/// read that shows a copied field reads its source: a child read alone or a list of children
/// shows its parent's fields by reading the parent (unless the list read reads it anyway), a
/// parent showing its children's fields reads the children. The upkeep is the same under every
/// layout, so it is added to every alternative, and the chosen layout without the copies
/// becomes one more alternative, ruled out by rule 5 (the copies' ratio chose them).
pub(crate) fn with_copies(
    ctx: &Ctx<'_>,
    rel: &Relation,
    cost: &mut CostPlan,
    parent: &str,
    copies: &[crate::plan::Denormalized],
) {
    let upkept: Vec<&crate::plan::Denormalized> = copies.iter().filter(|d| !d.immutable).collect();
    if copies.is_empty() || cost.chosen().is_none() {
        return;
    }
    let w = workload(ctx, rel);
    let reads = w.list_reads + w.alone_reads;
    // Sources updated per unit of workload: the most often updated copy's (they are updated
    // one `updateMany` per source field at most; fields of one source document together).
    let per_update = upkept
        .iter()
        .map(|d| {
            d.reads_per_update
                .unwrap_or(COPY_READS_PER_UPDATE)
                .max(1e-9)
        })
        .fold(f64::INFINITY, f64::min);
    let updates = if upkept.is_empty() || !per_update.is_finite() {
        0.0
    } else {
        reads / per_update
    };
    let from_parent = copies
        .iter()
        .all(|d| d.source.split('.').next() == Some(parent));
    let holders = if from_parent { w.children } else { 1.0 };
    let upkeep = Estimate {
        round_trips: updates,
        documents_rewritten: updates * holders,
        bytes_rewritten: updates
            * holders
            * if from_parent {
                w.child_bytes
            } else {
                w.parent_bytes
            },
        ..Estimate::default()
    };
    let extra = if from_parent {
        let list = if w.with_parent { 0.0 } else { w.list_reads };
        let n = w.alone_reads + list;
        Estimate {
            round_trips: n,
            documents_read: n,
            bytes_read: n * w.parent_bytes,
            ..Estimate::default()
        }
    } else {
        let n = w.list_reads + w.alone_reads;
        Estimate {
            round_trips: n,
            documents_read: n * w.children_per_list,
            bytes_read: n * w.children_per_list * w.child_bytes,
            ..Estimate::default()
        }
    };
    let Some(mut bare) = cost.chosen().cloned() else {
        return;
    };
    // The fan-out finds the copies through an index on the source's id where they live. A
    // child's own reference is indexed already under child_ref (and a bucket's or an embedded
    // child's copies share their parent's document); an id array leaves it unindexed, so each
    // child added writes one more index entry.
    let fan_out_index = Estimate {
        index_entries_written: if upkept.is_empty() { 0.0 } else { w.appends },
        ..Estimate::default()
    };
    for a in &mut cost.alternatives {
        add_to(a, &upkeep);
        if fan_out_unindexed_by_layout(a.layout) {
            add_to(a, &fan_out_index);
        }
    }
    add_to(&mut bare, &extra);
    bare.chosen = false;
    bare.acceptable = false;
    bare.nothing_copied = true;
    cost.alternatives.push(bare);
    let chosen_us = cost.chosen().map_or(0.0, |a| a.micros);
    for a in &mut cost.alternatives {
        a.relative = if chosen_us > 0.0 {
            round(a.micros / chosen_us)
        } else {
            1.0
        };
    }
}

/// Whether `layout` leaves the references that find a relationship's copies unindexed (an id
/// array lists the children by `_id`), so their fan-out needs an index of its own.
fn fan_out_unindexed_by_layout(layout: Layout) -> bool {
    matches!(layout, Layout::ParentRefs | Layout::OneWay | Layout::TwoWay)
}

/// `a + e`, figures and estimated time.
fn add_to(a: &mut AlternativeCost, e: &Estimate) {
    a.round_trips = round(a.round_trips + e.round_trips);
    a.documents_read = round(a.documents_read + e.documents_read);
    a.bytes_read = round(a.bytes_read + e.bytes_read);
    a.index_entries_written = round(a.index_entries_written + e.index_entries_written);
    a.documents_written = round(a.documents_written + e.documents_inserted + e.documents_rewritten);
    a.documents_rewritten = round(a.documents_rewritten + e.documents_rewritten);
    a.bytes_rewritten = round(a.bytes_rewritten + e.bytes_rewritten);
    a.transactions = round(a.transactions + e.transactions);
    a.micros = round(a.micros + e.micros());
}
