//! Container types (issue 12): any nesting of arrays and maps, each bounded or not, its elements
//! nullable or not, around a scalar or a value type, the field required or optional. For random
//! type expressions, a reference model built from the expression (not from the Plan) gives the
//! Rust type and the `$jsonSchema` the generated code must have, and the size model's worst case
//! must hold the largest value the type allows. The server side (the Rust value passes the
//! validator, round trips) is `correctness/tests/containers.rs`.

use proptest::prelude::*;
use quote::ToTokens;
use serde_json::{json, Value};
use squillion_codegen::pipeline::{compile, GenerateSettings};
use squillion_grammar::SourceFile;

#[derive(Debug, Clone, Copy)]
enum Leaf {
    Int,
    Long,
    Double,
    Bool,
    Date,
    Str,
    Value,
}

#[derive(Debug, Clone, Copy)]
struct Level {
    map: bool,
    bound: Option<u64>,
    nullable: bool,
}

#[derive(Debug, Clone)]
struct Ty {
    levels: Vec<Level>,
    leaf: Leaf,
    optional: bool,
}

impl Ty {
    fn sqn(&self) -> String {
        let mut t = match self.leaf {
            Leaf::Int => "int32",
            Leaf::Long => "int64",
            Leaf::Double => "double",
            Leaf::Bool => "bool",
            Leaf::Date => "date",
            Leaf::Str => "string",
            Leaf::Value => "V",
        }
        .to_owned();
        for l in self.levels.iter().rev() {
            let q = if l.nullable { "?" } else { "" };
            let b = l.bound.map(|n| format!("; {n}")).unwrap_or_default();
            t = if l.map {
                format!("map<{t}{q}{b}>")
            } else {
                format!("[{t}{q}{b}]")
            };
        }
        if self.optional {
            t.push('?');
        }
        t
    }

    /// The Rust type, as written by a person (paths left out).
    fn rust(&self) -> String {
        let mut t = match self.leaf {
            Leaf::Int => "i32",
            Leaf::Long => "i64",
            Leaf::Double => "f64",
            Leaf::Bool => "bool",
            Leaf::Date => "DateTime",
            Leaf::Str => "String",
            Leaf::Value => "V",
        }
        .to_owned();
        for l in self.levels.iter().rev() {
            if l.nullable {
                t = format!("Option<{t}>");
            }
            t = match (l.map, l.bound) {
                (true, _) => format!("BTreeMap<String,{t}>"),
                (false, Some(n)) => format!("BoundedVec<{t},{n}>"),
                (false, None) => format!("Vec<{t}>"),
            };
        }
        if self.optional {
            t = format!("Option<{t}>");
        }
        t
    }

    /// The `$jsonSchema` of the field.
    fn schema(&self) -> Value {
        let mut s = match self.leaf {
            Leaf::Int => json!({ "bsonType": "int" }),
            Leaf::Long => json!({ "bsonType": "long" }),
            Leaf::Double => json!({ "bsonType": "double" }),
            Leaf::Bool => json!({ "bsonType": "bool" }),
            Leaf::Date => json!({ "bsonType": "date" }),
            Leaf::Str => json!({ "bsonType": "string" }),
            Leaf::Value => json!({
                "bsonType": "object",
                "required": ["s", "n"],
                "properties": { "s": { "bsonType": "string" }, "n": { "bsonType": "int" } }
            }),
        };
        let or_null = |mut s: Value| {
            let t = s["bsonType"].clone();
            s["bsonType"] = json!([t, "null"]);
            s
        };
        for l in self.levels.iter().rev() {
            if l.nullable {
                s = or_null(s);
            }
            s = match (l.map, l.bound) {
                (true, Some(n)) => {
                    json!({ "bsonType": "object", "maxProperties": n, "additionalProperties": s })
                }
                (true, None) => json!({ "bsonType": "object", "additionalProperties": s }),
                (false, Some(n)) => json!({ "bsonType": "array", "maxItems": n, "items": s }),
                (false, None) => json!({ "bsonType": "array", "items": s }),
            };
        }
        if self.optional {
            s = or_null(s);
        }
        s
    }

    /// The largest value the type allows, where every level is bounded (strings of the size
    /// model's worst length).
    fn largest(&self) -> Option<bson::Bson> {
        fn at(levels: &[Level], leaf: Leaf) -> Option<bson::Bson> {
            let Some((l, inner)) = levels.split_first() else {
                let long = "x".repeat(1024);
                return Some(match leaf {
                    Leaf::Int => bson::Bson::Int32(i32::MAX),
                    Leaf::Long => bson::Bson::Int64(i64::MAX),
                    Leaf::Double => bson::Bson::Double(1.5),
                    Leaf::Bool => bson::Bson::Boolean(true),
                    Leaf::Date => bson::Bson::DateTime(bson::DateTime::MAX),
                    Leaf::Str => bson::Bson::String(long),
                    Leaf::Value => bson::Bson::Document(bson::doc! { "s": long, "n": 1 }),
                });
            };
            let n = l.bound?;
            let items: Vec<bson::Bson> = (0..n).map(|_| at(inner, leaf)).collect::<Option<_>>()?;
            Some(if l.map {
                bson::Bson::Document(
                    items
                        .into_iter()
                        .enumerate()
                        .map(|(i, v)| (format!("key{i:03}"), v))
                        .collect(),
                )
            } else {
                bson::Bson::Array(items)
            })
        }
        at(&self.levels, self.leaf)
    }
}

fn ty() -> impl Strategy<Value = Ty> {
    let leaf = prop_oneof![
        Just(Leaf::Int),
        Just(Leaf::Long),
        Just(Leaf::Double),
        Just(Leaf::Bool),
        Just(Leaf::Date),
        Just(Leaf::Str),
        Just(Leaf::Value),
    ];
    let level = (any::<bool>(), proptest::option::of(1u64..6), any::<bool>()).prop_map(
        |(map, bound, nullable)| Level {
            map,
            bound,
            nullable,
        },
    );
    (proptest::collection::vec(level, 0..5), leaf, any::<bool>()).prop_map(
        |(levels, leaf, optional)| Ty {
            levels,
            leaf,
            optional,
        },
    )
}

/// Path segments and spaces left out of a type's tokens.
fn plain(tokens: &str) -> String {
    let mut t: String = tokens.chars().filter(|c| !c.is_whitespace()).collect();
    for path in [
        "::std::vec::",
        "::std::option::",
        "::std::collections::",
        "::std::string::",
        "::std::boxed::",
        "::squillion::bson::",
        "::squillion::",
    ] {
        t = t.replace(path, "");
    }
    // prettyplease ends a generic list broken over lines with a comma.
    t.replace(",>", ">")
}

fn field_type(rust: &str, name: &str) -> String {
    let file = syn::parse_file(rust).expect("generated Rust parses");
    for item in file.items {
        if let syn::Item::Struct(s) = item {
            if s.ident == "Holder" {
                for f in s.fields {
                    if f.ident.as_ref().is_some_and(|i| i == name) {
                        return plain(&f.ty.to_token_stream().to_string());
                    }
                }
            }
        }
    }
    panic!("no field {name} in struct Holder:\n{rust}");
}

fn without_descriptions(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove("description");
            m.values_mut().for_each(without_descriptions);
        }
        Value::Array(a) => a.iter_mut().for_each(without_descriptions),
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn rust_type_validator_and_size_follow_the_type_expression(t in ty()) {
        let sqn = format!(
            "value V {{ s: string  n: int32 }}\nentity Holder @collection(\"holders\") {{\n  f: {}\n}}\n",
            t.sqn()
        );
        let source = SourceFile::new("containers.sqn", sqn.as_str());
        let generated = match compile(&source, &GenerateSettings::default()) {
            Ok(generated) => generated,
            Err(d) => {
                // Nested unbounded levels can outgrow a document: refused as such (W104),
                // never for another reason.
                prop_assert!(
                    d.iter().filter(|d| d.is_error()).all(|d| d.code == "W104"),
                    "{}", source.render(&d, false)
                );
                return Ok(());
            }
        };
        prop_assert_eq!(field_type(&generated.rust, "f"), t.rust(), "{}", t.sqn());

        let c = generated.plan.collection("holders").expect("holders");
        let mut schema = squillion_codegen::validator::document_schema(c);
        without_descriptions(&mut schema);
        prop_assert_eq!(&schema["properties"]["f"], &t.schema(), "{}", t.sqn());
        let required = schema["required"].as_array().cloned().unwrap_or_default();
        prop_assert_eq!(required.contains(&json!("f")), !t.optional);

        let f = c.field("f").expect("field f");
        if let Some(worst) = f.size.worst {
            prop_assert!(f.size.average <= worst, "{}: {:?}", t.sqn(), f.size);
        }
        let all_bounded = t.levels.iter().all(|l| l.bound.is_some());
        prop_assert_eq!(f.size.worst.is_some(), all_bounded || t.levels.iter().all(|l| l.map || l.bound.is_some()), "{}", t.sqn());
        if let Some(largest) = t.largest() {
            let bytes = bson::to_vec(&bson::doc! { "f": largest }).expect("encodes").len() as u64 - 5;
            let worst = f.size.worst.expect("bounded");
            prop_assert!(bytes <= worst, "{}: the largest value takes {} bytes, the worst case says {}", t.sqn(), bytes, worst);
        }
    }
}
