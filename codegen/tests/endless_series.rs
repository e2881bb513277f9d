//! A series without bound (children added for ever and read by a time range: seed 002's IoT
//! readings, a fleet's pings, a device's measurements) keeps its buckets unless the reads are
//! declared too. Round 22's real-world corpus: the MongoDB blog's per-second time series (ten
//! devices reporting every second, "864,000 documents per day", one document per reading
//! rejected for the size of its indexes) was planned in buckets, but with the rate the source
//! states written as `growth ... rate 10/s` it became a document per reading: the cost model
//! weighed the declared writes against reads at their default rate (one a second), and it
//! prices server time, not the index a document per reading keeps for ever, which is what seed
//! 002's bucket pattern is for ("Reduces index sizes up to 200X!").
//!
//! Over drawn series (names, child sizes, windows, growth kinds and rates in every unit,
//! `latest`, `summary`, on the parent or per bucket): without a declared read rate the series is
//! bucketed and the cost table marks a document per child as not acceptable; with the reads
//! declared, the workload still decides, and the chosen layout is the cheapest acceptable one.

use proptest::prelude::*;
use squillion_codegen::model::Layout;

mod planned;
use planned::{decision, plan};

const PAIRS: &[(&str, &str)] = &[
    ("Truck", "Ping"),
    ("Device", "Reading"),
    ("Sensor", "Measurement"),
    ("Account", "Trade"),
    ("Meter", "Tick"),
];

#[derive(Debug, Clone)]
struct Series {
    pair: usize,
    growth: &'static str,
    rate: String,
    window: Option<u32>,
    extra: &'static str,
    body_bytes: u32,
    read_rate: Option<u32>,
}

fn series() -> impl Strategy<Value = Series> {
    (
        0..PAIRS.len(),
        prop::sample::select(vec!["append_heavy, unbounded", "unbounded", "append_heavy"]),
        (
            1u32..5000,
            prop::sample::select(vec!["/s", "/min", "/h", "/day"]),
        )
            .prop_map(|(n, u)| format!("{n}{u}")),
        prop::option::of(prop::sample::select(vec![10u32, 60, 300, 1000, 3600])),
        prop::sample::select(vec![
            "",
            "latest 1 by at desc",
            "latest 10 by at desc keep at, value",
            "summary count, max(value)",
            "summary count, total(value) per bucket",
        ]),
        prop::sample::select(vec![0u32, 100, 2000]),
        prop::option::of(1u32..500),
    )
        .prop_map(
            |(pair, growth, rate, window, extra, body_bytes, read_rate)| Series {
                pair,
                growth,
                rate,
                window,
                extra,
                body_bytes,
                read_rate,
            },
        )
}

fn text(s: &Series) -> (String, String) {
    let (p, c) = PAIRS[s.pair];
    let (ps, cs) = (p.to_lowercase(), c.to_lowercase());
    let body = if s.body_bytes > 0 {
        format!("  note: string @size({}B)\n", s.body_bytes)
    } else {
        String::new()
    };
    let window = s.window.map(|w| format!(" window {w}")).unwrap_or_default();
    let mut src = format!(
        "entity {p} {{ name: string }}\nentity {c} {{\n  at: date\n  value: double\n{body}}}\n\
         relation {p}.{cs}s: squillions <-> {c}.{ps}: one {{\n  growth {} rate {}\n  \
         time_range by at{window}\n  {}\n}}\n",
        s.growth, s.rate, s.extra
    );
    if let Some(r) = s.read_rate {
        src.push_str(&format!(
            "query {cs}s_of_{ps} on {c} {{\n  where {ps} == ?\n  sort at desc\n  rate {r}/s\n}}\n"
        ));
    }
    (src, format!("{p}.{cs}s"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Declared growth, undeclared reads: the series stays in buckets, and no alternative the
    /// cost table calls acceptable is a document per child.
    #[test]
    fn an_endless_series_without_declared_reads_keeps_its_buckets(s in series()) {
        let s = Series { read_rate: None, ..s };
        let (src, id) = text(&s);
        let p = plan(&src);
        let d = decision(&p, &id);
        prop_assert_eq!(d.strategy, Layout::Bucket, "{}\n{}", d.because, src);
        prop_assert!(d.bucket.is_some(), "{src}");
        let cost = d.cost.as_ref().expect("a costed decision");
        for a in cost.alternatives.iter().filter(|a| a.layout == Layout::ChildRef) {
            prop_assert!(!a.acceptable, "child_ref marked acceptable\n{src}");
        }
    }

    /// Declared reads: the workload decides among what the rules accept, buckets or a document
    /// per child, and the chosen layout is never costlier than an acceptable one.
    #[test]
    fn an_endless_series_with_declared_reads_is_weighed(s in series(), r in 1u32..500) {
        let s = Series { read_rate: Some(r), ..s };
        let (src, id) = text(&s);
        let p = plan(&src);
        let d = decision(&p, &id);
        prop_assert!(matches!(d.strategy, Layout::Bucket | Layout::ChildRef), "{}\n{src}", d.strategy.as_str());
        let cost = d.cost.as_ref().expect("a costed decision");
        let chosen = cost.alternatives.iter().find(|a| a.chosen).expect("a chosen alternative");
        let child_ref = cost.alternatives.iter().find(|a| a.layout == Layout::ChildRef);
        prop_assert!(child_ref.is_some_and(|a| a.acceptable || a.chosen), "child_ref not weighed\n{src}");
        for a in cost.alternatives.iter().filter(|a| a.acceptable && !a.chosen) {
            prop_assert!(chosen.micros <= a.micros + 1e-6, "{} chosen at {} over {} at {}\n{src}",
                chosen.layout.as_str(), chosen.micros, a.layout.as_str(), a.micros);
        }
    }
}

/// The source's own numbers (MongoDB blog, time series part 2): ten devices, a reading a
/// second each, an hour read at a time. Buckets, as the source lays them out.
#[test]
fn the_blogs_ten_devices_a_second_stay_in_buckets() {
    let p = plan(
        "entity Device { device_id: string @key }\n\
         entity Reading { ts: date  temperature: double }\n\
         relation Device.readings: squillions <-> Reading.device: one {\n\
           growth append_heavy, unbounded rate 10/s\n  time_range by ts window 60\n}\n",
    );
    let d = decision(&p, "Device.readings");
    assert_eq!(d.strategy, Layout::Bucket, "{}", d.because);
}
