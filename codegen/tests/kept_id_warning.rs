//! W130: `keep id` in a `latest`/`top` list whose copies cannot hold the child's `_id` (the
//! children are bucket elements, or embedded, and have none). The id asked for is left out of
//! the copies by the Plan; the warning says so, where the fact was written, exactly when it
//! happens: over placements (pages and time ranges in buckets, an outlier's embedded children,
//! few embedded children, children of their own collection), both facts and `keep` with and
//! without `id`, the oracle is the Plan itself (the list's copies lack `_id`).

use squillion_codegen::plan::{ComputedFn, Plan};

mod planned;
use planned::plan;

/// Whether the Plan keeps a `latest`/`top` list for the relationship, and its copies' id field.
fn list_id(plan: &Plan, rel: &str, top: bool) -> Option<String> {
    let d = plan.relationship(rel)?;
    if top {
        d.computed.iter().find_map(|c| match &c.function {
            ComputedFn::TopN { child_id, .. } => Some(child_id.clone()),
            _ => None,
        })
    } else {
        d.subset.as_ref().map(|s| s.child_id.clone())
    }
}

#[test]
fn keep_id_is_warned_exactly_where_the_copies_cannot_hold_it() {
    let placements = [
        ("squillions", "page 20 by at"),
        ("squillions", "time_range by at"),
        ("many(5000, typical 20)", ""),
        ("few(30)", ""),
        ("squillions", "standalone Note"),
    ];
    let mut warned = 0;
    let mut silent_with_id = 0;
    for (card, fact) in placements {
        for top in [false, true] {
            for keep_id in [false, true] {
                let keep = if keep_id { "id, v" } else { "v" };
                let list = if top {
                    format!("top 3 by v desc keep {keep}")
                } else {
                    format!("latest 3 by at desc keep {keep}")
                };
                let src = format!(
                    "entity Board {{ name: string }}\nentity Note {{ at: date  v: int32 }}\n\
                     relation Board.notes: {card} <-> Note.board: one {{\n  {fact}\n  {list}\n}}\n"
                );
                let plan = plan(&src);
                let w130: Vec<_> = plan.warnings.iter().filter(|w| w.code == "W130").collect();
                let dropped =
                    keep_id && list_id(&plan, "Board.notes", top).is_some_and(|id| id.is_empty());
                assert_eq!(
                    w130.len(),
                    usize::from(dropped),
                    "{src}\n{:?}",
                    plan.warnings
                );
                if let Some(w) = w130.first() {
                    warned += 1;
                    assert_eq!(w.position.line, 5, "at the list's fact\n{src}");
                    assert!(
                        w.message.contains(if top { "`top" } else { "`latest" }),
                        "{}",
                        w.message
                    );
                    assert!(w.message.contains("Notes are"), "{}", w.message);
                    assert!(w
                        .help
                        .as_deref()
                        .is_some_and(|h| h.contains("standalone Note")));
                } else if keep_id && list_id(&plan, "Board.notes", top).is_some() {
                    silent_with_id += 1;
                }
            }
        }
    }
    // Both sides of the property are reached: lists that drop the id, lists that keep it.
    assert!(warned >= 4, "only {warned} warned");
    assert!(
        silent_with_id >= 2,
        "only {silent_with_id} lists kept the id"
    );
}
