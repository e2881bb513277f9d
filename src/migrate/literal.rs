//! Short constructors of BSON values, for the migration modules `squillion migrate -o` writes:
//! their filters and pipelines are literals built with these (no macro recursion limit on a
//! large validator, no text parsed at run time).

pub use bson::{Bson, Document};

/// A document of `pairs`, in order.
pub fn doc<const N: usize>(pairs: [(&str, Bson); N]) -> Document {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

/// A document value.
pub fn obj<const N: usize>(pairs: [(&str, Bson); N]) -> Bson {
    Bson::Document(doc(pairs))
}

/// An array value.
pub fn arr<const N: usize>(items: [Bson; N]) -> Bson {
    Bson::Array(items.into())
}

/// A string value.
pub fn text(s: &str) -> Bson {
    Bson::String(s.to_owned())
}

/// An `int` (32 bits).
pub fn int(n: i32) -> Bson {
    Bson::Int32(n)
}

/// A `long` (64 bits).
pub fn long(n: i64) -> Bson {
    Bson::Int64(n)
}

/// A `double`.
pub fn double(n: f64) -> Bson {
    Bson::Double(n)
}

/// A boolean.
pub fn boolean(b: bool) -> Bson {
    Bson::Boolean(b)
}

/// `null`.
pub fn null() -> Bson {
    Bson::Null
}

/// The documents of `items` (a pipeline).
pub fn docs<const N: usize>(items: [Document; N]) -> Vec<Document> {
    items.into()
}

/// Strings (`arrayFilters` identifiers).
pub fn texts<const N: usize>(items: [&str; N]) -> Vec<String> {
    items.into_iter().map(str::to_owned).collect()
}
