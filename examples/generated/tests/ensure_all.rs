//! Every generated module's `ensure_all(db)` creates, in one call, the indexes and the validator
//! the Plan declares for each of its collections: checked against the Plan of the schema it was
//! generated from (not a list written here), on the server.
//!
//! Run with `scripts/with-server.sh cargo test -p squillion-examples-generated --test ensure_all`.

use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;

use squillion::bson::{doc, Document};
use squillion::mongodb::Database;
use squillion_examples_generated as generated;
use squillion_grammar::SourceFile;
use squillion_testkit::TestDb;

type EnsureAll =
    for<'a> fn(&'a Database) -> Pin<Box<dyn Future<Output = squillion::Result<()>> + 'a>>;

macro_rules! module {
    ($name:ident, $schema:literal) => {
        (
            stringify!($name),
            concat!(env!("CARGO_MANIFEST_DIR"), "/", $schema),
            (|db| Box::pin(generated::$name::ensure_all(db))) as EnsureAll,
        )
    };
}

#[tokio::test]
async fn ensure_all_creates_every_declared_index_and_validator() {
    let modules = [
        module!(blog, "../blog.sqn"),
        module!(catalog, "../catalog.sqn"),
        module!(inventory, "../inventory.sqn"),
        module!(library, "../library.sqn"),
        module!(patterns, "../patterns.sqn"),
        module!(children, "schemas/children.sqn"),
        module!(optional_ends, "schemas/optional_ends.sqn"),
    ];
    for (name, schema, ensure_all) in modules {
        let text = std::fs::read_to_string(schema).unwrap();
        let source = SourceFile::new(schema, &text);
        let plan = match squillion_codegen::pipeline::check(&source) {
            Ok(valid) => valid.plan,
            Err(diags) => panic!("{}", source.render(&diags, false)),
        };
        let t = TestDb::new(&format!("ensure_all_{name}")).await;
        ensure_all(&t.db).await.unwrap();
        // Idempotent: a second call changes nothing and succeeds.
        ensure_all(&t.db).await.unwrap();
        let listed =
            t.db.run_command(doc! { "listCollections": 1 })
                .await
                .unwrap();
        let batch = listed
            .get_document("cursor")
            .and_then(|c| c.get_array("firstBatch"))
            .unwrap();
        let validators: BTreeSet<String> = batch
            .iter()
            .filter_map(|c| c.as_document())
            .filter(|c| {
                c.get_document("options")
                    .is_ok_and(|o| o.contains_key("validator"))
            })
            .filter_map(|c| c.get_str("name").ok().map(str::to_owned))
            .collect();
        assert!(!plan.collections.is_empty(), "{name}: no collections");
        for c in &plan.collections {
            let names: BTreeSet<String> =
                t.db.collection::<Document>(&c.name)
                    .list_index_names()
                    .await
                    .unwrap()
                    .into_iter()
                    .collect();
            for index in &c.indexes {
                assert!(
                    names.contains(&index.name),
                    "{name}: `{}` lacks index `{}` after ensure_all: {names:?}",
                    c.name,
                    index.name
                );
            }
            assert!(
                validators.contains(&c.name),
                "{name}: `{}` has no validator after ensure_all",
                c.name
            );
        }
    }
}
