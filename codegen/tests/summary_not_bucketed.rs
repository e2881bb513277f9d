//! W127 (summaries `per bucket` of children that are not bucketed), round 21: a fleet's pings,
//! `time_range by at` with `growth append_heavy rate 200/s` and `summary count, max(speed)
//! per bucket`, were kept as documents of their own by the cost model, and the help said
//! "bucket the Pings (`page N`, `time_range by f`, or `force bucket(N)`)": the fact it offered
//! was written already and changed nothing. Over every way of reading the children (none, a
//! page, a time range), every reason they may stay out of buckets (read on their own, the
//! workload's costs, a forced layout) and both bounds: W127 is given exactly when the children
//! are not bucketed, its help never offers a fact the relation already states, always offers
//! removing `per bucket` and forcing buckets, names the `force` that keeps them out, and quotes
//! why the decision rejected buckets when it did.

use squillion_codegen::model::Layout;
use squillion_codegen::plan::Plan;
use squillion_grammar::SourceFile;

fn plan(src: &str) -> Plan {
    let source = SourceFile::new("test.sqn", src);
    match squillion_codegen::load(&source) {
        Ok(checked) => squillion_codegen::engine::plan(&checked.model, &source),
        Err(diags) => panic!("schema does not check:\n{}", source.render(&diags, false)),
    }
}

#[test]
fn w127_help_offers_only_what_would_bucket_the_children() {
    let reads = [
        "",
        "page 20 by at",
        "page 5 by at",
        "time_range by at",
        "time_range by at window 100",
    ];
    let extras = [
        "",
        "standalone Ping",
        "growth append_heavy rate 200/s",
        "growth append_heavy rate 5/s",
        // The parent's latest ping costs a second write either way: documents of their own
        // are then cheaper than rewriting a bucket when read a page at a time. Read by a time
        // range without bound, the pings keep their buckets: the reads are not declared
        // (round 22, endless_series.rs).
        "growth append_heavy rate 200/s\n  latest 1 by at desc",
        "force child_ref",
        "force bucket(50)",
    ];
    let bounds = ["squillions", "many(1000)"];
    let (mut warned, mut quoted) = (0, 0);
    let mut failures = Vec::new();
    for read in reads {
        for extra in extras {
            for bound in bounds {
                let src = format!(
                    "entity Truck {{ plate: string }}\nentity Ping {{ at: date  speed: double }}\n\
                     relation Truck.pings: {bound} <-> Ping.truck: one {{\n  {read}\n  {extra}\n  \
                     summary count, max(speed) per bucket\n}}\n"
                );
                let p = plan(&src);
                let d = &p.relationships[0];
                let w127: Vec<_> = p.warnings.iter().filter(|w| w.code == "W127").collect();
                let case = format!("{bound} / {read:?} / {extra:?} ({})", d.strategy.as_str());
                if (d.strategy == Layout::Bucket) != w127.is_empty() {
                    failures.push(format!("{case}: {} W127", w127.len()));
                    continue;
                }
                let Some(w) = w127.first() else { continue };
                warned += 1;
                let help = w.help.clone().unwrap_or_default();
                let mut bad = |what: &str| failures.push(format!("{case}: {what}: {help}"));
                if !read.is_empty() && (help.contains("`page N`") || help.contains("`time_range")) {
                    bad("offers a reading fact although one is written");
                }
                if !help.contains("remove `per bucket`") || !help.contains("`force bucket(N)`") {
                    bad("does not offer removing `per bucket` and forcing buckets");
                }
                if d.forced != help.contains(&format!("`force {}`", d.strategy.as_str())) {
                    bad("names the force exactly when forced");
                }
                let rejected = d.rejected.iter().find(|r| r.strategy == "bucket");
                if let (false, false, Some(r)) = (d.forced, read.is_empty(), rejected) {
                    quoted += 1;
                    if !help.contains(&r.why) {
                        bad(&format!("does not say why buckets lost ({})", r.why));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The table reaches the cases it is about.
    assert!(warned >= 10, "only {warned} W127");
    assert!(quoted >= 1, "no case where the cost model rejected buckets");
}
