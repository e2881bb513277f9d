//! The stored field names a type reads, found from its `Deserialize` implementation: a derived
//! struct tells its deserializer the names it accepts (after `rename`), which is the projection
//! that reads exactly it. Loads through references (`load_<f>_projected::<P>`) send that
//! projection, so a listing that reads three fields of each child is sent three fields.

use std::fmt;

use serde::de::{self, DeserializeOwned, Visitor};

/// What the probing deserializer learns: the struct's field names, or that `P` is not a plain
/// struct (a map, a flattened struct, an enum...), whose fields it cannot tell.
#[derive(Debug)]
enum Probe {
    Fields(&'static [&'static str]),
    NotAStruct,
}

impl fmt::Display for Probe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Probe::Fields(fields) => write!(f, "a struct of {} fields", fields.len()),
            Probe::NotAStruct => f.write_str("not a plain struct"),
        }
    }
}

impl std::error::Error for Probe {}

impl de::Error for Probe {
    fn custom<T: fmt::Display>(_msg: T) -> Self {
        Probe::NotAStruct
    }
}

/// A deserializer that answers every request with what it learned, reading no data.
struct Prober;

impl<'de> de::Deserializer<'de> for Prober {
    type Error = Probe;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Probe> {
        Err(Probe::NotAStruct)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Probe> {
        Err(Probe::Fields(fields))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// The stored names of the fields `P` reads, when `P` is a plain struct (derived `Deserialize`,
/// `rename`s applied); `None` for anything else (a map, `#[serde(flatten)]`, an enum), which is
/// then read whole.
pub fn fields_of<P: DeserializeOwned>() -> Option<&'static [&'static str]> {
    match P::deserialize(Prober) {
        Err(Probe::Fields(fields)) => Some(fields),
        _ => None,
    }
}

/// The projection that reads `P`: `{_id: 1}` and `P`'s fields, or `declared` when `P` does not
/// say its fields; `None` (whole documents) when neither does.
pub fn projection_of<P: DeserializeOwned>(declared: &[&str]) -> Option<bson::Document> {
    match fields_of::<P>() {
        Some(fields) => super::arrays::projection(fields),
        None => super::arrays::projection(declared),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use std::collections::BTreeMap;

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Listing {
        #[serde(rename = "_id")]
        id: bson::oid::ObjectId,
        title: String,
        #[serde(rename = "p")]
        price: i32,
        note: Option<String>,
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Flattened {
        title: String,
        #[serde(flatten)]
        rest: BTreeMap<String, bson::Bson>,
    }

    #[test]
    fn a_struct_tells_its_stored_names_and_others_are_read_whole() {
        assert_eq!(
            fields_of::<Listing>(),
            Some(&["_id", "title", "p", "note"][..])
        );
        assert_eq!(
            projection_of::<Listing>(&[]),
            Some(bson::doc! { "_id": 1, "title": 1, "p": 1, "note": 1 })
        );
        assert_eq!(fields_of::<Flattened>(), None);
        assert_eq!(fields_of::<bson::Document>(), None);
        assert_eq!(projection_of::<bson::Document>(&[]), None);
        assert_eq!(
            projection_of::<bson::Document>(&["a"]),
            Some(bson::doc! { "_id": 1, "a": 1 })
        );
    }
}
