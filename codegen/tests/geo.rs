//! Geospatial points (issue 13): `point` fields and `near`/`within` queries on
//! squillion-schemagen's schemas. A point field and geospatial queries are added to generated
//! schemas at every placement (an entity of its own, embedded, in a value type, optional, with
//! equality conditions and sort keys beside it); the Plan must serve every such query with an
//! index holding a `2dsphere` key on the point's stored path, the validator must require GeoJSON
//! points, and the generated Rust must type them `squillion::GeoPoint`.

use proptest::prelude::*;
use squillion_codegen::pipeline::{compile, GenerateSettings};
use squillion_codegen::plan::{Plan, PlanField, QueryOp};
use squillion_grammar::SourceFile;
use squillion_schemagen::{Field, Query, Scalar, Schema, Ty, ValueType};

/// Where the point goes in an entity, and how the queries use it.
#[derive(Debug, Clone, Copy)]
struct Geo {
    /// Which entity (modulo their count).
    entity: usize,
    /// `loc: point?` instead of `loc: point`.
    optional: bool,
    /// In a value type (`place.loc`) instead of at the top.
    in_value: bool,
    /// `n == ?` beside the geospatial condition.
    with_eq: bool,
    /// `sort s` after it.
    with_sort: bool,
    /// `within` instead of `near`.
    within: bool,
}

fn geo() -> impl Strategy<Value = Geo> {
    (
        0usize..8,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(entity, optional, in_value, with_eq, with_sort, within)| Geo {
                entity,
                optional,
                in_value,
                with_eq,
                with_sort,
                within,
            },
        )
}

fn field(name: &str, ty: Ty, optional: bool) -> Field {
    Field {
        name: name.to_owned(),
        ty,
        optional,
        attrs: vec![],
    }
}

/// `schema` with the point fields and geospatial queries `geos` describe. Returns the written
/// path of each query's point.
fn with_geo(mut schema: Schema, geos: &[Geo]) -> (Schema, Vec<(String, String)>) {
    let mut wanted = Vec::new();
    if schema.entities.is_empty() {
        return (schema, wanted);
    }
    schema.values.push(ValueType {
        name: "GeoPlace".to_owned(),
        fields: vec![
            field("label", Ty::Scalar(Scalar::String), false),
            field("loc", Ty::Scalar(Scalar::Point), false),
        ],
    });
    for (k, g) in geos.iter().enumerate() {
        let count = schema.entities.len();
        let entity = &mut schema.entities[g.entity % count];
        let (name, path) = if g.in_value {
            ("place", "place.loc")
        } else {
            ("loc", "loc")
        };
        if !entity.fields.iter().any(|f| f.name == name) {
            let ty = if g.in_value {
                Ty::Value("GeoPlace".to_owned())
            } else {
                Ty::Scalar(Scalar::Point)
            };
            entity.fields.push(field(name, ty, g.optional));
        }
        let mut conditions = Vec::new();
        if g.with_eq {
            conditions.push(("n".to_owned(), "==".to_owned()));
        }
        let op = if g.within { "within" } else { "near" };
        conditions.push((path.to_owned(), op.to_owned()));
        let query = format!("geo{k}");
        wanted.push((query.clone(), path.to_owned()));
        schema.queries.push(Query {
            name: query,
            on: entity.name.clone(),
            conditions,
            sort: if g.with_sort {
                vec![("s".to_owned(), false)]
            } else {
                vec![]
            },
            limit: None,
            returns: vec![],
        });
    }
    (schema, wanted)
}

fn point_fields<'a>(fields: &'a [PlanField], out: &mut Vec<&'a PlanField>) {
    for f in fields {
        if f.is_geo_point() {
            out.push(f);
        }
        point_fields(&f.children, out);
    }
}

/// The properties, for one schema and its Plan.
fn check(src: &str, plan: &Plan, rust: &str, wanted: &[(String, String)]) {
    for (name, written) in wanted {
        let Some(q) = plan.queries.iter().find(|q| &q.name == name) else {
            panic!("query {name} is not in the Plan:\n{src}");
        };
        let cond = q
            .conditions
            .iter()
            .find(|c| matches!(c.op, QueryOp::Near | QueryOp::Within));
        let Some(cond) = cond else {
            // Read through a join or on paths the layout does not store: no method, a warning.
            assert!(q.join.is_some() || !q.unstored.is_empty(), "{name}:\n{src}");
            continue;
        };
        assert!(cond.written.ends_with(written.as_str()) || cond.written == *written);
        let Some(collection) = plan.collection(&q.collection) else {
            panic!("{name}: no collection {}", q.collection);
        };
        let index = q
            .index
            .as_ref()
            .and_then(|i| collection.indexes.iter().find(|x| &x.name == i));
        let Some(index) = index else {
            panic!("{name} on {} has no index:\n{src}", q.collection);
        };
        assert!(
            index.keys.iter().any(|k| k.sphere && k.path == cond.path),
            "{name}: index {} has no 2dsphere key on {}:\n{src}",
            index.name,
            cond.path
        );
        assert!(
            collection
                .field_at(&cond.path)
                .is_some_and(|f| f.is_geo_point()),
            "{name}: {} is not a point in {}",
            cond.path,
            collection.name
        );
        assert!(
            rust.contains(&format!("\"{}\" = \"2dsphere\"", cond.path)),
            "{name}"
        );
    }
    for c in &plan.collections {
        // 2dsphere keys only on points.
        for i in &c.indexes {
            for k in i.keys.iter().filter(|k| k.sphere) {
                assert!(
                    c.field_at(&k.path).is_some_and(|f| f.is_geo_point()),
                    "{}: 2dsphere key on {}, not a point:\n{src}",
                    c.name,
                    k.path
                );
            }
        }
        let mut points = Vec::new();
        point_fields(&c.fields, &mut points);
        if points.is_empty() {
            continue;
        }
        let schema = squillion_codegen::validator::document_schema(c).to_string();
        assert!(
            schema.contains(r#""type":{"enum":["Point"]}"#),
            "{}: the validator does not require GeoJSON points: {schema}",
            c.name
        );
    }
    if !wanted.is_empty() {
        assert!(rust.contains("::squillion::GeoPoint"));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn every_geospatial_query_is_served_by_a_2dsphere_index(
        schema in squillion_schemagen::schema(Default::default()),
        geos in prop::collection::vec(geo(), 1..4),
    ) {
        let (schema, wanted) = with_geo(schema, &geos);
        let src = squillion_schemagen::render(&schema);
        let source = SourceFile::new("gen.sqn", src.clone());
        let generated = match compile(&source, &GenerateSettings::default()) {
            Ok(g) => g,
            Err(d) => panic!("does not compile:\n{}\n{src}", source.render(&d, false)),
        };
        check(&src, &generated.plan, &generated.rust, &wanted);
    }
}
