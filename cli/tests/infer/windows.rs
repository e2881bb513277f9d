//! Large collections are sampled in `_id` windows through the index, not with `$sample` (which
//! reads the whole collection on SecantusDB): for each kind of `_id` that can be drawn from
//! (ObjectIds, integers, doubles) the sample has the asked size and spreads over the
//! collection (a field present in one half of the `_id` range is seen in about half of the
//! sample); `_id`s that cannot be drawn from (strings) fall back to `$sample`.

use bson::oid::ObjectId;
use bson::{doc, Bson, Document};
use squillion_cli::infer::{infer as run_infer, Options};

use super::*;

/// Documents per collection, and the sample: the collection is 40 times the sample.
const DOCS: u64 = 2_000;
const SAMPLE: u64 = 50;

/// The `_id` of document `i` for each kind: evenly spaced numbers, ObjectIds one second apart
/// (with a machine part that varies), strings.
fn id(kind: &str, i: u64) -> Bson {
    match kind {
        "objectId" => {
            let mut b = [0u8; 12];
            b[..4].copy_from_slice(&(1_700_000_000u32 + i as u32).to_be_bytes());
            b[4..].copy_from_slice(&(i * 7919).to_be_bytes());
            Bson::ObjectId(ObjectId::from_bytes(b))
        }
        "int" => Bson::Int64((i * 3) as i64),
        "double" => Bson::Double(i as f64 * 0.5),
        _ => Bson::String(format!("k{i:06}")),
    }
}

#[tokio::test]
async fn large_collections_are_sampled_in_id_windows() {
    let t = TestDb::new("infer_windows").await;
    for kind in ["objectId", "int", "double", "string"] {
        let coll = t.db.collection::<Document>(&format!("things_{kind}"));
        let docs: Vec<Document> = (0..DOCS)
            .map(|i| {
                let mut d = doc! { "_id": id(kind, i), "n": i as i64 };
                // Present in the second half of the `_id` range only.
                if i >= DOCS / 2 {
                    d.insert("late", true);
                }
                d
            })
            .collect();
        coll.insert_many(docs).await.unwrap();
    }
    let options = Options {
        sample: SAMPLE,
        without: Vec::new(),
    };
    let outcome = run_infer(&t.db, &options, &|_| {}).await.unwrap();
    assert_eq!(
        outcome.sampled,
        4 * SAMPLE,
        "each collection gives the sample asked"
    );
    for kind in ["objectId", "int", "double", "string"] {
        let name = format!("things_{kind}");
        let windowed = outcome
            .text
            .lines()
            .any(|l| l.contains(&format!("`{name}` (about")) && l.contains("windows"));
        assert_eq!(
            windowed,
            kind != "string",
            "{name}: sampled in windows only when its ids can be drawn from:\n{}",
            outcome.text
        );
        // `late: bool? // measured: in K of 50 sampled things_x`: about half.
        let line = outcome
            .draft
            .entities
            .iter()
            .find(|e| e.collection.as_deref() == Some(name.as_str()))
            .and_then(|e| e.fields.iter().find(|f| f.name == "late"))
            .and_then(|f| f.trailing.clone())
            .unwrap_or_default();
        let seen: u64 = line
            .split_whitespace()
            .nth(2)
            .and_then(|w| w.parse().ok())
            .unwrap_or(0);
        assert!(
            (SAMPLE * 3 / 10..=SAMPLE * 7 / 10).contains(&seen),
            "{name}: `late` seen in {seen} of {SAMPLE} sampled: the sample does not spread over the collection ({line})"
        );
    }
    t.cleanup().await;
}
