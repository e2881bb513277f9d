//! Extended JSON declared in attributes (partial filters, validators) to BSON.

use crate::{Error, Result};

/// Parses `text` (relaxed or canonical extended JSON) into a document.
pub fn document(text: &str, what: &str) -> Result<bson::Document> {
    let declaration = |reason: String| Error::Declaration {
        what: what.to_owned(),
        reason,
    };
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| declaration(e.to_string()))?;
    match bson::Bson::try_from(value).map_err(|e| declaration(e.to_string()))? {
        bson::Bson::Document(d) => Ok(d),
        other => Err(declaration(format!(
            "expected a JSON object, found {:?}",
            other.element_type()
        ))),
    }
}

/// The `$jsonSchema` of a generated collection type, written by squillion's Rust emitter as
/// JSON text (the same document `squillion indexes` applies and the mongosh script sets).
///
/// The text is the emitter's own serialisation of the Plan, so it always parses. Should it ever
/// not, the result is a schema that rejects every document and says why: a broken validator
/// then fails writes loudly instead of silently accepting everything.
pub fn schema(text: &str) -> bson::Document {
    match document(text, "generated $jsonSchema") {
        Ok(d) => d,
        Err(e) => bson::doc! {
            "not": {},
            "description": format!("squillion: the generated $jsonSchema does not parse: {e}"),
        },
    }
}

/// The index models of a generated collection type, written by squillion's Rust emitter as a
/// JSON array of `createIndexes` index documents (`key`, `name`, `unique`, `sparse`,
/// `expireAfterSeconds`, `partialFilterExpression`, `collation`).
///
/// The text is the emitter's own serialisation of the Plan, so every entry parses; an entry
/// that did not would be left out.
pub fn index_models(text: &str) -> Vec<mongodb::IndexModel> {
    let Ok(serde_json::Value::Array(entries)) = serde_json::from_str::<serde_json::Value>(text)
    else {
        return Vec::new();
    };
    entries
        .into_iter()
        .filter_map(|entry| match bson::Bson::try_from(entry) {
            Ok(bson::Bson::Document(d)) => bson::from_document(d).ok(),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mongodb::options::{Collation, CollationStrength, IndexOptions};
    use mongodb::IndexModel;
    use std::time::Duration;

    #[test]
    fn schema_keeps_types_and_order() {
        let s = schema(
            r#"{"bsonType":"object","required":["_id"],"properties":{"tags":{"bsonType":"array","maxItems":10,"items":{"bsonType":"string"}},"big":{"maximum":5000000000},"ratio":{"minimum":0.5}},"title":"t"}"#,
        );
        let expected = bson::doc! {
            "bsonType": "object",
            "required": ["_id"],
            "properties": {
                "tags": { "bsonType": "array", "maxItems": 10i32, "items": { "bsonType": "string" } },
                "big": { "maximum": 5_000_000_000i64 },
                "ratio": { "minimum": 0.5f64 },
            },
            "title": "t",
        };
        assert_eq!(s, expected);
        let keys: Vec<&String> = s.keys().collect();
        assert_eq!(keys, ["bsonType", "required", "properties", "title"]);
    }

    #[test]
    fn a_schema_that_does_not_parse_rejects_everything() {
        let s = schema("{not json");
        assert_eq!(s.get_document("not").ok(), Some(&bson::Document::new()));
        assert!(s
            .get_str("description")
            .is_ok_and(|d| d.contains("does not parse")));
    }

    #[test]
    fn index_models_read_every_option() {
        let models = index_models(
            r#"[{"key":{"name":1},"name":"name_1"},{"key":{"code":1,"at":-1},"name":"code_1_at_-1","unique":true,"sparse":true,"partialFilterExpression":{"n":{"$gt":5}},"collation":{"locale":"en","strength":2},"expireAfterSeconds":3600}]"#,
        );
        let expected = vec![
            IndexModel::builder()
                .keys(bson::doc! { "name": 1 })
                .options(IndexOptions::builder().name("name_1".to_owned()).build())
                .build(),
            IndexModel::builder()
                .keys(bson::doc! { "code": 1, "at": -1 })
                .options(
                    IndexOptions::builder()
                        .name("code_1_at_-1".to_owned())
                        .unique(true)
                        .sparse(true)
                        .partial_filter_expression(bson::doc! { "n": { "$gt": 5 } })
                        .collation(
                            Collation::builder()
                                .locale("en")
                                .strength(CollationStrength::Secondary)
                                .build(),
                        )
                        .expire_after(Duration::from_secs(3600))
                        .build(),
                )
                .build(),
        ];
        assert_eq!(format!("{models:?}"), format!("{expected:?}"));
        assert!(index_models("[]").is_empty());
        assert!(index_models("not json").is_empty());
    }
}
