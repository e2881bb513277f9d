//! Optional relation ends (`one?`) over generated schemas: every relation of a schemagen schema
//! whose child end is `one` is made `one?` (a child may have no parent). Then, whatever layout
//! the engine or a `force` picks, a child is never kept inside a document of its parent (no
//! `embed`, no `bucket`: a child without a parent would have nowhere to be), it has a collection
//! of its own, and the reference it holds to its parent (if the layout gives it one) is optional
//! in the Plan and in the validator (not required, `null` allowed). Forcing `embed` or `bucket`
//! on such a relation is error E0418, and nothing else. The server side (a child stored without
//! a parent, `find_by_<parent>` skipping it) is `examples/generated/tests/optional_ends.rs`.

use proptest::prelude::*;
use serde_json::Value;
use squillion_codegen::model::Layout;
use squillion_codegen::plan::{CollectionRole, Plan};
use squillion_grammar::SourceFile;
use squillion_schemagen::{Card, Config, Fact, Family, Schema};

/// `schema` with every child end `one` made `one?`; `keep_forced`: the `force embed` and
/// `force bucket` of those relations stay (they must be refused), else they are dropped.
fn optional(mut schema: Schema, keep_forced: bool) -> (Schema, usize) {
    let mut forced = 0;
    for r in &mut schema.relations {
        if r.right.card != Card::One {
            continue;
        }
        r.right.card = Card::OptionalOne;
        let inside = |f: &Fact| matches!(f, Fact::Force(Family::Embed | Family::Bucket, _));
        if keep_forced {
            forced += r.facts.iter().filter(|f| inside(f)).count();
        } else {
            r.facts.retain(|f| !inside(f));
        }
    }
    (schema, forced)
}

fn plan(text: &str) -> Result<Plan, Vec<&'static str>> {
    let source = SourceFile::new("optional.sqn", text);
    match squillion_codegen::load(&source) {
        Ok(checked) => Ok(squillion_codegen::engine::plan(&checked.model, &source)),
        Err(d) => Err(d.iter().filter(|d| d.is_error()).map(|d| d.code).collect()),
    }
}

/// The validator node of top-level `field` and whether the validator requires it.
fn validated(validator: &Value, field: &str) -> (Option<Value>, bool) {
    let schema = &validator["$jsonSchema"];
    let required = schema["required"]
        .as_array()
        .is_some_and(|r| r.iter().any(|v| v == field));
    (schema["properties"].get(field).cloned(), required)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_child_that_may_have_no_parent_is_never_kept_inside_one(
        schema in squillion_schemagen::schema(Config::default()),
    ) {
        let (schema, _) = optional(schema, false);
        let text = squillion_schemagen::render(&schema);
        let plan = plan(&text).map_err(|codes| TestCaseError::fail(format!("{codes:?}\n{text}")))?;
        for r in schema.relations.iter().filter(|r| r.right.card == Card::OptionalOne) {
            let id = format!("{}.{}", r.left.entity, r.left.field);
            let d = plan
                .relationship(&id)
                .ok_or_else(|| TestCaseError::fail(format!("no decision {id}\n{text}")))?;
            let child = &r.right.entity;
            prop_assert!(
                !matches!(d.strategy, Layout::Embed | Layout::Bucket),
                "{id} is {:?}: a {child} without a parent would have nowhere to be\n{text}",
                d.strategy
            );
            let own = plan
                .collections
                .iter()
                .find(|c| c.role == CollectionRole::Entity && c.entity == *child);
            let own = own.ok_or_else(|| TestCaseError::fail(format!("{child} has no collection\n{text}")))?;
            // The reference the child holds to its parent, where the layout gives it one.
            for p in d.placement.iter().filter(|p| p.holder == *child && p.collection == own.name) {
                let f = own
                    .field(&p.path)
                    .ok_or_else(|| TestCaseError::fail(format!("{}.{} not in the Plan", own.name, p.path)))?;
                if p.target != r.left.entity || p.path != r.right.field {
                    continue;
                }
                prop_assert!(f.optional, "{}.{} is required\n{text}", own.name, p.path);
                let (node, required) = validated(&squillion_codegen::validator::validator(own), &f.name);
                prop_assert!(!required, "the validator of {} requires {}\n{text}", own.name, f.name);
                let types = node.map(|n| n["bsonType"].clone()).unwrap_or(Value::Null);
                prop_assert!(
                    types.as_array().is_some_and(|t| t.iter().any(|v| v == "null")),
                    "{}.{}: {types} refuses null\n{text}",
                    own.name,
                    f.name
                );
            }
        }
    }

    #[test]
    fn forcing_such_children_inside_their_parent_is_refused(
        schema in squillion_schemagen::schema(Config::default()),
    ) {
        let (schema, forced) = optional(schema, true);
        let text = squillion_schemagen::render(&schema);
        match plan(&text) {
            Ok(_) => prop_assert_eq!(forced, 0, "{}", text),
            Err(codes) => {
                prop_assert_eq!(codes.len(), forced, "{:?}\n{}", codes, text);
                prop_assert!(codes.iter().all(|c| *c == "E0418"), "{:?}\n{}", codes, text);
            }
        }
    }
}
