//! `squillion migrate`'s refusals against the server: a change it cannot make (M0001) and
//! stored data the new layout cannot hold (M0002, a parent over the new bound) stop it before
//! anything is written, the whole database compared before and after.

use super::migrate::{layout_text, migrate, names, schema_text, Names};
use super::migrate_data::*;
use super::*;
use squillion_testkit::Lcg;

/// The change kinds it refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refused {
    /// The layout flips from ids in the parent to buckets (only `child_ref` and `embed` move to
    /// buckets).
    LayoutFlip,
    /// A field's type changes.
    TypeChange,
    /// A new required field with nothing to fill it from.
    NewRequired,
    /// A natural key becomes the parent's `_id` (and the children's references change type).
    NaturalKey,
}

/// The old and new schema of a refused change.
fn refused_pair(kind: Refused, n: &Names) -> (String, String) {
    let old = schema_text(n, "", "int32", n.bound, "", "", "many(100000)");
    let new = match kind {
        Refused::LayoutFlip => {
            let ids = "  force parent_refs\n";
            return (
                schema_text(n, "", "int32", n.bound, "", ids, "many(300)"),
                schema_text(
                    n,
                    "",
                    "int32",
                    n.bound,
                    "",
                    "  force bucket(10)\n",
                    "many(300)",
                ),
            );
        }
        Refused::TypeChange => schema_text(n, "", "string", n.bound, "", "", "many(100000)"),
        Refused::NaturalKey => schema_text(n, "", "int32", n.bound, "", "", "many(100000)")
            .replacen(
                &format!("{}: string", n.shown[0]),
                &format!("{}: string @key", n.shown[0]),
                1,
            ),
        Refused::NewRequired => schema_text(
            n,
            "",
            "int32",
            n.bound,
            &format!("{}: string", n.spare),
            "",
            "many(100000)",
        ),
    };
    (old, new)
}

/// `migrate OLD NEW --uri URI EXTRA...`.

#[tokio::test]
async fn an_unsupported_change_is_refused_with_nothing_written() {
    let docs = std::fs::read_to_string(root().join("docs/migrations.md")).unwrap();
    assert!(
        docs.contains("| `M0001` |"),
        "docs/migrations.md documents M0001"
    );
    // Each kind, the words of its error and the number of changes refused: a layout flip is one
    // (its fields are not listed again); a natural key is the _id and the references to it.
    for (kind, expected, errors) in [
        (Refused::LayoutFlip, "relationship", 1),
        (Refused::TypeChange, "stored as", 1),
        (Refused::NewRequired, "is new and required", 1),
        (Refused::NaturalKey, "the _id of", 2),
    ] {
        for seed in 0..3 {
            let n = names(seed);
            let (old_text, new_text) = refused_pair(kind, &n);
            let what = format!("{kind:?} seed {seed}\n--- old\n{old_text}--- new\n{new_text}");
            let dir = tempfile::tempdir().unwrap();
            let (old, new) = (
                write(dir.path(), "old.sqn", &old_text),
                write(dir.path(), "new.sqn", &new_text),
            );
            let t = TestDb::new(&format!("mig_refused_{kind:?}_{seed}")).await;
            indexes(&old, &t, &["--apply"]).await.expect(0, &what);
            fill(&t.db, &plan_of(&old), 20, 50, &mut Lcg(seed)).await;
            let before = dump(&t.db).await;
            for extra in [&[][..], &["--print", "mongosh"][..], &["--dry-run"][..]] {
                let run = migrate(&old, &new, &t, extra).await;
                run.expect(1, &what);
                assert!(run.stdout.is_empty(), "{what}\n{}", run.stdout);
                assert!(
                    run.stderr.contains("error[M0001]: cannot migrate")
                        && run.stderr.contains(expected)
                        && run.stderr.contains("help: "),
                    "{what}\n{}",
                    run.stderr
                );
                assert_eq!(
                    run.stderr.matches("error[M0001]").count(),
                    errors,
                    "{what}: one error per change, its fields not listed again\n{}",
                    run.stderr
                );
                assert!(
                    run.stderr.contains("nothing was written"),
                    "{what}\n{}",
                    run.stderr
                );
            }
            assert_eq!(
                dump(&t.db).await,
                before,
                "{what}: a refused migration wrote something"
            );
            t.cleanup().await;
        }
    }
}

/// A move into the parent's array when a parent has more children than the new layout's bound
/// (`child_ref`, `parent_refs` or `two_way` to `embed`, `child_ref` to `parent_refs`) stops
/// before anything is written, with error[M0002] naming the parent, its count and the bound; a
/// dry run says the same.
#[tokio::test]
async fn children_over_the_new_bound_are_refused_with_nothing_written() {
    let docs = std::fs::read_to_string(root().join("docs/migrations.md")).unwrap();
    assert!(
        docs.contains("| `M0002` |"),
        "docs/migrations.md documents M0002"
    );
    for (from, to) in [
        ("child_ref", "embed"),
        ("child_ref", "parent_refs"),
        ("parent_refs", "embed"),
        ("two_way", "embed"),
    ] {
        for seed in 0..2 {
            let n = names(seed);
            let (old_text, new_text) = (layout_text(&n, from, 1000), layout_text(&n, to, n.bound));
            let what =
                format!("{from} -> {to} seed {seed}\n--- old\n{old_text}--- new\n{new_text}");
            let dir = tempfile::tempdir().unwrap();
            let (old, new) = (
                write(dir.path(), "old.sqn", &old_text),
                write(dir.path(), "new.sqn", &new_text),
            );
            let old_plan = plan_of(&old);
            let t = TestDb::new(&format!("mig_bound_{from}_{to}_{seed}")).await;
            indexes(&old, &t, &["--apply"]).await.expect(0, &what);
            let crowded = n.bound as usize + 3 + seed as usize;
            fill_layout(&t.db, &old_plan, 20, 10, crowded, &mut Lcg(seed)).await;
            // The first parent (in `_id` order) holds the most children: the one named.
            let d = &old_plan.relationships[0];
            let parents = &old_plan.collections[0].name;
            let first =
                t.db.collection::<Document>(parents)
                    .find_one(doc! {})
                    .sort(doc! { "_id": 1 })
                    .await
                    .unwrap()
                    .unwrap();
            let pid = first.get_object_id("_id").unwrap();
            let count = match d.placement.iter().find(|p| p.holder == d.parent) {
                Some(p) => first.get_array(&p.path).unwrap().len() as u64,
                None => {
                    let p = &d.placement[0];
                    t.db.collection::<Document>(&p.collection)
                        .count_documents(doc! { &p.path: pid })
                        .await
                        .unwrap()
                }
            };
            assert!(count >= crowded as u64, "{what}");
            let before = dump(&t.db).await;
            for extra in [&[][..], &["--dry-run"][..]] {
                let run = migrate(&old, &new, &t, extra).await;
                run.expect(1, &what);
                assert!(!run.stdout.contains("done:"), "{what}\n{}", run.stdout);
                for part in [
                    "error[M0002]: relationship ".to_owned(),
                    format!("the parent {} of {parents}", pid.to_hex()),
                    format!(" {count} children"),
                    format!("over the new layout's bound of {}", n.bound),
                    "help: ".to_owned(),
                    "nothing was written".to_owned(),
                ] {
                    assert!(
                        run.stderr.contains(&part),
                        "{what}: no `{part}` in\n{}",
                        run.stderr
                    );
                }
            }
            assert_eq!(
                dump(&t.db).await,
                before,
                "{what}: a refused migration wrote something"
            );
            t.cleanup().await;
        }
    }
}
