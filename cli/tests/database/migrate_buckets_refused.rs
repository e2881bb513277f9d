//! `squillion migrate`'s refusals around buckets, against the server: what it cannot make
//! correctly (buckets re-cut in place, summaries kept on the parent beside a move: M0001 with the
//! path to take instead) and stored data the new layout cannot hold (a parent over the new bound
//! in its buckets, a child or bucket without a parent: M0002 naming it) stop before anything is
//! written, the whole database compared before and after.

use super::migrate::{migrate, names};
use super::migrate_buckets::{
    append_all, entity_collection, fill_buckets, fill_plain, plain_text, relation, text,
    text_bounded, Plain,
};
use super::migrate_data::*;
use super::*;
use squillion_testkit::Lcg;

/// Runs `migrate` three ways (applying, `--dry-run`, and for M0001 `--print mongosh`) and checks
/// each stops with `code` and every part of `parts` in its errors, the database unchanged.
async fn refused(old_text: &str, new_text: &str, t: &TestDb, code: &str, parts: &[String]) {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (
        write(dir.path(), "old.sqn", old_text),
        write(dir.path(), "new.sqn", new_text),
    );
    let what = format!("--- old\n{old_text}--- new\n{new_text}");
    let before = dump(&t.db).await;
    let mut ways = vec![&[][..], &["--dry-run"][..]];
    if code == "M0001" {
        ways.push(&["--print", "mongosh"][..]);
    }
    for extra in ways {
        let run = migrate(&old, &new, t, extra).await;
        run.expect(1, &what);
        assert!(!run.stdout.contains("done:"), "{what}\n{}", run.stdout);
        assert_eq!(
            run.stderr.matches(&format!("error[{code}]")).count(),
            1,
            "{what}: one error\n{}",
            run.stderr
        );
        for part in parts {
            assert!(
                run.stderr.contains(part.as_str()),
                "{what}: no `{part}` in\n{}",
                run.stderr
            );
        }
    }
    assert_eq!(
        dump(&t.db).await,
        before,
        "{what}: a refused migration wrote"
    );
}

/// Buckets changed in place (size, order) and summaries kept on the parent beside a move are
/// refused with one M0001 and a help line saying how to get there, nothing written.
#[tokio::test]
async fn a_bucket_change_it_cannot_make_is_refused_with_nothing_written() {
    for seed in 0..3 {
        let n = names(seed);
        let t = TestDb::new(&format!("mig_bk_refused_{seed}")).await;
        let old_text = text(&n, &format!("force bucket\n  page 3 by {} asc", n.b));
        let keep = tempfile::tempdir().unwrap();
        let old = write(keep.path(), "o.sqn", &old_text);
        indexes(&old, &t, &["--apply"]).await.expect(0, &old_text);
        fill_buckets(&t.db, &plan_of(&old), 20, 60, &mut Lcg(seed)).await;
        let rebucketed = [
            "the buckets' size, order, time range or summaries changed".to_owned(),
            "migrate in two steps through plain documents".to_owned(),
            "`force child_ref`".to_owned(),
        ];
        for new_body in [
            format!("force bucket\n  page 4 by {} asc", n.b),
            format!("force bucket\n  page 3 by {} asc", n.a),
            format!(
                "force bucket\n  page 3 by {} asc\n  summary count, max({}) per bucket",
                n.b, n.b
            ),
        ] {
            refused(&old_text, &text(&n, &new_body), &t, "M0001", &rebucketed).await;
        }
        // Summaries of all the children added on the parent of the same buckets.
        let on_parent = text(
            &n,
            &format!("force bucket\n  page 3 by {} asc\n  summary count", n.b),
        );
        let parent_keeps = [
            "the parent keeps summaries".to_owned(),
            "separate versions".to_owned(),
        ];
        refused(&old_text, &on_parent, &t, "M0001", &parent_keeps).await;
        // A summary the parent keeps beside the move (no data needed: refused before reading).
        let keeps = text(&n, "force child_ref\n  summary count");
        let parts = [
            "layout child_ref -> bucket".to_owned(),
            "the parent keeps summaries".to_owned(),
            "separate versions".to_owned(),
        ];
        refused(&keeps, &text(&n, "force bucket(5)"), &t, "M0001", &parts).await;
        t.cleanup().await;
    }
}

/// Stored data the new layout cannot hold stops the move before anything is written, with one
/// M0002 naming the document: a parent whose buckets hold more children than the new array's
/// bound (`bucket` -> `embed`), a child (or bucket) that refers to no parent.
#[tokio::test]
async fn data_that_does_not_fit_is_refused_before_any_write() {
    for seed in 0..3 {
        let n = names(seed);
        let bound = 6 + seed;
        // Buckets into an array of `bound`: the first parent holds `bound + 2` children.
        let t = TestDb::new(&format!("mig_bk_bound_{seed}")).await;
        let old_text = text(&n, "force bucket(4)");
        let keep = tempfile::tempdir().unwrap();
        let old = write(keep.path(), "o.sqn", &old_text);
        let plan = plan_of(&old);
        indexes(&old, &t, &["--apply"]).await.expect(0, &old_text);
        fill_buckets(&t.db, &plan, 30, 40, &mut Lcg(seed)).await;
        let d = relation(&plan);
        let parents = &entity_collection(&plan, &d.parent).unwrap().name;
        let first = docs_by_id(&t.db, parents).await.remove(0);
        let pid = first.get("_id").unwrap().clone();
        let b = d.bucket.as_ref().unwrap();
        let buckets = t.db.collection::<Document>(&b.collection);
        let mut held = 0;
        for bk in docs_by_id(&t.db, &b.collection).await {
            if bk.get(&b.parent_path) == Some(&pid) {
                held += bk.get_array(&b.items_path).unwrap().len() as u64;
            }
        }
        let extra: Vec<Document> = (held..bound + 2)
            .map(|i| {
                doc! { n.a: format!("x{i}"), n.b: 1, "when": DateTime::now(), n.list: [] }
            })
            .collect();
        append_all(&buckets, &plan, &pid, &extra).await;
        let count = held.max(bound + 2);
        let new_text = text_bounded(&n, bound, "force embed");
        let parts = [
            format!(
                "the parent {} of {parents} has {count} children",
                first.get_object_id("_id").unwrap().to_hex()
            ),
            format!("over the new layout's bound of {bound}"),
            "nothing was written".to_owned(),
        ];
        refused(&old_text, &new_text, &t, "M0002", &parts).await;
        t.cleanup().await;

        // A child referring to no parent, into buckets.
        let t = TestDb::new(&format!("mig_bk_orphan_{seed}")).await;
        let old_text = plain_text(&n, Plain::ChildRef);
        let keep = tempfile::tempdir().unwrap();
        let old = write(keep.path(), "o.sqn", &old_text);
        let plan = plan_of(&old);
        indexes(&old, &t, &["--apply"]).await.expect(0, &old_text);
        fill_plain(&t.db, &plan, 10, 30, &mut Lcg(seed)).await;
        let d = relation(&plan);
        let child = entity_collection(&plan, &d.child).unwrap();
        let orphan = ObjectId::new();
        t.db.collection::<Document>(&child.name)
            .insert_one(doc! {
                "_id": orphan, n.a: "lost", n.b: 1, "when": DateTime::now(), n.list: [],
                n.one: ObjectId::new(),
            })
            .await
            .unwrap();
        let parts = [
            format!(
                "the document {} of {} refers by {} to no parent",
                orphan.to_hex(),
                child.name,
                n.one
            ),
            "give that document".to_owned(),
            "nothing was written".to_owned(),
        ];
        refused(&old_text, &text(&n, "force bucket(4)"), &t, "M0002", &parts).await;
        t.cleanup().await;
    }
}
