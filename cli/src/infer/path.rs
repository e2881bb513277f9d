//! Places in a collection's documents (`book_notes.notes[].comments[]`) and the aggregation
//! stages that reach them.

use mongodb::bson::{doc, Document};

use super::shape::{FieldShape, Shape};

/// One step of a place: a field, and whether the place is each element of the array it holds.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Step {
    /// The field's BSON name.
    pub field: String,
    /// The place is the elements of the array in the field, not its value.
    pub each: bool,
}

/// A place in a collection's documents: the root, a subdocument, or the elements of an array,
/// possibly inside other arrays.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Loc {
    /// The steps from the root.
    pub steps: Vec<Step>,
}

impl Loc {
    /// The documents themselves.
    pub fn root() -> Loc {
        Loc::default()
    }

    /// Whether this is the root.
    pub fn is_root(&self) -> bool {
        self.steps.is_empty()
    }

    /// The place one field further: its value (`each: false`) or its elements.
    pub fn child(&self, field: &str, each: bool) -> Loc {
        let mut steps = self.steps.clone();
        steps.push(Step {
            field: field.to_owned(),
            each,
        });
        Loc { steps }
    }

    /// The place holding this one, and the last step (none for the root).
    pub fn parent(&self) -> Option<(Loc, &Step)> {
        let (last, rest) = self.steps.split_last()?;
        Some((
            Loc {
                steps: rest.to_vec(),
            },
            last,
        ))
    }

    /// The dotted path of a field at this place, as MongoDB queries write it.
    pub fn path(&self, field: &str) -> String {
        let mut parts: Vec<&str> = self.steps.iter().map(|s| s.field.as_str()).collect();
        parts.push(field);
        parts.join(".")
    }

    /// The dotted path of the place itself (empty for the root).
    pub fn dotted(&self) -> String {
        self.steps
            .iter()
            .map(|s| s.field.as_str())
            .collect::<Vec<_>>()
            .join(".")
    }

    /// `$unwind` stages that turn every element of every array on the way into a document, so
    /// that a `$group` counts per element.
    pub fn unwinds(&self) -> Vec<Document> {
        let mut out = Vec::new();
        let mut prefix: Vec<&str> = Vec::new();
        for s in &self.steps {
            prefix.push(&s.field);
            if s.each {
                out.push(doc! { "$unwind": format!("${}", prefix.join(".")) });
            }
        }
        out
    }

    /// The place for people: `books.notes[].comments[]`.
    pub fn display(&self, collection: &str) -> String {
        let mut out = collection.to_owned();
        for s in &self.steps {
            out.push('.');
            out.push_str(&s.field);
            if s.each {
                out.push_str("[]");
            }
        }
        out
    }

    /// The shape of the documents at this place.
    pub fn shape<'a>(&self, root: &'a Shape) -> Option<&'a Shape> {
        let mut shape = root;
        for s in &self.steps {
            shape = step(shape.fields.get(&s.field)?, s.each)?;
        }
        Some(shape)
    }

    /// How many arrays the place is inside.
    pub fn depth_in_arrays(&self) -> usize {
        self.steps.iter().filter(|s| s.each).count()
    }
}

/// The shape one step into a field: its subdocuments, or its document elements.
pub fn step(field: &FieldShape, each: bool) -> Option<&Shape> {
    if each {
        field.array.as_ref()?.doc.as_deref()
    } else {
        field.doc.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_name_their_paths_and_unwinds() {
        let l = Loc::root().child("notes", true).child("comments", true);
        assert_eq!(l.path("user"), "notes.comments.user");
        assert_eq!(l.display("book_notes"), "book_notes.notes[].comments[]");
        assert_eq!(
            l.unwinds(),
            vec![
                doc! { "$unwind": "$notes" },
                doc! { "$unwind": "$notes.comments" }
            ]
        );
        let (p, last) = l.parent().unwrap();
        assert_eq!(
            (p.dotted(), last.field.as_str()),
            ("notes".to_owned(), "comments")
        );
        assert_eq!(Loc::root().path("a"), "a");
    }
}
