//! `squillion indexes`: dry runs, --apply, --prune, drift in text and JSON.

use super::*;

#[tokio::test]
async fn dry_run_on_an_empty_database_reports_everything_missing_and_creates_nothing() {
    let t = TestDb::new("idx_dry_run").await;
    let (_dir, file) = schema(SHOP);

    let run = indexes(&file, &t, &[]).await;
    run.expect(1, "dry run with drift");
    run.assert_line(&["customers", "missing collection"]);
    run.assert_line(&["orders", "missing collection"]);
    for name in ["email_1", "nickname_1", "created_1", "tags_1"] {
        run.assert_line(&["customers", "missing index", name]);
    }
    assert!(
        run.actions().is_empty(),
        "a dry run says what it would do, not that it did it:\n{}",
        run.stdout
    );
    assert!(
        collection_names(&t.db).await.is_empty(),
        "a dry run creates no collection"
    );

    // With the collection there (data but no indexes), still nothing is created.
    t.db.collection::<Document>("customers")
        .insert_one(customer("a@example.com", &["x"], &[]))
        .await
        .unwrap();
    let run = indexes(&file, &t, &["--format", "json"]).await;
    run.expect(1, "dry run with drift, JSON");
    let report = run.json();
    let customers = report["collections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["collection"] == "customers")
        .unwrap();
    assert_eq!(customers["exists"], true);
    assert_eq!(customers["validator"], "missing");
    let missing: BTreeSet<&str> = customers["indexes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["kind"] == "missing")
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        missing,
        BTreeSet::from(["email_1", "nickname_1", "created_1", "tags_1"])
    );
    assert_eq!(report["applied"], serde_json::json!([]));
    assert_eq!(
        index_names(&t.db, "customers").await,
        BTreeSet::from(["_id_".to_owned()]),
        "a dry run creates no index"
    );
    assert!(validator_of(&t.db, "customers").await.is_none());
    t.cleanup().await;
}

#[tokio::test]
async fn apply_creates_the_declared_indexes_and_validators_then_nothing_drifts() {
    let t = TestDb::new("idx_apply").await;
    let (_dir, file) = schema(SHOP);

    let run = indexes(&file, &t, &["--apply"]).await;
    run.expect(0, "apply");
    run.assert_line(&["created collection customers"]);
    run.assert_line(&["created collection orders"]);
    for name in ["email_1", "nickname_1", "created_1", "tags_1"] {
        run.assert_line(&["created index customers.", name]);
    }
    assert_matches_plan(&t.db, &plan_of(&file)).await;

    // The options are the ones the schema asks for, spelled out.
    let models = index_models(&t.db, "customers").await;
    let email = models["email_1"].options.clone().unwrap();
    assert_eq!(email.unique, Some(true));
    let collation = email.collation.unwrap();
    assert_eq!(
        (collation.locale.as_str(), strength(collation.strength)),
        ("en", 2)
    );
    let nickname = models["nickname_1"].options.clone().unwrap();
    assert_eq!((nickname.unique, nickname.sparse), (Some(true), Some(true)));
    let created = models["created_1"].options.clone().unwrap();
    assert_eq!(
        created.expire_after,
        Some(Duration::from_secs(30 * 24 * 3600))
    );
    assert_eq!(
        index_names(&t.db, "orders").await,
        BTreeSet::from(["_id_".to_owned()])
    );

    // The server enforces what was applied: the validator (code 121) and the unique collation.
    let customers = t.db.collection::<Document>("customers");
    let err = customers
        .insert_one(customer("b@example.com", &["1", "2", "3", "4"], &[]))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("121"), "validator refuses: {err}");
    customers
        .insert_one(customer("Ann@Example.com", &["1"], &[]))
        .await
        .unwrap();
    assert!(
        customers
            .insert_one(customer("ann@example.com", &["1"], &[]))
            .await
            .is_err(),
        "the case-insensitive unique index refuses a second ann"
    );

    // In sync: exit 0, every collection says so, in text and JSON.
    let run = indexes(&file, &t, &[]).await;
    run.expect(0, "dry run in sync");
    run.assert_line(&["customers", "in sync"]);
    run.assert_line(&["orders", "in sync"]);
    let run = indexes(&file, &t, &["--format", "json"]).await;
    run.expect(0, "dry run in sync, JSON");
    for c in run.json()["collections"].as_array().unwrap() {
        assert_eq!(c["exists"], true, "{c}");
        assert_eq!(c["validator"], "in_sync", "{c}");
        assert_eq!(c["indexes"], serde_json::json!([]), "{c}");
    }

    // Applying again changes nothing.
    let before = format!("{:?}", index_models(&t.db, "customers").await);
    let run = indexes(&file, &t, &["--apply"]).await;
    run.expect(0, "second apply");
    assert!(
        run.actions().is_empty(),
        "second apply did something:\n{}",
        run.stdout
    );
    assert_eq!(
        before,
        format!("{:?}", index_models(&t.db, "customers").await)
    );
    t.cleanup().await;
}

#[tokio::test]
async fn the_database_can_be_named_with_db_instead_of_the_uri() {
    let t = TestDb::new("idx_db_flag").await;
    let (_dir, file) = schema(SHOP);
    let run = squillion([
        OsString::from("indexes"),
        file.clone().into(),
        "--uri".into(),
        uri().into(),
        "--db".into(),
        t.db.name().into(),
        "--apply".into(),
    ])
    .await;
    run.expect(0, "apply with --db");
    assert_matches_plan(&t.db, &plan_of(&file)).await;
    t.cleanup().await;
}

#[tokio::test]
async fn hand_made_indexes_are_kept_unless_pruned_and_changed_options_are_rebuilt() {
    let t = TestDb::new("idx_extra").await;
    let (_dir, file) = schema(SHOP);
    indexes(&file, &t, &["--apply"])
        .await
        .expect(0, "first apply");

    // By hand: an index nobody declared, a declared name with another TTL, and a validator
    // that is not the declared one.
    let orders = t.db.collection::<Document>("orders");
    orders
        .create_index(
            IndexModel::builder()
                .keys(doc! { "total": -1 })
                .options(IndexOptions::builder().name("by_total".to_owned()).build())
                .build(),
        )
        .await
        .unwrap();
    let customers = t.db.collection::<Document>("customers");
    customers.drop_index("created_1").await.unwrap();
    customers
        .create_index(
            IndexModel::builder()
                .keys(doc! { "created": 1 })
                .options(
                    IndexOptions::builder()
                        .name("created_1".to_owned())
                        .expire_after(Duration::from_secs(60))
                        .build(),
                )
                .build(),
        )
        .await
        .unwrap();
    t.db.run_command(doc! {
        "collMod": "orders",
        "validator": { "$jsonSchema": { "bsonType": "object", "required": ["total", "note"] } },
    })
    .await
    .unwrap();

    let run = indexes(&file, &t, &[]).await;
    run.expect(1, "dry run with an extra and a different index");
    run.assert_line(&["orders", "extra index", "by_total", "{total: -1}", "kept"]);
    run.assert_line(&[
        "customers",
        "different",
        "created_1",
        "expireAfterSeconds: declared 2592000 s, existing 60 s",
    ]);
    run.assert_line(&["orders", "validator differs"]);
    let report = indexes(&file, &t, &["--format", "json"]).await.json();
    let by_collection: BTreeMap<&str, &Value> = report["collections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["collection"].as_str().unwrap(), c))
        .collect();
    assert_eq!(
        by_collection["orders"]["indexes"],
        serde_json::json!([{ "kind": "extra", "name": "by_total", "keys": "{total: -1}" }])
    );
    assert_eq!(by_collection["orders"]["validator"], "different");
    let customer_drift = by_collection["customers"]["indexes"].as_array().unwrap();
    assert_eq!(customer_drift.len(), 1, "{customer_drift:#?}");
    assert_eq!(customer_drift[0]["kind"], "different");
    assert_eq!(customer_drift[0]["name"], "created_1");

    // --apply rebuilds the declared index, restores the validator, keeps the hand-made index.
    let run = indexes(&file, &t, &["--apply"]).await;
    run.expect(0, "apply without prune");
    run.assert_line(&["dropped index customers.created_1 (options changed)"]);
    run.assert_line(&["created index customers.created_1"]);
    run.assert_line(&["kept index orders.by_total"]);
    run.assert_line(&["set the validator of orders"]);
    assert!(index_names(&t.db, "orders").await.contains("by_total"));
    let created = index_models(&t.db, "customers").await["created_1"]
        .options
        .clone()
        .unwrap();
    assert_eq!(created.expire_after, Some(Duration::from_secs(2_592_000)));

    // Still drift (the extra index), and only that.
    let run = indexes(&file, &t, &[]).await;
    run.expect(1, "the extra index is still drift");
    run.assert_line(&["orders", "extra index", "by_total"]);
    run.assert_line(&["customers", "in sync"]);
    assert!(!run.stdout.contains("validator"), "{}", run.stdout);

    // --prune needs --apply; with it, the extra index goes.
    let run = indexes(&file, &t, &["--prune"]).await;
    run.expect(2, "--prune alone is a usage error");
    assert!(run.stderr.contains("--apply"), "{}", run.stderr);
    assert!(index_names(&t.db, "orders").await.contains("by_total"));
    let run = indexes(&file, &t, &["--apply", "--prune"]).await;
    run.expect(0, "apply with prune");
    run.assert_line(&["dropped index orders.by_total (--prune)"]);
    assert_eq!(
        index_names(&t.db, "orders").await,
        BTreeSet::from(["_id_".to_owned()])
    );
    indexes(&file, &t, &[]).await.expect(0, "in sync at last");
    assert_matches_plan(&t.db, &plan_of(&file)).await;
    t.cleanup().await;
}

#[tokio::test]
async fn a_hand_made_index_on_declared_keys_with_other_options_does_not_break_apply() {
    let t = TestDb::new("idx_same_keys").await;
    let (_dir, file) = schema(SHOP);
    // `created: 1` under another name with another TTL. MongoDB keeps one index per key pattern
    // (and collation, unique, sparse, partial filter): it refuses a second one that differs only
    // in its TTL (IndexOptionsConflict, code 85).
    t.db.collection::<Document>("customers")
        .create_index(
            IndexModel::builder()
                .keys(doc! { "created": 1 })
                .options(
                    IndexOptions::builder()
                        .name("my_created".to_owned())
                        .expire_after(Duration::from_secs(60))
                        .build(),
                )
                .build(),
        )
        .await
        .unwrap();
    let run = indexes(&file, &t, &[]).await;
    run.expect(1, "dry run");
    run.assert_line(&["customers", "missing index", "created_1"]);
    run.assert_line(&["customers", "extra index", "my_created"]);
    let run = indexes(&file, &t, &["--apply"]).await;
    // What could be done was done, and said; the hand-made index is left alone without --prune.
    run.assert_line(&["created index customers.email_1"]);
    run.assert_line(&["created collection orders"]);
    run.assert_line(&["kept index customers.my_created"]);
    let names = index_names(&t.db, "customers").await;
    assert!(
        names.contains("my_created") && names.contains("tags_1"),
        "{names:?}"
    );
    if run.code == 1 {
        // MongoDB: one index per key pattern and collation, unique, sparse and partial filter.
        assert!(
            run.stderr
                .contains("error: cannot create index customers.created_1")
                && run.stderr.contains(
                    "the undeclared index my_created has the same keys; --prune replaces it"
                ),
            "{}",
            run.stderr
        );
        assert!(!names.contains("created_1"), "{names:?}");
    } else {
        // A server that holds both.
        run.expect(0, "apply next to my_created");
        assert!(names.contains("created_1"), "{names:?}");
    }

    let run = indexes(&file, &t, &["--apply", "--prune"]).await;
    run.expect(0, "apply with prune replaces it");
    run.assert_line(&["dropped index customers.my_created (--prune)"]);
    assert_matches_plan(&t.db, &plan_of(&file)).await;
    t.cleanup().await;
}

#[tokio::test]
async fn apply_goes_on_when_the_server_refuses_an_index_and_says_why() {
    let t = TestDb::new("idx_refused").await;
    let (_dir, file) = schema(SHOP);
    // Two customers whose emails differ only in case: the declared case-insensitive unique
    // index cannot be built over them.
    t.db.collection::<Document>("customers")
        .insert_many([
            customer("Ann@Example.com", &[], &[]),
            customer("ann@example.com", &[], &[]),
        ])
        .await
        .unwrap();
    let run = indexes(&file, &t, &["--apply"]).await;
    run.expect(1, "apply with a refused index");
    assert!(
        run.stderr
            .contains("error: cannot create index customers.email_1: ")
            && run
                .stderr
                .contains("unique index `email_1` (compared ignoring case)")
            && run.stderr.contains("server code 11000"),
        "{}",
        run.stderr
    );
    for done in [
        "set the validator of customers",
        "created index customers.nickname_1",
        "created index customers.created_1",
        "created index customers.tags_1",
        "created collection orders",
    ] {
        run.assert_line(&[done]);
    }
    let names = index_names(&t.db, "customers").await;
    assert!(!names.contains("email_1"), "{names:?}");
    assert!(names.contains("tags_1"), "{names:?}");

    let run = indexes(&file, &t, &["--format", "json"]).await;
    run.expect(1, "email_1 is still missing");
    let report = run.json();
    let customers = &report["collections"][0];
    assert_eq!(customers["collection"], "customers");
    assert_eq!(
        customers["indexes"],
        serde_json::json!([{ "kind": "missing", "name": "email_1", "keys": "{email: 1}" }])
    );
    let run = indexes(&file, &t, &["--apply", "--format", "json"]).await;
    run.expect(1, "apply refused again, JSON");
    let report = run.json();
    assert_eq!(report["applied"], serde_json::json!([]));
    let failed = report["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(failed[0]
        .as_str()
        .unwrap()
        .starts_with("cannot create index customers.email_1: "));

    // Once the data agrees, the index goes on.
    t.db.collection::<Document>("customers")
        .delete_one(doc! { "email": "ann@example.com" })
        .await
        .unwrap();
    indexes(&file, &t, &["--apply"])
        .await
        .expect(0, "apply after the fix");
    indexes(&file, &t, &[]).await.expect(0, "in sync");
    assert_matches_plan(&t.db, &plan_of(&file)).await;
    t.cleanup().await;
}
