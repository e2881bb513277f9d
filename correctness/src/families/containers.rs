//! Issue 12: container types. Every type expression of one or two container levels around an
//! `int32` (each level an array or a map, bounded or not, its elements nullable or not), the
//! single levels around a string and a value type, and the bare leaves; every third field is
//! optional. One entity, `Holder`, with one field per shape (`f0`, `f1`, ...).

use super::Schema;

/// The bound of a bounded level.
pub const BOUND: u64 = 2;

/// One container level, outermost first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Level {
    /// A map (keys are data) rather than an array.
    pub map: bool,
    /// At most `BOUND` elements (entries).
    pub bounded: bool,
    /// Its elements (values) may be null.
    pub nullable: bool,
}

/// What the innermost value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leaf {
    /// `int32`.
    Int,
    /// `string`.
    Str,
    /// The value type `V { s: string  n: int32 }`.
    Value,
}

/// One field's type: its container levels around a leaf, and whether the field may be absent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    /// The containers, outermost first.
    pub levels: Vec<Level>,
    /// The innermost value.
    pub leaf: Leaf,
    /// The field may be absent (`?`).
    pub optional: bool,
}

impl Shape {
    /// The type expression, as the schema writes it.
    pub fn sqn(&self) -> String {
        let mut ty = match self.leaf {
            Leaf::Int => "int32".to_owned(),
            Leaf::Str => "string".to_owned(),
            Leaf::Value => "V".to_owned(),
        };
        for level in self.levels.iter().rev() {
            let q = if level.nullable { "?" } else { "" };
            let bound = if level.bounded {
                format!("; {BOUND}")
            } else {
                String::new()
            };
            ty = if level.map {
                format!("map<{ty}{q}{bound}>")
            } else {
                format!("[{ty}{q}{bound}]")
            };
        }
        if self.optional {
            ty.push('?');
        }
        ty
    }
}

/// Every level: array or map, bounded or not, nullable elements or not.
fn levels() -> Vec<Level> {
    let mut out = Vec::new();
    for map in [false, true] {
        for bounded in [false, true] {
            for nullable in [false, true] {
                out.push(Level {
                    map,
                    bounded,
                    nullable,
                });
            }
        }
    }
    out
}

/// The shapes of `Holder`'s fields, `f0` first.
pub fn shapes() -> Vec<Shape> {
    let mut out: Vec<(Vec<Level>, Leaf)> = vec![
        (vec![], Leaf::Int),
        (vec![], Leaf::Str),
        (vec![], Leaf::Value),
    ];
    for outer in levels() {
        for leaf in [Leaf::Int, Leaf::Str, Leaf::Value] {
            out.push((vec![outer], leaf));
        }
        for inner in levels() {
            out.push((vec![outer, inner], Leaf::Int));
        }
    }
    out.into_iter()
        .enumerate()
        .map(|(i, (levels, leaf))| Shape {
            levels,
            leaf,
            optional: i % 3 == 1,
        })
        .collect()
}

/// The one schema of the family: `containers`.
pub fn containers() -> Vec<Schema> {
    let mut sqn =
        String::from("value V { s: string  n: int32 }\nentity Holder @collection(\"holders\") {\n");
    for (i, shape) in shapes().iter().enumerate() {
        sqn.push_str(&format!("  f{i}: {}\n", shape.sqn()));
    }
    sqn.push_str("}\n");
    vec![Schema {
        name: "containers".to_owned(),
        doc: "Issue 12: every container type of one or two levels (`families::containers`)."
            .to_owned(),
        sqn,
    }]
}
