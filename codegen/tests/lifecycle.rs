//! Entities with a lifecycle of their own (`@expires`, issue 11 defect 1): a TTL index deletes
//! whole documents, so it may only ever sit on the expiring entity's own collection. The engine
//! never embeds such an entity (rule 2: it is used on its own); forcing it inside other documents
//! (`force embed`, `force bucket`) is error W120 at the `force`. Tested over every relation kind,
//! cardinality, side, forced layout and subset/top-N copy, and over squillion-schemagen's schemas.

use squillion_codegen::model::Layout;
use squillion_codegen::plan::{CollectionRole, FieldKind, Plan, PlanField, Severity};
use squillion_grammar::SourceFile;

/// The plan of `src`, or `None` when the schema does not check (a forced layout the relation
/// kind does not take).
fn plan(src: &str) -> Option<Plan> {
    let source = SourceFile::new("gen.sqn", src);
    let checked = squillion_codegen::load(&source).ok()?;
    Some(squillion_codegen::engine::plan(&checked.model, &source))
}

fn all_fields(fields: &[PlanField]) -> Vec<&PlanField> {
    let mut out = Vec::new();
    for f in fields {
        out.push(f);
        out.extend(all_fields(&f.children));
    }
    out
}

/// The expiring field of each entity that declares one: `(entity, bson name)`.
fn expiring(src: &str) -> Vec<(String, String)> {
    let source = SourceFile::new("gen.sqn", src);
    let Ok(checked) = squillion_codegen::load(&source) else {
        return Vec::new();
    };
    checked
        .model
        .entities
        .iter()
        .flat_map(|e| {
            e.fields
                .iter()
                .chain(e.variants.iter().flat_map(|v| v.fields.iter()))
                .filter(|f| f.facts.expires_after_seconds.is_some())
                .map(|f| (e.name.clone(), f.bson_name.clone()))
        })
        .collect()
}

/// The TTL invariant: every TTL index is on an entity collection, on a top-level field of that
/// entity declared `@expires`; every expiring entity's collection has its TTL index; no expiring
/// entity is embedded anywhere. Unless the plan has error W120, which it must have exactly when a
/// forced layout puts an expiring entity inside other documents.
fn check(src: &str, p: &Plan) {
    let exp = expiring(src);
    let w120: Vec<_> = p.warnings.iter().filter(|w| w.code == "W120").collect();
    let forced_inside: Vec<_> = p
        .relationships
        .iter()
        .filter(|d| {
            d.forced
                && matches!(d.strategy, Layout::Embed | Layout::Bucket)
                && exp.iter().any(|(e, _)| *e == d.child)
        })
        .collect();
    assert_eq!(
        w120.len(),
        forced_inside.len(),
        "W120 once per forced layout that embeds an expiring entity:\n{src}\n{:#?}",
        p.warnings
    );
    for w in &w120 {
        assert_eq!(w.severity, Severity::Error, "{src}");
        assert!(
            src.lines()
                .nth(w.position.line - 1)
                .is_some_and(|l| l.contains("force")),
            "W120 must point at the `force`: line {}\n{src}",
            w.position.line
        );
    }
    for c in &p.collections {
        for i in c
            .indexes
            .iter()
            .filter(|i| i.expire_after_seconds.is_some())
        {
            assert_eq!(
                c.role,
                CollectionRole::Entity,
                "TTL index {} on `{}`, which is not an entity's own collection:\n{src}",
                i.name,
                c.name
            );
            assert_eq!(i.keys.len(), 1, "{src}");
            let key = &i.keys[0].path;
            assert!(
                exp.iter().any(|(e, f)| *e == c.entity && f == key),
                "TTL index on `{}.{key}`: not a field of {} declared @expires, so it would delete {} documents for another entity's dates:\n{src}",
                c.name,
                c.entity,
                c.entity
            );
        }
    }
    if !w120.is_empty() {
        return;
    }
    for (entity, field) in &exp {
        let own = p
            .collections
            .iter()
            .find(|c| c.role == CollectionRole::Entity && c.entity == *entity)
            .unwrap_or_else(|| panic!("{entity} expires but has no collection:\n{src}"));
        assert!(
            own.indexes
                .iter()
                .any(|i| i.expire_after_seconds.is_some() && i.keys[0].path == *field),
            "{entity}'s collection `{}` has no TTL index on `{field}`:\n{src}",
            own.name
        );
        for c in &p.collections {
            for f in all_fields(&c.fields) {
                assert!(
                    !(f.kind == FieldKind::Embedded && f.type_name.as_deref() == Some(entity)),
                    "{entity} expires but is embedded at `{}.{}`:\n{src}",
                    c.name,
                    f.path
                );
            }
        }
    }
}

const KINDS: &[(&str, &str)] = &[
    ("one", "one"),
    ("few(10)", "one"),
    ("many(1000)", "one"),
    ("squillions", "one"),
    ("few(3)", "few(5)"),
    ("few(10)", "many(100000)"),
    ("squillions", "squillions"),
];

const FORCES: &[&str] = &[
    "",
    "force embed",
    "force bucket(20)",
    "force child_ref",
    "force parent_refs",
    "force two_way",
    "force one_way",
    "force link_collection",
];

const EXTRAS: &[&str] = &[
    "",
    "latest 5 by at desc",
    "latest 5 by at desc keep at, s",
    "top 3 by n desc keep n, at",
    "summary count, max(n)",
    "navigate both",
];

/// `expires` says which side's entity expires: 0 none, 1 the left's, 2 the right's, 3 both.
fn schema(left: &str, right: &str, expires: u8, force: &str, extra: &str) -> String {
    let ttl = |on: bool| if on { " exp: date @expires(30d)" } else { "" };
    format!(
        "entity Owner {{ at: date n: int32 s: string{} }}\nentity Part {{ at: date n: int32 s: string{} }}\nrelation Owner.parts: {left} <-> Part.owner: {right} {{\n  {extra}\n  {force}\n}}\n",
        ttl(expires & 1 == 1),
        ttl(expires & 2 == 2)
    )
}

#[test]
fn ttl_indexes_only_on_the_expiring_entitys_own_collection_for_every_layout() {
    let (mut planned, mut forced_errors) = (0, 0);
    for (left, right) in KINDS {
        for expires in 0..4 {
            for force in FORCES {
                for extra in EXTRAS {
                    let src = schema(left, right, expires, force, extra);
                    let Some(p) = plan(&src) else { continue };
                    check(&src, &p);
                    planned += 1;
                    forced_errors += usize::from(p.warnings.iter().any(|w| w.code == "W120"));
                }
            }
        }
    }
    // The family must really be exercised, including the refusals.
    assert!(planned > 600, "only {planned} schemas checked");
    assert!(forced_errors > 40, "only {forced_errors} forced refusals");
}

#[test]
fn an_expiring_entity_is_never_embedded_by_the_engine() {
    for (left, right) in KINDS {
        for extra in EXTRAS {
            let src = schema(left, right, 2, "", extra);
            let Some(p) = plan(&src) else { continue };
            let d = &p.relationships[0];
            assert!(
                !matches!(d.strategy, Layout::Embed | Layout::Bucket),
                "{} chosen for an expiring child:\n{src}",
                d.strategy.as_str()
            );
            assert!(
                !p.has_errors(),
                "the engine's own choice must plan cleanly:\n{src}"
            );
            if d.kind != squillion_codegen::plan::RelationKind::ManyToMany {
                // No id array in the parent that would keep the ids of expired children.
                assert!(
                    matches!(d.strategy, Layout::ChildRef),
                    "{} for an expiring child: its ids would outlive it in the parent:\n{src}",
                    d.strategy.as_str()
                );
                assert!(
                    d.facts.iter().any(|f| f.contains("lifecycle of its own")),
                    "the decision must say why: {:?}",
                    d.facts
                );
            }
        }
    }
}

#[test]
fn the_forced_refusal_says_why_and_what_to_do() {
    let src = schema("few(10)", "one", 2, "force embed", "");
    let source = SourceFile::new("gen.sqn", src.as_str());
    let checked = squillion_codegen::load(&source).unwrap();
    let p = squillion_codegen::engine::plan(&checked.model, &source);
    let w = p.warnings.iter().find(|w| w.code == "W120").unwrap();
    assert!(
        w.message.contains("expire 30 days after `exp`"),
        "{}",
        w.message
    );
    assert!(
        w.message.contains("delete the whole Owner"),
        "{}",
        w.message
    );
    assert!(
        w.help
            .as_deref()
            .unwrap_or("")
            .contains("remove `force embed`"),
        "{:?}",
        w.help
    );
    // Generation refuses it like any plan error.
    let generated = squillion_codegen::pipeline::compile(&source, &Default::default()).unwrap_err();
    assert!(generated.iter().any(|d| d.code == "W120" && d.is_error()));
}

#[test]
fn ttl_invariant_over_generated_schemas() {
    let config = squillion_schemagen::Config::default();
    let mut with_expiring = 0;
    for (_, schema) in squillion_schemagen::batch(11, 300, config) {
        let src = squillion_schemagen::render(&schema);
        let Some(p) = plan(&src) else {
            panic!("schemagen drew a schema that does not check:\n{src}")
        };
        with_expiring += usize::from(!expiring(&src).is_empty());
        check(&src, &p);
    }
    assert!(
        with_expiring > 30,
        "only {with_expiring} schemas with @expires"
    );
}

/// `@expires(0s)` is MongoDB's `expireAfterSeconds: 0`: each document expires at the date its
/// field holds (an expiry time stored per document). It was refused as "must be more than
/// zero"; it plans a TTL index of 0 seconds, and the review says what it means.
#[test]
fn expiring_at_the_stored_date_is_a_ttl_of_zero() {
    for unit in ["s", "min", "h", "d"] {
        let src = format!(
            "entity Session {{ token: string @unique\n  expires_at: date @expires(0{unit}) }}\n"
        );
        let p = plan(&src).unwrap_or_else(|| panic!("@expires(0{unit}) does not check"));
        let c = p.collection("sessions").expect("sessions");
        let ttl: Vec<_> = c
            .indexes
            .iter()
            .filter_map(|i| i.expire_after_seconds)
            .collect();
        assert_eq!(ttl, [0], "{src}");
        let text =
            squillion_codegen::review::render(&p, squillion_codegen::review::Format::Markdown)
                .expect("a review")
                .main;
        assert!(text.contains("expires at the date it holds"), "{text}");
    }
    // A fraction of a second is still refused.
    assert!(plan("entity S { at: date @expires(0.5s) }\n").is_none());
}
