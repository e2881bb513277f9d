//! Measuring the variants of a workload, and comparing the measured ranking with the cost
//! model's: every variant's predicted cost is read from the Plan of the workload's chosen schema
//! (its relationship's `cost.alternatives`, under the workload the schema declares), the mix the
//! benchmark runs is built from the same Plan's workload, and the two rankings are compared with
//! Spearman's rank correlation.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use squillion_codegen::plan::{Plan, WorkloadPlan};
use squillion_grammar::SourceFile;

use super::common::{Mix, Op, Variant};

/// Commands sent to the server (every `CommandStartedEvent` but the handshake's).
pub static COMMANDS: AtomicU64 = AtomicU64::new(0);

fn commands() -> u64 {
    COMMANDS.load(Ordering::SeqCst)
}

pub fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// What one variant measured over the rounds.
#[derive(Default)]
pub struct Measured {
    /// Operations per second of each round's mix, and of its hot reads.
    pub mix: Vec<f64>,
    pub hot: Vec<f64>,
    /// Round trips per hot read and per mixed operation (the last round's).
    pub rt_hot: f64,
    pub rt_mix: f64,
    pub items_hot: f64,
}

/// One round: `ops` operations of the mix, then a quarter as many hot reads (at least 10);
/// operations per second of each.
pub async fn round<V: Variant>(v: &V, mix: &Mix, ops: usize, offset: usize, m: &mut Measured) {
    let c0 = commands();
    let start = Instant::now();
    for i in offset..offset + ops {
        v.run(mix.op(i), i).await;
    }
    let t = start.elapsed().max(Duration::from_micros(1)).as_secs_f64();
    m.mix.push(ops as f64 / t);
    m.rt_mix = (commands() - c0) as f64 / ops as f64;

    let hot = (ops / 4).max(10);
    let c0 = commands();
    let mut items = 0;
    let start = Instant::now();
    for i in offset..offset + hot {
        items += v.run(Op::Hot, i).await;
    }
    let t = start.elapsed().max(Duration::from_micros(1)).as_secs_f64();
    m.hot.push(hot as f64 / t);
    m.rt_hot = (commands() - c0) as f64 / hot as f64;
    m.items_hot = items as f64 / hot as f64;
}

/// Operation numbers of the warm-up round, apart from every measured round's.
pub const WARM_UP: usize = 1 << 30;

/// Rounds of every variant in turn: `$ops` operations of `$mix` each, the rounds alternating
/// the variants so that a slow moment of the machine hits them all alike. `$first` numbers the
/// first round (later measurements of seeded data continue the write sequence).
#[macro_export]
macro_rules! measure {
    ($mix:expr, $ops:expr, $rounds:expr, $first:expr; $($v:expr),+ $(,)?) => {{
        let mut rows = vec![$($crate::measure::Row {
            name: $crate::common::Variant::name(&$v),
            schema: $crate::common::Variant::schema(&$v).to_owned(),
            reference: $crate::common::Variant::reference(&$v),
            m: $crate::measure::Measured::default(),
        }),+];
        // A warm-up round of each variant, not counted: the first operations after seeding pay
        // for cold caches and connections.
        $(
            $crate::measure::round(&$v, $mix, ($ops / 4).max(10), $crate::measure::WARM_UP + $first * $ops, &mut $crate::measure::Measured::default()).await;
        )+
        for r in 0..$rounds {
            let offset = (r + $first) * $ops;
            let mut k = 0;
            $(
                $crate::measure::round(&$v, $mix, $ops, offset, &mut rows[k].m).await;
                k += 1;
            )+
            let _ = k;
        }
        rows
    }};
}

pub struct Row {
    pub name: &'static str,
    /// The variant's schema as the cost model sees it (its `.sqn`, with the workload's declared
    /// facts where the workload adds some: the IoT windows).
    pub schema: String,
    /// A point of reference that does less than the facts ask (`Variant::reference`): left out
    /// of the chosen layout's ratio to the best alternative.
    pub reference: bool,
    pub m: Measured,
}

/// One workload's measurement: its variants, the engine's choice first.
pub struct Outcome {
    pub title: String,
    /// The relationship the variants lay out (`BlogPost.comments`).
    pub relation: &'static str,
    pub mix: String,
    /// The schema whose Plan predicts the costs and names the engine's choice (the first
    /// variant's, unless the workload declares more).
    pub schema: String,
    pub rows: Vec<Row>,
}

/// Seeds every variant, then measures them all with [`measure!`]: one driver for every workload
/// whose variants are measured once.
#[macro_export]
macro_rules! drive {
    ($mix:expr, $ops:expr, $rounds:expr; $($v:expr),+ $(,)?) => {{
        $( $crate::common::Variant::seed(&$v).await; )+
        $crate::measure!($mix, $ops, $rounds, 0; $($v),+)
    }};
}

pub fn plan(name: &str, text: &str) -> Plan {
    let source = SourceFile::new(format!("{name}.sqn"), text);
    match squillion_codegen::load(&source) {
        Ok(checked) => squillion_codegen::engine::plan(&checked.model, &source),
        Err(d) => panic!("{name}: {}", source.render(&d, false)),
    }
}

/// The workload the cost model assumed for `relation` in `schema`.
pub fn workload(schema: &str, relation: &str) -> WorkloadPlan {
    let p = plan("chosen", schema);
    let d = p
        .relationships
        .iter()
        .find(|d| d.id == relation)
        .unwrap_or_else(|| panic!("no relationship {relation}"));
    d.cost.as_ref().expect("costed").workload.clone()
}

/// A variant's predicted cost (µs per unit of workload): the alternative with its layout (and
/// bucket size) in the chosen schema's Plan; a layout missing there (another bucket size) is
/// costed by the variant's own Plan, whose facts are the same but for `force`.
fn predicted(chosen: &Plan, variant: &Plan, relation: &str) -> (f64, bool) {
    let find = |p: &Plan| {
        p.relationships
            .iter()
            .find(|d| d.id == relation)
            .unwrap_or_else(|| panic!("no relationship {relation}"))
            .clone()
    };
    let (c, v) = (find(chosen), find(variant));
    let key = (v.strategy, v.bucket.as_ref().map(|b| b.size));
    let alternatives = |d: &squillion_codegen::plan::Decision| {
        d.cost
            .as_ref()
            .map(|c| c.alternatives.clone())
            .unwrap_or_default()
    };
    // A variant without the copies the chosen layout makes is the chosen Plan's "nothing
    // copied" alternative.
    let bare = !c.denormalized.is_empty() && v.denormalized.is_empty();
    // A variant whose parent keeps nothing of its children (no summaries, no subset) where the
    // chosen one keeps something does less on every write: its own Plan costs it.
    let keeps =
        |d: &squillion_codegen::plan::Decision| !d.computed.is_empty() || d.subset.is_some();
    let own = || {
        alternatives(&v)
            .iter()
            .find(|a| a.chosen)
            .map(|a| (a.micros, false))
    };
    if keeps(&c) && !keeps(&v) {
        // Every relationship of a checked schema is costed (the engine records a cost for each
        // decision); the variants' schemas are the benchmark's own.
        return own().expect("the variant's layout is costed");
    }
    alternatives(&c)
        .iter()
        .find(|a| (a.layout, a.bucket_size) == key && a.nothing_copied == bare)
        .map(|a| (a.micros, a.chosen))
        .or_else(own)
        .expect("the variant's layout is costed")
}

/// Ranks, 1 for the smallest; ties share their mean rank.
fn ranks(x: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..x.len()).collect();
    idx.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
    let mut r = vec![0.0; x.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && (x[idx[j + 1]] - x[idx[i]]).abs() <= 1e-9 * x[idx[i]].abs() {
            j += 1;
        }
        let mean = (i + j) as f64 / 2.0 + 1.0;
        for &k in &idx[i..=j] {
            r[k] = mean;
        }
        i = j + 1;
    }
    r
}

/// Spearman's rank correlation: Pearson's correlation of the ranks (ties as mean ranks).
pub fn spearman(x: &[f64], y: &[f64]) -> f64 {
    let (rx, ry) = (ranks(x), ranks(y));
    let n = rx.len() as f64;
    let (mx, my) = (rx.iter().sum::<f64>() / n, ry.iter().sum::<f64>() / n);
    let cov: f64 = rx.iter().zip(&ry).map(|(a, b)| (a - mx) * (b - my)).sum();
    let vx: f64 = rx.iter().map(|a| (a - mx).powi(2)).sum();
    let vy: f64 = ry.iter().map(|b| (b - my).powi(2)).sum();
    if vx == 0.0 || vy == 0.0 {
        return f64::NAN;
    }
    cov / (vx * vy).sqrt()
}

/// Per variant: predicted cost relative to the chosen layout's, and measured time per operation
/// of the mix relative to the chosen layout's.
pub struct Ranked {
    pub predicted_us: f64,
    pub predicted: f64,
    pub measured: f64,
    /// The engine's choice (the alternative its Plan marks chosen).
    pub chosen: bool,
}

/// Every variant's prediction and measurement, relative to the engine's choice (the variant
/// whose layout the chosen schema's Plan marks chosen; the first variant if none matches).
pub fn ranked(o: &Outcome) -> Vec<Ranked> {
    let chosen = plan("chosen", &o.schema);
    let rows: Vec<(f64, bool)> = o
        .rows
        .iter()
        .map(|r| predicted(&chosen, &plan(r.name, &r.schema), o.relation))
        .collect();
    let c = rows.iter().position(|(_, is)| *is).unwrap_or(0);
    let chosen_ops = median(&o.rows[c].m.mix);
    let base = rows[c].0.max(1e-9);
    o.rows
        .iter()
        .zip(rows)
        .enumerate()
        .map(|(k, (r, (us, _)))| Ranked {
            predicted_us: us,
            predicted: us / base,
            measured: chosen_ops / median(&r.m.mix),
            chosen: k == c,
        })
        .collect()
}

pub fn print(o: &Outcome) {
    println!("\n### {}\n", o.title);
    println!("mix (per unit of the Plan's workload): {}\n", o.mix);
    println!("| layout | mix ops/s (median) | spread (min-max) | hot reads/s | round trips per hot read | items per hot read | round trips per mixed op | predicted µs | predicted / chosen | measured time / chosen |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let ranked = ranked(o);
    for (r, k) in o.rows.iter().zip(&ranked) {
        let lo = r.m.mix.iter().copied().fold(f64::MAX, f64::min);
        let hi = r.m.mix.iter().copied().fold(0.0, f64::max);
        let name = if k.chosen && !r.name.contains("(chosen)") {
            format!("{} (chosen)", r.name)
        } else {
            r.name.to_owned()
        };
        println!(
            "| {} | {:.0} | {:.0}-{:.0} | {:.0} | {:.2} | {:.1} | {:.2} | {:.0} | {:.2} | {:.2} |",
            name,
            median(&r.m.mix),
            lo,
            hi,
            median(&r.m.hot),
            r.m.rt_hot,
            r.m.items_hot,
            r.m.rt_mix,
            k.predicted_us,
            k.predicted,
            k.measured
        );
    }
    let (rho, ratio) = agreement(o);
    println!("\nSpearman (predicted cost against measured time per operation): {rho:.2}; chosen / best forced alternative, mix: {ratio:.2}x");
}

/// Spearman over the workload's variants, and the chosen layout's mix throughput over the best
/// forced alternative's (points of reference that do less than the facts ask left out).
pub fn agreement(o: &Outcome) -> (f64, f64) {
    let r = ranked(o);
    let p: Vec<f64> = r.iter().map(|x| x.predicted).collect();
    let m: Vec<f64> = r.iter().map(|x| x.measured).collect();
    let c = r.iter().position(|x| x.chosen).unwrap_or(0);
    let chosen = median(&o.rows[c].m.mix);
    let best = o
        .rows
        .iter()
        .enumerate()
        .filter(|(k, r)| *k != c && !r.reference)
        .map(|(_, r)| median(&r.m.mix))
        .fold(0.0, f64::max);
    (spearman(&p, &m), chosen / best.max(1e-9))
}

/// The summary over every workload: per workload Spearman and the chosen / best ratio, and
/// Spearman over all variants pooled (each as predicted and measured relative to its
/// workload's chosen layout).
pub fn summary(all: &[Outcome]) {
    println!("\n### Ranking agreement\n");
    println!("| workload | variants | Spearman | chosen / best forced, mix |");
    println!("|---|---:|---:|---:|");
    let (mut p, mut m) = (Vec::new(), Vec::new());
    let mut rhos = Vec::new();
    for o in all {
        let (rho, ratio) = agreement(o);
        rhos.push(rho);
        println!(
            "| {} | {} | {:.2} | {:.2}x |",
            o.relation_label(),
            o.rows.len(),
            rho,
            ratio
        );
        for r in ranked(o) {
            p.push(r.predicted);
            m.push(r.measured);
        }
    }
    let finite: Vec<f64> = rhos.iter().copied().filter(|r| r.is_finite()).collect();
    println!(
        "\nSpearman over all {} variants pooled (relative to each workload's chosen layout): {:.2}; mean of the per-workload values: {:.2}",
        p.len(),
        spearman(&p, &m),
        finite.iter().sum::<f64>() / finite.len().max(1) as f64
    );
}

impl Outcome {
    fn relation_label(&self) -> String {
        self.title
            .split(':')
            .next()
            .unwrap_or(&self.title)
            .to_owned()
    }
}
