//! Layouts under workloads (issues 6 and 13): for each workload, the hot relationship runs its
//! read/write mix on the layout the engine chose and on the alternatives forced with `force`,
//! including all references (the relational shape), and the measured ranking is compared with
//! the cost model's. Every variant is code squillion generated:
//! `benches/layouts/<variant>.sqn` -> `benches/layouts/<variant>.rs` (kept fresh by
//! `tests/layout_variants.rs`), and the workload uses the generated repositories; where a layout
//! has no repository method for an operation, the plain driver call used is named beside it.
//!
//! The mix of each workload is the Plan's: the chosen schema's relationship carries the
//! workload the cost model assumed (`cost.workload`: list reads, reads alone, appends per unit
//! of time), and the benchmark runs those operations in those proportions. Each variant's
//! predicted cost is its alternative's in the same Plan (`cost.alternatives`); the report
//! gives, per workload, Spearman's rank correlation of predicted cost against measured time per
//! operation and the chosen layout's throughput over the best forced alternative's, and
//! Spearman over every variant pooled.
//!
//! Run against the test server: `scripts/with-server.sh cargo bench --bench layouts`
//! (or set `SQUILLION_MONGODB_URI`). `SQUILLION_BENCH_OPS` sets the operations per round
//! (default 200), `SQUILLION_BENCH_ONLY` one workload (`blog`, `iot`, `library`, `logs`,
//! `products`, `orders`, `enroll`, `calibrate`; `calibrate_only` for the calibration alone: the
//! server's per-operation costs, measured first in every full run), `SQUILLION_BENCH_ROUNDS` the alternating rounds (default 5;
//! the median counts). Round trips are counted with the driver's command monitoring
//! (`CommandStartedEvent`s), not reasoned about.

use std::sync::atomic::Ordering;

use squillion::__private::bson::oid::ObjectId;
use squillion::__private::mongodb::event::command::CommandEvent;
use squillion::__private::mongodb::event::EventHandler;
use squillion::__private::mongodb::options::ClientOptions;
use squillion::__private::mongodb::{Client, Database};

macro_rules! variant {
    ($name:ident, $file:literal) => {
        #[allow(dead_code, clippy::all)]
        #[path = $file]
        mod $name;
    };
}
variant!(blog_chosen, "layouts/blog_chosen.rs");
variant!(blog_all_refs, "layouts/blog_all_refs.rs");
variant!(blog_embed, "layouts/blog_embed.rs");
variant!(blog_parent_refs, "layouts/blog_parent_refs.rs");
variant!(iot_chosen, "layouts/iot_chosen.rs");
variant!(iot_bucket50, "layouts/iot_bucket50.rs");
variant!(iot_embed, "layouts/iot_embed.rs");
variant!(iot_all_refs, "layouts/iot_all_refs.rs");
variant!(iot_child_ref, "layouts/iot_child_ref.rs");
variant!(library_chosen, "layouts/library_chosen.rs");
variant!(library_parent_refs, "layouts/library_parent_refs.rs");
variant!(library_embed, "layouts/library_embed.rs");
variant!(library_all_refs, "layouts/library_all_refs.rs");
variant!(logs_chosen, "layouts/logs_chosen.rs");
variant!(logs_bucket, "layouts/logs_bucket.rs");
variant!(logs_embed, "layouts/logs_embed.rs");
variant!(logs_parent_refs, "layouts/logs_parent_refs.rs");
variant!(products_chosen, "layouts/products_chosen.rs");
variant!(products_child_ref, "layouts/products_child_ref.rs");
variant!(products_parent_refs, "layouts/products_parent_refs.rs");
variant!(orders_chosen, "layouts/orders_chosen.rs");
variant!(orders_parent_refs, "layouts/orders_parent_refs.rs");
variant!(orders_all_refs, "layouts/orders_all_refs.rs");
variant!(enroll_chosen, "layouts/enroll_chosen.rs");
variant!(enroll_two_way, "layouts/enroll_two_way.rs");
variant!(enroll_link, "layouts/enroll_link.rs");

#[path = "layout_workloads/calibrate.rs"]
mod calibrate;
#[path = "layout_workloads/common.rs"]
mod common;
#[path = "layout_workloads/measure.rs"]
mod measure;

#[path = "layout_workloads/blog.rs"]
mod blog;
#[path = "layout_workloads/enroll.rs"]
mod enroll;
#[path = "layout_workloads/iot.rs"]
mod iot;
#[path = "layout_workloads/library.rs"]
mod library;
#[path = "layout_workloads/logs.rs"]
mod logs;
#[path = "layout_workloads/orders.rs"]
mod orders;
#[path = "layout_workloads/products.rs"]
mod products;

async fn client() -> Client {
    let mut options = ClientOptions::parse(squillion_testkit::uri())
        .await
        .expect("SQUILLION_MONGODB_URI");
    options.command_event_handler = Some(EventHandler::callback(|ev: CommandEvent| {
        if let CommandEvent::Started(s) = ev {
            if !matches!(
                s.command_name.as_str(),
                "hello" | "isMaster" | "ismaster" | "endSessions"
            ) {
                measure::COMMANDS.fetch_add(1, Ordering::SeqCst);
            }
        }
    }));
    Client::with_options(options).expect("client")
}

fn db(client: &Client, name: &str) -> Database {
    client.database(&format!(
        "bench_layouts_{name}_{}",
        &ObjectId::new().to_hex()[18..]
    ))
}

fn main() {
    let env = |k: &str, d: usize| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let ops = env("SQUILLION_BENCH_OPS", 200);
    let rounds = env("SQUILLION_BENCH_ROUNDS", 5);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    runtime.block_on(async {
        let client = client().await;
        let mut dbs = Vec::new();
        println!("ops per round: {ops}, rounds: {rounds} (median round)");
        let only = std::env::var("SQUILLION_BENCH_ONLY").unwrap_or_default();
        let run = |x: &str| only.is_empty() || only == x;
        if run("calibrate") || only == "calibrate_only" {
            calibrate::repeated(&client, 3, &mut dbs).await;
        }
        let run = |x: &str| only != "calibrate_only" && run(x);
        let mut all = Vec::new();
        let started = std::time::Instant::now();
        let mut done = |o: measure::Outcome| {
            measure::print(&o);
            println!("({:.0} s so far)", started.elapsed().as_secs_f64());
            all.push(o);
        };
        if run("blog") {
            for o in blog::run(&client, ops, rounds, &mut dbs).await {
                done(o);
            }
        }
        if run("iot") {
            for o in iot::run(&client, ops, rounds, &mut dbs).await {
                done(o);
            }
        }
        if run("library") {
            done(library::run(&client, ops, rounds, &mut dbs).await);
        }
        if run("logs") {
            done(logs::run(&client, ops, rounds, &mut dbs).await);
        }
        if run("products") {
            done(products::run(&client, ops, rounds, &mut dbs).await);
        }
        if run("orders") {
            done(orders::run(&client, ops, rounds, &mut dbs).await);
        }
        if run("enroll") {
            done(enroll::run(&client, ops, rounds, &mut dbs).await);
        }
        measure::summary(&all);
        println!("\nNot measured: library embed (forced) - see docs/benchmarks.md.");
        for d in dbs {
            let _ = d.drop().await;
        }
    });
}
