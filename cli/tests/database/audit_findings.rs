//! `squillion audit`: every kind of finding, in the table and in JSON; --sample; exit codes.

use super::*;

#[tokio::test]
async fn audit_reports_each_contradiction_in_the_table_and_in_json() {
    let t = TestDb::new("audit_findings").await;
    let (_dir, file) = schema(SHOP);
    let order = ObjectId::new();
    let nowhere = ObjectId::new();
    t.db.collection::<Document>("orders")
        .insert_one(doc! { "_id": order, "total": 12.5 })
        .await
        .unwrap();
    let clean = customer("clean@example.com", &["a"], &[order]);
    let long_tags = customer("long@example.com", &["a", "b", "c", "d", "e"], &[]);
    let mut unknown = customer("unknown@example.com", &[], &[order]);
    unknown.insert("shoe_size", 42);
    let mut old = customer("old@example.com", &["a"], &[]);
    old.insert("schema_version", 1);
    let dangling = customer("dangling@example.com", &[], &[order, nowhere]);
    let id = |d: &Document| d.get_object_id("_id").unwrap().to_hex();
    t.db.collection::<Document>("customers")
        .insert_many([&clean, &long_tags, &unknown, &old, &dangling])
        .await
        .unwrap();
    // The indexes and validators, then one index lost.
    indexes(&file, &t, &["--apply"]).await.expect(0, "apply");
    t.db.collection::<Document>("customers")
        .drop_index("tags_1")
        .await
        .unwrap();

    let run = audit(&file, &t, &[]).await;
    run.expect(1, "audit with findings");
    run.assert_line(&["sampled 6 documents in 2 collections"]);
    run.assert_line(&[
        "customers",
        "array_over_bound",
        "tags",
        "has 5 elements",
        "allows 3",
    ]);
    run.assert_line(&["customers", "unknown_field", "shoe_size"]);
    run.assert_line(&[
        "customers",
        "old_schema_version",
        "schema_version",
        "oldest found: 1",
    ]);
    run.assert_line(&[
        "customers",
        "dangling_reference",
        "orders",
        &nowhere.to_hex(),
    ]);
    run.assert_line(&["customers", "missing_index", "tags_1", "indexes --apply"]);

    let run = audit(&file, &t, &["--format", "json"]).await;
    run.expect(1, "audit with findings, JSON");
    let report = run.json();
    assert_eq!(
        report["sampled"],
        serde_json::json!({ "customers": 5, "orders": 1 })
    );
    assert_eq!(findings(&report).len(), 5, "{:#}", report["findings"]);

    let f = finding(&report, "array_over_bound", "tags");
    assert_eq!(f["collection"], "customers");
    assert_eq!(f["count"], 1);
    assert!(
        f["example"].as_str().unwrap().contains(&id(&long_tags)),
        "{f}"
    );

    let f = finding(&report, "unknown_field", "shoe_size");
    assert_eq!(f["count"], 1);
    assert!(
        f["example"].as_str().unwrap().contains(&id(&unknown)),
        "{f}"
    );

    let f = finding(&report, "old_schema_version", "schema_version");
    assert_eq!(f["count"], 1);
    assert!(f["example"].as_str().unwrap().contains(&id(&old)), "{f}");

    let f = finding(&report, "dangling_reference", "orders");
    assert_eq!(
        f["count"], 1,
        "one reference of the sample points nowhere: {f}"
    );
    assert!(
        f["example"].as_str().unwrap().contains(&id(&dangling)),
        "{f}"
    );
    assert!(
        f["detail"].as_str().unwrap().contains(&nowhere.to_hex()),
        "{f}"
    );
    assert!(f["detail"].as_str().unwrap().contains("Order"), "{f}");

    let f = finding(&report, "missing_index", "tags_1");
    assert_eq!(f["collection"], "customers");
    t.cleanup().await;
}

#[tokio::test]
async fn audit_of_a_clean_database_exits_0() {
    let t = TestDb::new("audit_clean").await;
    let (_dir, file) = schema(SHOP);
    indexes(&file, &t, &["--apply"]).await.expect(0, "apply");
    let order = ObjectId::new();
    t.db.collection::<Document>("orders")
        .insert_one(doc! { "_id": order, "total": 3.0 })
        .await
        .unwrap();
    let mut with_nickname = customer("b@example.com", &["x", "y", "z"], &[order]);
    with_nickname.insert("nickname", "bee");
    t.db.collection::<Document>("customers")
        .insert_many([customer("a@example.com", &[], &[]), with_nickname])
        .await
        .unwrap();

    let run = audit(&file, &t, &[]).await;
    run.expect(0, "clean audit");
    run.assert_line(&["sampled 3 documents in 2 collections"]);
    run.assert_line(&["the sample agrees with the design"]);
    let run = audit(&file, &t, &["--format", "json"]).await;
    run.expect(0, "clean audit, JSON");
    let report = run.json();
    assert_eq!(findings(&report).len(), 0, "{report:#}");
    assert_eq!(
        report["sampled"],
        serde_json::json!({ "customers": 2, "orders": 1 })
    );
    t.cleanup().await;
}

#[tokio::test]
async fn audit_before_any_index_reports_every_declared_index_missing() {
    let t = TestDb::new("audit_no_index").await;
    let (_dir, file) = schema(SHOP);
    let run = audit(&file, &t, &["--format", "json"]).await;
    run.expect(1, "nothing applied yet");
    let report = run.json();
    let missing: BTreeSet<&str> = findings(&report)
        .iter()
        .filter(|f| f["kind"] == "missing_index")
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        missing,
        BTreeSet::from(["email_1", "nickname_1", "created_1", "tags_1"])
    );
    assert_eq!(
        report["sampled"],
        serde_json::json!({ "customers": 0, "orders": 0 })
    );
    t.cleanup().await;
}

#[tokio::test]
async fn sample_limits_the_documents_read_per_collection() {
    let t = TestDb::new("audit_sample").await;
    let (_dir, file) = schema(SHOP);
    indexes(&file, &t, &["--apply"]).await.expect(0, "apply");
    let docs: Vec<Document> = (0..40)
        .map(|n| {
            let mut d = customer(&format!("c{n}@example.com"), &[], &[]);
            d.insert("legacy_flag", true);
            d
        })
        .collect();
    t.db.collection::<Document>("customers")
        .insert_many(docs)
        .await
        .unwrap();

    let run = audit(&file, &t, &["--sample", "7", "--format", "json"]).await;
    run.expect(1, "sampled findings");
    let report = run.json();
    assert_eq!(report["sampled"]["customers"], 7);
    assert_eq!(finding(&report, "unknown_field", "legacy_flag")["count"], 7);

    let run = audit(&file, &t, &["--format", "json"]).await;
    run.expect(1, "default sample");
    let report = run.json();
    assert_eq!(report["sampled"]["customers"], 40);
    assert_eq!(
        finding(&report, "unknown_field", "legacy_flag")["count"],
        40
    );

    let run = audit(&file, &t, &["--sample", "0"]).await;
    run.expect(2, "a sample of nothing is a usage error");
    t.cleanup().await;
}

#[tokio::test]
async fn audit_reports_documents_near_the_size_limits() {
    let t = TestDb::new("audit_size").await;
    let (_dir, file) = schema("entity Attachment { name: string  data: string }\n");
    indexes(&file, &t, &["--apply"]).await.expect(0, "apply");
    let big = "x".repeat(2_500_000);
    let big_doc = doc! { "_id": ObjectId::new(), "name": "big", "data": big };
    let biggest = "x".repeat(3_000_000);
    let biggest_doc = doc! { "_id": ObjectId::new(), "name": "biggest", "data": biggest };
    t.db.collection::<Document>("attachments")
        .insert_many([
            doc! { "name": "small", "data": "x" },
            biggest_doc.clone(),
            big_doc,
        ])
        .await
        .unwrap();
    let run = audit(&file, &t, &["--format", "json"]).await;
    run.expect(1, "big documents");
    let report = run.json();
    assert_eq!(findings(&report).len(), 1, "{report:#}");
    let f = finding(&report, "document_size", "");
    assert_eq!(f["count"], 2);
    let detail = f["detail"].as_str().unwrap();
    assert!(
        detail.contains("2097152"),
        "the 2 MB warning size: {detail}"
    );
    let size = bson::to_vec(&biggest_doc).unwrap().len().to_string();
    assert!(
        detail.contains(&size),
        "the largest size seen ({size}): {detail}"
    );
    t.cleanup().await;
}

#[tokio::test]
async fn audit_follows_embedded_documents_stored_names_and_recursive_trees() {
    let t = TestDb::new("audit_library").await;
    let file = root().join("examples/library.sqn");
    let author = ObjectId::new();
    t.db.collection::<Document>("authors")
        .insert_one(doc! { "_id": author, "first_name": "F. Scott", "last_name": "Fitzgerald" })
        .await
        .unwrap();
    t.db.collection::<Document>("users")
        .insert_one(doc! { "_id": "ann", "password": "hash" })
        .await
        .unwrap();
    let book = |publisher: Document, author: ObjectId| {
        doc! {
            "_id": ObjectId::new(),
            "title": "The Great Gatsby",
            "isbn": "9781857150193",
            "slug": "gatsby",
            "publisher": publisher,
            "available": true,
            "pages": 176,
            "summary": "Set in the post-Great War...",
            "subjects": ["Love stories", "1920s"],
            "language": "English",
            "author": { "id": author, "first_name": "F. Scott", "last_name": "Fitzgerald" },
        }
    };
    let publisher = doc! {
        "publisher_name": "Everyman's Library",
        "date": DateTime::now(),
        "publisher_city": "London",
    };
    let mut odd_publisher = publisher.clone();
    odd_publisher.insert("phone", "555");
    let good_book = book(publisher.clone(), author);
    let ghost_author = ObjectId::new();
    t.db.collection::<Document>("books")
        .insert_many([
            good_book.clone(),
            book(odd_publisher, author),
            book(publisher, ghost_author),
        ])
        .await
        .unwrap();
    // A bucket of notes; the tree of comments goes three levels deep, and the deepest reply is
    // by a user who does not exist and carries a field nobody declared.
    let reply = |user: &str, replies: Vec<Document>| doc! { "text": "yes", "user": user, "replies": replies };
    let mut deep = reply("ghost", vec![]);
    deep.insert("mood", "happy");
    let comment = reply("ann", vec![reply("ann", vec![deep])]);
    t.db.collection::<Document>("book_notes")
        .insert_one(doc! {
            "_id": ObjectId::new(),
            "book": good_book.get_object_id("_id").unwrap(),
            "notes": [{ "note": "One of the best", "date": DateTime::now(), "user": "ann", "comments": [comment] }],
            "count": 1,
            "max": DateTime::now(),
        })
        .await
        .unwrap();

    indexes(&file, &t, &["--apply"]).await.expect(0, "apply");

    let run = audit(&file, &t, &["--format", "json"]).await;
    run.expect(1, "audit of the library");
    let report = run.json();
    finding(&report, "unknown_field", "publisher.phone");
    let f = finding(&report, "dangling_reference", "author");
    assert_eq!(f["collection"], "books");
    assert!(
        f["detail"]
            .as_str()
            .unwrap()
            .contains(&ghost_author.to_hex()),
        "{f}"
    );
    let deep_path = "notes.comments.replies.replies.mood";
    finding(&report, "unknown_field", deep_path);
    let f = finding(
        &report,
        "dangling_reference",
        "notes.comments.replies.replies.user",
    );
    assert!(f["detail"].as_str().unwrap().contains("ghost"), "{f}");
    assert_eq!(
        findings(&report).len(),
        4,
        "stored names (publisher_name) and every declared field pass: {:#}",
        report["findings"]
    );
    t.cleanup().await;
}

/// Containers nested in containers (`map<[T; N]; M>`, `[map<T; N>]`): every level is held to its
/// own bound, maps included (`map_over_bound`).
#[tokio::test]
async fn audit_holds_every_level_of_nested_containers_to_its_bound() {
    let t = TestDb::new("audit_containers").await;
    let (_dir, file) = schema(
        "entity Shelf @collection(\"shelves\") {\n  m: map<[int32; 2]; 3>\n  g: [map<int32; 2>; 4]\n}\n",
    );
    let shelves = t.db.collection::<Document>("shelves");
    let within = doc! { "m": { "a": [1, 2], "b": [], "c": [3] }, "g": [{ "x": 1, "y": 2 }] };
    let wide_map = doc! { "m": { "a": [1], "b": [2], "c": [3], "d": [4] }, "g": [] };
    let long_inner = doc! { "m": { "a": [1, 2, 3] }, "g": [] };
    let wide_inner = doc! { "m": {}, "g": [{ "x": 1 }, { "x": 1, "y": 2, "z": 3 }] };
    shelves
        .insert_many([&within, &wide_map, &long_inner, &wide_inner])
        .await
        .unwrap();
    indexes(&file, &t, &["--apply"]).await.expect(0, "apply");

    let run = audit(&file, &t, &["--format", "json"]).await;
    run.expect(1, "levels over their bounds");
    let report = run.json();
    assert_eq!(findings(&report).len(), 3, "{:#}", report["findings"]);
    // One document each, with its length and the bound in the detail.
    for (kind, path, found, allowed) in [
        ("map_over_bound", "m", "4 entries", "allows 3"),
        ("array_over_bound", "m.*", "3 elements", "allows 2"),
        ("map_over_bound", "g", "3 entries", "allows 2"),
    ] {
        let f = finding(&report, kind, path);
        let detail = f["detail"].as_str().unwrap_or_default();
        assert_eq!(f["count"], 1, "{f}");
        assert!(detail.contains(found) && detail.contains(allowed), "{f}");
    }
}
