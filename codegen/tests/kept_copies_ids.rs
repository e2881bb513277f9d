//! The copies a parent keeps of its children (`latest N`, `top N`) hold the child's `_id` exactly
//! when the Plan says so (`child_id`), and every consumer follows it: the collection's fields,
//! its validator, the generated copy type, and which write keeps the list.
//!
//! Found by the model-based harness (`s1_040`, docs/testing.md): an entity bucketed under its own
//! kind with its latest N kept on the parent. Its children are bucket elements, without an `_id`,
//! and the Plan's copies had none; but the entity has a collection of its own (it is the parent),
//! so the parent's struct got a `push_<list>` that inserted the child there, outside the
//! relationship, and copied it with its `_id`, which neither the validator nor the generated type
//! listed. The family is every list of bucketed or embedded children whose entity also has a
//! collection of its own (as the parent, or for another relationship): the layout's writes (the
//! bucket's appends, the array's pushes) keep the list, and the copies hold an `_id` only when the
//! elements have one (an entity embedded in itself). Children stored as documents are copied
//! with their `_id`, and their parent's `push_<list>` inserts them.

mod planned;

use serde_json::Value;
use squillion_codegen::plan::{Collection, CollectionRole, ComputedFn, Decision, Plan};
use squillion_grammar::SourceFile;

/// `(name, schema, relationship)`: each shape of the family and the layouts beside it.
const SHAPES: [(&str, &str, &str); 7] = [
    (
        "an entity bucketed under its own kind (s1_040)",
        "entity E0 { at: date  n: int32  s: string }
relation E0.r3: squillions <-> E0.q3: one {
  growth append_heavy, unbounded
  page 4 by at
  latest 3 by at desc keep at, n
  top 2 by n desc keep n
  force bucket(4)
}",
        "E0.r3",
    ),
    (
        "an entity bucketed under its own kind, also the child of another",
        "entity E0 { at: date  n: int32  s: string }
entity E3 { n: int32 }
relation E0.r3: squillions <-> E0.q3: one {
  latest 3 by at desc keep at, n
  force bucket(4)
}
relation E3.r5: squillions <-> E0.q5: one",
        "E0.r3",
    ),
    (
        "children bucketed under another entity, with a collection of their own elsewhere",
        "entity Shop { name: string }
entity Maker { name: string }
entity Item { at: date  n: int32  s: string }
relation Shop.items: squillions <-> Item.shop: one {
  latest 3 by at desc keep at, n
  top 2 by n desc keep n
  force bucket(4)
}
relation Maker.items: squillions <-> Item.maker: one",
        "Shop.items",
    ),
    (
        "children bucketed under another entity, nowhere else",
        "entity Shop { name: string }
entity Item { at: date  n: int32  s: string }
relation Shop.items: squillions <-> Item.shop: one {
  latest 3 by at desc keep at, n
  force bucket(4)
}",
        "Shop.items",
    ),
    (
        "children embedded in another entity (outlier), with a collection of their own elsewhere",
        "entity Shop { name: string }
entity Maker { name: string }
entity Item { at: date  n: int32  s: string }
relation Shop.items: many(1000, typical 3) <-> Item.shop: one {
  latest 2 by at desc keep at, n
  top 2 by n desc keep n
  force embed
}
relation Maker.items: squillions <-> Item.maker: one",
        "Shop.items",
    ),
    (
        "an entity embedded in itself (outlier)",
        "entity E0 { at: date  n: int32  s: string }
relation E0.r: many(1000, typical 3) <-> E0.q: one {
  latest 2 by at desc keep at, n
  force embed
}",
        "E0.r",
    ),
    (
        "children in their own collection naming their parent",
        "entity Shop { name: string }
entity Item { at: date  n: int32  s: string }
relation Shop.items: squillions <-> Item.shop: one {
  latest 3 by at desc keep at, n
  top 2 by n desc keep n
}",
        "Shop.items",
    ),
];

/// `(path, child_id)` of every list of copies `d` keeps.
fn lists(d: &Decision) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = d
        .subset
        .iter()
        .map(|s| (s.path.clone(), s.child_id.clone()))
        .collect();
    for x in &d.computed {
        if let ComputedFn::TopN { child_id, .. } = &x.function {
            out.push((x.path.clone(), child_id.clone()));
        }
    }
    out
}

fn parent_collection<'p>(p: &'p Plan, d: &Decision) -> &'p Collection {
    let name = d
        .subset
        .as_ref()
        .map(|s| s.collection.clone())
        .or_else(|| d.computed.first().map(|x| x.collection.clone()))
        .unwrap_or_else(|| panic!("{} keeps no list", d.id));
    p.collection(&name)
        .unwrap_or_else(|| panic!("no collection {name}"))
}

/// Whether the elements the layout keeps (bucket items, the embedded array) carry an `_id`.
fn elements_have_ids(p: &Plan, d: &Decision) -> bool {
    let field = match &d.bucket {
        Some(b) => p
            .collection(&b.collection)
            .and_then(|c| c.field(&b.items_path)),
        None => {
            let parent = parent_collection(p, d);
            d.placement
                .iter()
                .find(|x| x.collection == parent.name && !x.path.contains('.'))
                .and_then(|x| parent.field(&x.path))
        }
    };
    let field = field.unwrap_or_else(|| panic!("{}: no elements", d.id));
    if field.children.is_empty() {
        // An entity embedded in itself: the elements are its documents' type.
        let ty = field.type_name.as_deref().unwrap_or_default();
        return p
            .collections
            .iter()
            .find(|c| c.role == CollectionRole::Entity && c.entity == ty)
            .is_some_and(|c| c.field("_id").is_some());
    }
    field.children.iter().any(|f| f.name == "_id")
}

/// The body of `pub struct <name> { ... }` in the generated code.
fn struct_body<'r>(rust: &'r str, name: &str) -> &'r str {
    let head = format!("pub struct {name} {{");
    let start = rust
        .find(&head)
        .unwrap_or_else(|| panic!("no struct {name}:\n{rust}"));
    let body = &rust[start..];
    &body[..body.find("\n}").unwrap_or(body.len())]
}

/// The attributes on field `code_name` of the struct whose body is `body`.
fn field_attrs<'r>(body: &'r str, code_name: &str) -> &'r str {
    let decl = format!("pub {code_name}: ");
    let at = body
        .find(&decl)
        .unwrap_or_else(|| panic!("no field {code_name}:\n{body}"));
    let before = &body[..at];
    // Back to the end of the previous field's declaration.
    let from = before.rfind(",\n").map_or(0, |i| i + 2);
    &before[from..]
}

#[test]
fn copies_hold_the_child_id_exactly_where_the_plan_says_and_every_consumer_follows() {
    for (name, src, rel) in SHAPES {
        let p = planned::plan(src);
        let d = planned::decision(&p, rel);
        let kept_by_layout = d.copies_kept_by_layout();
        let source = SourceFile::new("gen.sqn", src);
        let rust = squillion_codegen::pipeline::compile(&source, &Default::default())
            .unwrap_or_else(|e| panic!("{name}: does not generate: {e:?}"))
            .rust;
        let parent = parent_collection(&p, d);
        let validator = squillion_codegen::validator::validator(parent);
        let lists = lists(d);
        assert!(!lists.is_empty(), "{name}: no list");
        for (path, child_id) in lists {
            let with_id = !child_id.is_empty();
            // The decision: documents are copied with their `_id`; elements only when they have
            // one.
            if kept_by_layout {
                assert_eq!(
                    with_id,
                    elements_have_ids(&p, d),
                    "{name}: `{path}`'s copies hold an `_id` ({child_id:?}) unlike the elements"
                );
            } else {
                assert_eq!(child_id, "_id", "{name}: `{path}` of documents");
            }
            // The collection's field and its validator.
            let field = parent
                .field(&path)
                .unwrap_or_else(|| panic!("{name}: no field {path}"));
            assert_eq!(
                field.children.iter().any(|f| f.name == "_id"),
                with_id,
                "{name}: `{path}`'s fields"
            );
            let items = &validator["$jsonSchema"]["properties"][&path]["items"];
            assert!(
                items.is_object(),
                "{name}: no validator of {path}: {validator}"
            );
            assert_eq!(
                items["properties"].get("_id").is_some(),
                with_id,
                "{name}: `{path}`'s validator {items}"
            );
            let required = items["required"].as_array().cloned().unwrap_or_default();
            assert_eq!(
                required.contains(&Value::from("_id")),
                with_id,
                "{name}: `{path}`'s validator requires {required:?}"
            );
            // The generated copy type.
            let ty = field
                .type_name
                .as_deref()
                .unwrap_or_else(|| panic!("{name}: `{path}` has no type"));
            assert_eq!(
                struct_body(&rust, ty).contains("pub id: "),
                with_id,
                "{name}: `{ty}`:\n{}",
                struct_body(&rust, ty)
            );
            // Which write keeps it: the layout's (the field is `maintained`, no `push_<list>`),
            // or the parent's `push_<list>`, which inserts the child into its own collection.
            let attrs = field_attrs(struct_body(&rust, &parent.entity), &field.code_name);
            if kept_by_layout {
                assert!(
                    attrs.contains("#[squillion(maintained)]"),
                    "{name}: `{path}` is not maintained: {attrs}"
                );
            } else {
                assert!(
                    attrs.contains("subset(to = ") || attrs.contains("top(to = "),
                    "{name}: `{path}` is not kept by its parent's writes: {attrs}"
                );
            }
        }
    }
}
