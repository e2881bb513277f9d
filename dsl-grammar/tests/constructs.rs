//! Per construct of the language: source -> the syntax tree it must give.

use squillion_grammar::ast::*;
use squillion_grammar::parse;

fn items(src: &str) -> Vec<Item> {
    match parse(src) {
        Ok(s) => s.items,
        Err(d) => panic!("does not parse: {src}\n{d:#?}"),
    }
}

fn entity(src: &str) -> TypeDecl {
    match items(src).into_iter().next() {
        Some(Item::Entity(e)) => e,
        other => panic!("expected an entity, got {other:?}"),
    }
}

fn relation(src: &str) -> RelationDecl {
    match items(src).into_iter().next() {
        Some(Item::Relation(r)) => r,
        other => panic!("expected a relation, got {other:?}"),
    }
}

fn query(src: &str) -> QueryDecl {
    match items(src).into_iter().next() {
        Some(Item::Query(q)) => q,
        other => panic!("expected a query, got {other:?}"),
    }
}

fn fact(src: &str) -> FactKind {
    let r = relation(&format!("relation A.b: one <-> B.a: many {{ {src} }}"));
    assert_eq!(r.facts.len(), 1, "{src}");
    r.facts.into_iter().next().unwrap().kind
}

#[test]
fn empty_file_and_comments_only() {
    assert!(items("").is_empty());
    assert!(items("// nothing here\n   \n// still nothing").is_empty());
}

#[test]
fn settings_block() {
    let Some(Item::Settings(s)) = items(
        "settings { embed_array_max = 150 doc_warn_size = 2MB denormalize_min_ratio = 10:1 }",
    )
    .into_iter()
    .next() else {
        panic!("settings expected")
    };
    let names: Vec<&str> = s.settings.iter().map(|s| s.name.name.as_str()).collect();
    assert_eq!(
        names,
        ["embed_array_max", "doc_warn_size", "denormalize_min_ratio"]
    );
    assert!(
        matches!(&s.settings[1].value, Value::Quantity(q) if q.number == "2" && q.unit.as_ref().unwrap().name == "MB")
    );
    assert!(
        matches!(&s.settings[2].value, Value::Ratio(r) if r.reads.number == "10" && r.updates.number == "1")
    );
}

#[test]
fn value_type_with_fields() {
    let Some(Item::Value(v)) = items("value Publisher { name: string city: string? }")
        .into_iter()
        .next()
    else {
        panic!()
    };
    assert_eq!(v.name.name, "Publisher");
    assert_eq!(v.fields.len(), 2);
    assert!(!v.fields[0].optional && v.fields[1].optional);
}

#[test]
fn entity_with_attributes_and_doc_comments() {
    let e = entity("/// A book.\n/// Two lines.\nentity Book @collection(\"books\") @schema_version(2) {\n  /// Its title.\n  title: string @index @stored(\"t\")\n}");
    assert_eq!(e.docs.lines, ["A book.", "Two lines."]);
    assert_eq!(e.attrs.len(), 2);
    assert_eq!(e.attrs[0].name.name, "collection");
    assert!(matches!(&e.attrs[0].args[0].value, Value::String { text, .. } if text == "books"));
    let f = &e.fields[0];
    assert_eq!(f.docs.lines, ["Its title."]);
    assert_eq!(
        f.attrs
            .iter()
            .map(|a| a.name.name.as_str())
            .collect::<Vec<_>>(),
        ["index", "stored"]
    );
}

#[test]
fn named_types_arrays_bounds_maps_and_optional_elements() {
    let e = entity("entity T { a: int32 b: [string] c: [string; 10] d: [int64?; 5] e: map<Score> f: [[double; 60]; 24] g: map<string?> }");
    let kinds: Vec<&TypeExprKind> = e.fields.iter().map(|f| &f.ty.kind).collect();
    assert!(matches!(kinds[0], TypeExprKind::Named(i) if i.name == "int32"));
    assert!(matches!(
        kinds[1],
        TypeExprKind::Array {
            bound: None,
            elem_optional: false,
            ..
        }
    ));
    assert!(
        matches!(kinds[2], TypeExprKind::Array { bound: Some(q), .. } if q.whole() == Some(10))
    );
    assert!(
        matches!(kinds[3], TypeExprKind::Array { elem_optional: true, bound: Some(q), .. } if q.whole() == Some(5))
    );
    assert!(
        matches!(kinds[4], TypeExprKind::Map { value, value_optional: false, bound: None } if matches!(&value.kind, TypeExprKind::Named(i) if i.name == "Score"))
    );
    match kinds[5] {
        TypeExprKind::Array {
            elem,
            bound: Some(outer),
            ..
        } => {
            assert_eq!(outer.whole(), Some(24));
            assert!(
                matches!(&elem.kind, TypeExprKind::Array { bound: Some(inner), .. } if inner.whole() == Some(60))
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        kinds[6],
        TypeExprKind::Map {
            value_optional: true,
            ..
        }
    ));
}

#[test]
fn bounded_maps_with_and_without_optional_values() {
    // Every combination of value type, `?` and bound, with and without spaces around `;`.
    for (value, optional) in [("int32", false), ("Score", false), ("string", true)] {
        for bound in [None, Some(1u64), Some(50), Some(1_000)] {
            let q = if optional { "?" } else { "" };
            let written = match bound {
                Some(n) => format!("map<{value}{q}; {n}>"),
                None => format!("map<{value}{q}>"),
            };
            for text in [
                written.clone(),
                written.replace("; ", ";").replace('<', " < "),
            ] {
                let e = entity(&format!("entity T {{ m: {text} }}"));
                match &e.fields[0].ty.kind {
                    TypeExprKind::Map {
                        value: v,
                        value_optional,
                        bound: b,
                    } => {
                        assert!(
                            matches!(&v.kind, TypeExprKind::Named(i) if i.name == value),
                            "{text}"
                        );
                        assert_eq!(*value_optional, optional, "{text}");
                        assert_eq!(b.as_ref().and_then(|q| q.whole()), bound, "{text}");
                    }
                    other => panic!("{text}: {other:?}"),
                }
            }
        }
    }
    // A map of bounded arrays, bounded itself: each bound stays with its own type.
    let e = entity("entity T { m: map<[int32; 7]; 3> }");
    match &e.fields[0].ty.kind {
        TypeExprKind::Map {
            value,
            bound: Some(b),
            ..
        } => {
            assert_eq!(b.whole(), Some(3));
            assert!(
                matches!(&value.kind, TypeExprKind::Array { bound: Some(inner), .. } if inner.whole() == Some(7))
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn counters_by_dimensions_and_by_period() {
    let e = entity("entity E { a: counters(24 x 60) b: counters(24x60) c: counters(minute_of_day) d: counters(1440) }");
    let dims = |i: usize| match &e.fields[i].ty.kind {
        TypeExprKind::Counters(CountersShape::Dims(d)) => {
            d.iter().map(|q| q.whole().unwrap()).collect::<Vec<_>>()
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(dims(0), [24, 60]);
    assert_eq!(dims(1), [24, 60]);
    assert!(
        matches!(&e.fields[2].ty.kind, TypeExprKind::Counters(CountersShape::Named(n)) if n.name == "minute_of_day")
    );
    assert_eq!(dims(3), [1440]);
}

#[test]
fn attribute_arguments_named_and_positional_with_units() {
    let e = entity("entity E { bio: string @large(20KB) @updates(5/day) @expires(30d) } ");
    let args: Vec<(&str, &str)> = e.fields[0]
        .attrs
        .iter()
        .map(|a| match &a.args[0].value {
            Value::Quantity(q) => (q.number.as_str(), q.unit.as_ref().unwrap().name.as_str()),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(args, [("20", "KB"), ("5", "/day"), ("30", "d")]);
    let e = entity("entity Job @queue(priority: level) { level: int32 }");
    let a = &e.attrs[0].args[0];
    assert_eq!(a.name.as_ref().unwrap().name, "priority");
    assert!(matches!(&a.value, Value::Path(p) if p.dotted() == "level"));
}

#[test]
fn numbers_with_separators_and_fractions() {
    let r = relation("relation A.b: many(500_000) <-> B.a: one { show A.x on B ratio 2.5 }");
    assert_eq!(r.left.cardinality.args[0].value.whole(), Some(500_000));
    match &r.facts[0].kind {
        FactKind::Show {
            ratio: Some(RatioExpr::Plain(q)),
            ..
        } => assert_eq!(q.value(), Some(2.5)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn polymorphic_variants() {
    let e = entity("entity Shape @polymorphic(discriminator: \"type\") { area: double variant circle { radius: double } variant rect { length: double width: double } }");
    assert_eq!(e.fields.len(), 1);
    let v: Vec<(&str, usize)> = e
        .variants
        .iter()
        .map(|v| (v.name.name.as_str(), v.fields.len()))
        .collect();
    assert_eq!(v, [("circle", 1), ("rect", 2)]);
}

#[test]
fn keywords_stay_usable_as_field_names() {
    let e = entity("entity E { page: int32 variant: string show: bool map: string }");
    let names: Vec<&str> = e.fields.iter().map(|f| f.name.name.as_str()).collect();
    assert_eq!(names, ["page", "variant", "show", "map"]);
}

#[test]
fn relation_ends_with_every_cardinality_form() {
    let r =
        relation("relation Movie.cast: many(20000, typical 50) <-> Actor.movies: many(max: 300)");
    assert_eq!(
        (r.left.entity.name.as_str(), r.left.field.name.as_str()),
        ("Movie", "cast")
    );
    let args: Vec<(Option<&str>, u64)> = r
        .left
        .cardinality
        .args
        .iter()
        .map(|a| {
            (
                a.name.as_ref().map(|n| n.name.as_str()),
                a.value.whole().unwrap(),
            )
        })
        .collect();
    assert_eq!(args, [(None, 20000), (Some("typical"), 50)]);
    assert_eq!(
        r.right.cardinality.args[0].name.as_ref().unwrap().name,
        "max"
    );
    for class in ["one", "few", "many", "squillions"] {
        let r = relation(&format!("relation A.b: {class} <-> B.a: one"));
        assert_eq!(r.left.cardinality.class.name, class);
        assert!(r.facts.is_empty());
    }
}

#[test]
fn every_relation_fact() {
    assert!(matches!(fact("standalone B"), FactKind::Standalone(i) if i.name == "B"));
    match fact("show A.name, A.first on B ratio 1000:1") {
        FactKind::Show {
            fields,
            on,
            ratio: Some(RatioExpr::Ratio(r)),
        } => {
            assert_eq!(
                fields.iter().map(Path::dotted).collect::<Vec<_>>(),
                ["A.name", "A.first"]
            );
            assert_eq!(on.name, "B");
            assert_eq!(r.reads.value(), Some(1000.0));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(fact("navigate both"), FactKind::Navigate(i) if i.name == "both"));
    assert!(
        matches!(fact("growth append_heavy, unbounded"), FactKind::Growth { kinds, rate: None } if kinds.len() == 2)
    );
    assert!(matches!(
        fact("growth append_heavy rate 200/s"),
        FactKind::Growth { kinds, rate: Some(q) } if kinds.len() == 1 && q.unit.as_ref().is_some_and(|u| u.name == "/s")
    ));
    assert!(matches!(
        fact("growth rate 5/min"),
        FactKind::Growth { kinds, rate: Some(_) } if kinds.is_empty()
    ));
    assert!(matches!(fact("atomic_move"), FactKind::AtomicMove));
    match fact("page 50 by created_on desc") {
        FactKind::Page { size, by: Some(by) } => {
            assert_eq!(size.whole(), Some(50));
            assert_eq!(
                (by.field.name.as_str(), by.direction),
                ("created_on", Some(Direction::Desc))
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(fact("page 10"), FactKind::Page { by: None, .. }));
    match fact("latest 1000 by time keep time, message") {
        FactKind::Latest { n, by, keep } => {
            assert_eq!(n.whole(), Some(1000));
            assert_eq!(by.direction, None);
            assert_eq!(keep.len(), 2);
        }
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(fact("top 20 by time asc"), FactKind::Top { by, keep, .. } if by.direction == Some(Direction::Asc) && keep.is_empty())
    );
    assert!(matches!(
        fact("summary count, max(v) per bucket"),
        FactKind::Summary { items, per_bucket: Some(_) } if items.len() == 2
    ));
    match fact("summary count, total(v), max(v)") {
        FactKind::Summary {
            items,
            per_bucket: None,
        } => {
            let s: Vec<(&str, Option<&str>)> = items
                .iter()
                .map(|i| {
                    (
                        i.function.name.as_str(),
                        i.field.as_ref().map(|f| f.name.as_str()),
                    )
                })
                .collect();
            assert_eq!(
                s,
                [("count", None), ("total", Some("v")), ("max", Some("v"))]
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(fact("time_range by ts"), FactKind::TimeRange { field, window: None } if field.name == "ts")
    );
    assert!(matches!(
        fact("time_range by ts window 3600"),
        FactKind::TimeRange { field, window: Some(w) } if field.name == "ts" && w.whole() == Some(3600)
    ));
    assert!(
        matches!(fact("force embed"), FactKind::Force { layout, arg: None } if layout.name == "embed")
    );
    assert!(
        matches!(fact("force bucket(50)"), FactKind::Force { arg: Some(q), .. } if q.whole() == Some(50))
    );
    assert!(
        matches!(fact("fields { role: string since: date }"), FactKind::Fields(f) if f.len() == 2)
    );
}

#[test]
fn facts_carry_doc_comments() {
    let r = relation(
        "relation A.b: one <-> B.a: many {\n  /// Books are listed alone.\n  standalone B\n}",
    );
    assert_eq!(r.facts[0].docs.lines, ["Books are listed alone."]);
}

#[test]
fn queries_with_every_operator_ignore_case_sort_limit_and_rate() {
    for (op, expected) in [
        ("==", Operator::Eq),
        ("!=", Operator::Ne),
        ("<", Operator::Lt),
        ("<=", Operator::Le),
        (">", Operator::Gt),
        (">=", Operator::Ge),
        ("starts_with", Operator::StartsWith),
        ("between", Operator::Between),
        ("in", Operator::In),
    ] {
        let q = query(&format!("query q on Book {{ where title {op} ? }}"));
        assert_eq!(q.conditions[0].op, expected, "{op}");
    }
    let q = query("query q on Book { where author.name starts_with ? ignore_case and year > ? sort year desc, title limit 20 rate 100/s }");
    assert_eq!(q.conditions.len(), 2);
    assert!(q.conditions[0].ignore_case && !q.conditions[1].ignore_case);
    assert_eq!(q.conditions[0].path.dotted(), "author.name");
    let sort: Vec<(String, Direction)> = q
        .sort
        .iter()
        .map(|k| (k.path.dotted(), k.direction))
        .collect();
    assert_eq!(
        sort,
        [
            ("year".to_owned(), Direction::Desc),
            ("title".to_owned(), Direction::Asc)
        ]
    );
    assert_eq!(q.limit.as_ref().and_then(Quantity::whole), Some(20));
    assert_eq!(q.rate.as_ref().unwrap().unit.as_ref().unwrap().name, "/s");
    assert!(q.repeated_clauses.is_empty());
    let q = query("query q on Book { where a == ? where b == ? }");
    assert_eq!(q.repeated_clauses.len(), 1);
}

#[test]
fn returns_names_fields_in_order_once_per_clause() {
    let src = "query q on Book { where a == ? returns title, price,author }";
    let q = query(src);
    let names: Vec<&str> = q.returns.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["title", "price", "author"]);
    for i in &q.returns {
        assert_eq!(&src[i.span.start..i.span.end], i.name);
    }
    assert!(q.repeated_clauses.is_empty());
    let q = query("query q on Book { returns a returns b }");
    assert_eq!(q.repeated_clauses.len(), 1);
    // `returns` stays usable as a name.
    let q = query("query returns on Book { where returns == ? returns returns }");
    assert_eq!(q.name.name, "returns");
    assert_eq!(q.returns[0].name, "returns");
}

#[test]
fn spans_point_at_the_text() {
    let src = "entity Book { title: string }";
    let e = entity(src);
    assert_eq!(&src[e.name.span.start..e.name.span.end], "Book");
    let f = &e.fields[0];
    assert_eq!(&src[f.span.start..f.span.end], "title: string");
    assert_eq!(&src[f.ty.span.start..f.ty.span.end], "string");
}

#[test]
fn strings_resolve_escapes() {
    let e = entity(r#"entity E @collection("a\"b\\c") { x: string }"#);
    assert!(matches!(&e.attrs[0].args[0].value, Value::String { text, .. } if text == "a\"b\\c"));
}

#[test]
fn query_on_a_parents_children_names_the_relation_end() {
    let q = query("query q on Post.comments { where votes > ? }");
    assert_eq!(q.entity.name, "Post");
    assert_eq!(
        q.children.as_ref().map(|e| e.name.as_str()),
        Some("comments")
    );
    let plain = query("query q on Post { where title == ? }");
    assert!(plain.children.is_none());
}

#[test]
fn has_names_one_attribute_by_key_and_value_with_any_comparison() {
    for (op, expected) in [
        ("==", Operator::Eq),
        ("!=", Operator::Ne),
        ("<", Operator::Lt),
        ("<=", Operator::Le),
        (">", Operator::Gt),
        (">=", Operator::Ge),
        ("starts_with", Operator::StartsWith),
        ("between", Operator::Between),
        ("in", Operator::In),
    ] {
        for key_op in ["==", "!="] {
            let src = format!(
                "query q on P {{ where attrs has (k {key_op} ?, v {op} ?) and price > ? }}"
            );
            let q = query(&src);
            assert_eq!(q.conditions.len(), 2, "{src}");
            let c = &q.conditions[0];
            assert_eq!(c.op, expected, "{src}");
            assert_eq!(c.path.dotted(), "attrs");
            let key = c.attribute.expect("an attribute condition");
            assert_eq!(key.op.as_str(), key_op);
            assert_eq!(&src[key.span.start..key.span.end], format!("k {key_op} ?"));
            assert_eq!(
                &src[c.span.start..c.span.end],
                format!("attrs has (k {key_op} ?, v {op} ?)")
            );
            assert!(q.conditions[1].attribute.is_none());
        }
    }
    // Two attributes of one map, a dotted path, a trailing comma.
    let q = query("query q on P { where a.b has (k == ?, v == ?,) and a.b has (k == ?, v < ?) }");
    assert!(q.conditions.iter().all(|c| c.attribute.is_some()));
    // `has`, `k` and `v` stay usable as names.
    let q =
        query("query has on P { where has == ? and k > ? and v has (k == ?, v == ?) sort has }");
    assert_eq!(q.name.name, "has");
    assert_eq!(q.conditions[0].path.dotted(), "has");
    assert!(q.conditions[0].attribute.is_none());
    assert_eq!(q.conditions[1].path.dotted(), "k");
    assert_eq!(q.conditions[2].path.dotted(), "v");
    assert!(q.conditions[2].attribute.is_some());
    let e = entity("entity P { has: string k: int32 v: map<string> @attributes }");
    assert_eq!(e.fields.len(), 3);
}

#[test]
fn has_takes_the_key_then_the_value_and_parameters_only() {
    for src in [
        "query q on P { where attrs has (v == ?, k == ?) }",
        "query q on P { where attrs has (k == ?) }",
        "query q on P { where attrs has (k == \"colour\", v == ?) }",
        "query q on P { where attrs has k == ?, v == ? }",
        "query q on P { where attrs has (k == ?, v == ?) ignore_case }",
    ] {
        assert!(squillion_grammar::parse(src).is_err(), "{src} parsed");
    }
}
