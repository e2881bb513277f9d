//! The index models and validators of every golden, read at run time from the JSON text the
//! generator writes, agree with what the derive declares for the same types.

use squillion::bson::Bson;
use squillion::Document;
use squillion_examples_generated::{attributes, blog, catalog, inventory, library, patterns};

fn check<T: Document>(
    index_models: Vec<squillion::mongodb::IndexModel>,
    json_schema: squillion::bson::Document,
) {
    let what = T::COLLECTION;
    // Every index model is one the derive declares (which may add its patterns' own indexes),
    // with the same keys and options.
    assert!(
        index_models.len() <= T::INDEXES.len(),
        "{what}: index count"
    );
    for model in &index_models {
        let name = model.options.as_ref().and_then(|o| o.name.clone());
        let Some(spec) = T::INDEXES.iter().find(|s| Some(s.name()) == name) else {
            panic!("{what}: index {name:?} is not declared to the derive");
        };
        assert_eq!(
            model.keys,
            spec.key_document(),
            "{what}: keys of {}",
            spec.name()
        );
        let options = model.options.clone().unwrap_or_default();
        assert_eq!(
            options.unique.unwrap_or(false),
            spec.unique,
            "{what}: unique"
        );
        assert_eq!(
            options.sparse.unwrap_or(false),
            spec.sparse,
            "{what}: sparse"
        );
        assert_eq!(
            options.expire_after.map(|d| d.as_secs()),
            spec.expire_after_seconds,
            "{what}: ttl"
        );
        assert_eq!(
            options.partial_filter_expression.is_some(),
            spec.partial_filter.is_some(),
            "{what}: partial filter"
        );
        assert_eq!(
            options.collation.is_some(),
            spec.collation.is_some(),
            "{what}: collation"
        );
    }
    // The validator parsed (a text that did not parse gives `{not: {}}`).
    assert!(!json_schema.contains_key("not"), "{what}: {json_schema}");
    assert_eq!(
        json_schema.get("bsonType"),
        Some(&Bson::String("object".into()))
    );
    assert_eq!(
        json_schema.get_str("title").ok(),
        Some(format!("{what} documents").as_str())
    );
    assert_eq!(
        T::validator().ok().flatten(),
        Some(squillion::bson::doc! { "$jsonSchema": json_schema }),
        "{what}: validator"
    );
}

macro_rules! check_all {
    ($($module:ident: [$($ty:ident),* $(,)?],)*) => {
        $($(check::<$module::$ty>($module::$ty::index_models(), $module::$ty::json_schema());)*)*
    };
}

#[test]
fn index_models_and_validators_agree_with_the_derive() {
    check_all! {
        attributes: [Product, Shop],
        blog: [User, BlogPost, Book, Author, Category, BlogPostCommentsBucket],
        catalog: [Book, Order, Shape, Product, Category, Node, Job],
        inventory: [Person, Product, Part, Host, LogMessage, Task],
        library: [Book, Author, User, BookNotesBucket],
        patterns: [Sensor, Section, Effort, Customer, Invoice, Movie, VersionedDocument, EventHistogram, Product, Game, BusinessObject, User, Post, SensorReadingsBucket, MoviesCastOverflow],
    }
}
