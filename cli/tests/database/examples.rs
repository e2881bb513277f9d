//! The seed examples: applied, in sync, and audited clean with documents written as they
//! are designed.

use super::*;

async fn example(name: &str) {
    let t = TestDb::new(&format!("example_{name}")).await;
    let file = root().join("examples").join(format!("{name}.sqn"));
    let plan = plan_of(&file);
    assert!(!plan.collections.is_empty());

    let run = indexes(&file, &t, &[]).await;
    run.expect(1, "dry run on an empty database");
    for c in &plan.collections {
        run.assert_line(&[&c.name, "missing collection"]);
        for i in &c.indexes {
            run.assert_line(&[&c.name, "missing index", &i.name]);
        }
    }
    assert!(collection_names(&t.db).await.is_empty());

    indexes(&file, &t, &["--apply"]).await.expect(0, "apply");
    assert_matches_plan(&t.db, &plan).await;
    indexes(&file, &t, &[])
        .await
        .expect(0, "in sync after apply");
    let run = indexes(&file, &t, &["--apply"]).await;
    run.expect(0, "second apply");
    assert!(run.actions().is_empty(), "{}", run.stdout);

    let run = audit(&file, &t, &[]).await;
    run.expect(0, "audit of an empty, indexed database");
    assert!(run.stdout.contains("the sample agrees with the design"));
    t.cleanup().await;
}

#[tokio::test]
async fn example_blog() {
    example("blog").await;
}

#[tokio::test]
async fn example_catalog() {
    example("catalog").await;
}

#[tokio::test]
async fn example_inventory() {
    example("inventory").await;
}

#[tokio::test]
async fn example_library() {
    example("library").await;
}

#[tokio::test]
async fn example_patterns() {
    example("patterns").await;
}

/// A scalar of this BSON type.
fn scalar(bson_type: &str, n: u64) -> Bson {
    match bson_type {
        "objectId" => Bson::ObjectId(ObjectId::new()),
        "string" => Bson::String(format!("s{n}")),
        "int" => Bson::Int32(1),
        "long" => Bson::Int64(1),
        "double" => Bson::Double(1.5),
        "decimal" => Bson::Decimal128("1.5".parse().unwrap()),
        "bool" => Bson::Boolean(true),
        // One instant for every date, so copies and summaries of dates equal their source.
        "date" => Bson::DateTime(DateTime::from_millis(4_102_444_800_000)),
        "binData" => Bson::Binary(bson::Binary {
            subtype: bson::spec::BinarySubtype::Generic,
            bytes: vec![1, 2, 3],
        }),
        other => panic!("no sample for BSON type {other}"),
    }
}

/// What a conforming document is built from: the `_id` of the one document of each entity
/// collection, so that references point somewhere.
struct Conforming<'a> {
    collection: &'a squillion_codegen::plan::Collection,
    ids: &'a BTreeMap<String, Bson>,
}

impl Conforming<'_> {
    /// The document: every field the design declares (of the first variant, if any), arrays of
    /// one element, references to the other documents, the current schema version.
    fn document(&self, id: &Bson) -> Document {
        let c = self.collection;
        let variant = c
            .variants
            .as_ref()
            .map(|v| (v.discriminator.as_str(), v.names[0].as_str()));
        let mut d = Document::new();
        for f in &c.fields {
            if f.variant.is_some() && f.variant.as_deref() != variant.map(|v| v.1) {
                continue;
            }
            let value = match f.name.as_str() {
                "_id" => id.clone(),
                "schema_version" if c.schema_version.is_some() => {
                    Bson::Int32(c.schema_version.unwrap() as i32)
                }
                name if variant.is_some_and(|v| v.0 == name) => {
                    Bson::String(variant.unwrap().1.to_owned())
                }
                _ => self.value(f, &[], 0),
            };
            d.insert(f.name.clone(), value);
        }
        d
    }

    fn value(&self, f: &PlanField, ancestors: &[&PlanField], n: u64) -> Bson {
        if f.array_depth > 0 {
            if f.recursive {
                return Bson::Array(vec![]);
            }
            let mut v = self.element(f, ancestors, n);
            for _ in 0..f.array_depth {
                v = Bson::Array(vec![v]);
            }
            return v;
        }
        if f.map {
            return Bson::Document(doc! { "key": self.element(f, ancestors, n) });
        }
        self.element(f, ancestors, n)
    }

    fn element(&self, f: &PlanField, ancestors: &[&PlanField], n: u64) -> Bson {
        let target = f.source.as_deref().and_then(|s| self.ids.get(s));
        if matches!(f.kind, FieldKind::Ref | FieldKind::RefArray) && f.children.is_empty() {
            return target.cloned().unwrap_or_else(|| scalar(&f.bson_type, n));
        }
        if !f.enum_values.is_empty() {
            // An enumeration holds one of its values.
            let at = usize::try_from(n).unwrap_or(0) % f.enum_values.len();
            return Bson::String(f.enum_values[at].clone());
        }
        if f.children.is_empty() {
            return scalar(&f.bson_type, n);
        }
        let mut inner: Vec<&PlanField> = ancestors.to_vec();
        inner.push(f);
        let mut d = Document::new();
        for child in &f.children {
            let value = if child.name == "id" && matches!(child.kind, FieldKind::Ref) {
                target
                    .cloned()
                    .unwrap_or_else(|| scalar(&child.bson_type, n))
            } else {
                self.value(child, &inner, n)
            };
            d.insert(child.name.clone(), value);
        }
        Bson::Document(d)
    }
}

/// Documents written as the design says, one per collection, pass the server's validators and
/// audit clean: the audit has no false positives on what squillion itself plans.
async fn conforming_example(name: &str) {
    let t = TestDb::new(&format!("conform_{name}")).await;
    let file = root().join("examples").join(format!("{name}.sqn"));
    let plan = plan_of(&file);
    indexes(&file, &t, &["--apply"]).await.expect(0, "apply");
    let mut ids = BTreeMap::new();
    let mut own_ids = Vec::new();
    for (n, c) in plan.collections.iter().enumerate() {
        let id_type = &c.fields.iter().find(|f| f.name == "_id").unwrap().bson_type;
        let id = match id_type.as_str() {
            "string" => Bson::String(format!("{}-{n}", c.entity)),
            other => scalar(other, n as u64),
        };
        if c.role == squillion_codegen::plan::CollectionRole::Entity {
            ids.insert(c.entity.clone(), id.clone());
        }
        own_ids.push(id);
    }
    for (c, id) in plan.collections.iter().zip(&own_ids) {
        let d = Conforming {
            collection: c,
            ids: &ids,
        }
        .document(id);
        t.db.collection::<Document>(&c.name)
            .insert_one(&d)
            .await
            .unwrap_or_else(|e| panic!("{}'s validator refuses {d:#?}: {e}", c.name));
    }
    let run = audit(&file, &t, &["--format", "json"]).await;
    run.expect(0, "audit of conforming documents");
    let report = run.json();
    for c in &plan.collections {
        assert_eq!(report["sampled"][&c.name], 1, "{report:#}");
    }
    t.cleanup().await;
}

#[tokio::test]
async fn conforming_blog() {
    conforming_example("blog").await;
}

#[tokio::test]
async fn conforming_catalog() {
    conforming_example("catalog").await;
}

#[tokio::test]
async fn conforming_inventory() {
    conforming_example("inventory").await;
}

#[tokio::test]
async fn conforming_library() {
    conforming_example("library").await;
}

#[tokio::test]
async fn conforming_patterns() {
    conforming_example("patterns").await;
}
