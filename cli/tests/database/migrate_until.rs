//! `migrate --until expand`, checked on the change kinds of `migrate.rs`.

use super::migrate::migrate;
use super::*;

/// `migrate --until expand`: exactly the dry run's `expand:` steps are done, in order, and the
/// run says what is left; no document of any collection changes; every index of the new Plan
/// exists, so the new code's queries are served before the data moves.
pub(super) async fn expand_only(
    old: &Path,
    new: &Path,
    t: &TestDb,
    dry: &str,
    plan: &Plan,
    what: &str,
) {
    let mut stored = BTreeMap::new();
    for name in collection_names(&t.db).await {
        stored.insert(name.clone(), docs_by_id(&t.db, &name).await);
    }
    let run = migrate(old, new, t, &["--until", "expand"]).await;
    run.expect(0, what);
    let planned: Vec<&str> = dry
        .lines()
        .filter_map(|l| l.strip_prefix("would "))
        .collect();
    let expand: Vec<&str> = planned
        .iter()
        .copied()
        .filter(|l| l.starts_with("expand: "))
        .collect();
    let done: Vec<&str> = run
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("done: "))
        .collect();
    assert_eq!(done.len(), expand.len(), "{what}\n{}", run.stdout);
    for (d, e) in done.iter().zip(&expand) {
        assert!(
            d.starts_with(e),
            "{what}: `{d}` is not `{e}`\n{}",
            run.stdout
        );
    }
    let left = planned.len() - expand.len();
    assert_eq!(
        run.stdout.contains(&format!(
            "stopped after the expand phase: {left} step{} left",
            if left == 1 { "" } else { "s" }
        )),
        left > 0,
        "{what}\n{}",
        run.stdout
    );
    for (name, docs) in &stored {
        if name != "squillion_migrations" {
            assert_eq!(
                &docs_by_id(&t.db, name).await,
                docs,
                "{what}: the expand phase changed documents of {name}"
            );
        }
    }
    for c in &plan.collections {
        let found = index_models(&t.db, &c.name).await;
        for i in &c.indexes {
            assert!(
                found.contains_key(&i.name),
                "{what}: index {}.{} missing after expand",
                c.name,
                i.name
            );
        }
    }
}
