//! The schemas of each defect family of issue 11, written from facts the way a user would write
//! them, enumerated over the layouts, cardinalities and placements the defect depends on.
//!
//! `build.rs` generates one module per schema (named [`Schema::name`]); the tests drive the
//! generated repositories against the server. This file is also compiled into the build script,
//! so it uses nothing but `std`.

/// One schema of a family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schema {
    /// The module's name: the family, then what varies (`ttl_few_latest`).
    pub name: String,
    /// What the schema exercises, for the module's doc comment.
    pub doc: String,
    /// The `.sqn` text.
    pub sqn: String,
}

/// Every schema of every family.
pub fn all() -> Vec<Schema> {
    let mut out = Vec::new();
    out.extend(expiring());
    out
}

/// Relation ends of each kind and cardinality: `(name, left end, right end)`.
pub const KINDS: &[(&str, &str, &str)] = &[
    ("one", "one", "one"),
    ("few", "few(10)", "one"),
    ("many", "many(1000)", "one"),
    ("squillions", "squillions", "one"),
    ("few_few", "few(3)", "few(5)"),
    ("few_many", "few(10)", "many(100000)"),
];

/// Defect 1: an expiring child (`Part.exp @expires(1s)`) under every relation kind and
/// cardinality, with the modifiers that copy it into its parent. Types: `Owner`, `Part`.
pub fn expiring() -> Vec<Schema> {
    let extras: &[(&str, &str)] = &[
        ("plain", ""),
        ("latest", "latest 3 by at desc keep at, exp"),
        ("top", "top 2 by n desc keep n, at"),
        ("both", "navigate both"),
    ];
    let mut out = Vec::new();
    for (kind, left, right) in KINDS {
        for (extra, fact) in extras {
            let many_side = *right == "one" && *left != "one";
            if !many_side && (*extra == "latest" || *extra == "top") {
                continue;
            }
            out.push(Schema {
                name: format!("ttl_{kind}_{extra}"),
                doc: format!(
                    "Defect 1: an expiring Part, `Owner.parts: {left} <-> Part.owner: {right}` ({extra})."
                ),
                sqn: format!(
                    "entity Owner {{ at: date n: int32 s: string }}\n\
                     entity Part {{ at: date n: int32 s: string exp: date @expires(1s) }}\n\
                     relation Owner.parts: {left} <-> Part.owner: {right} {{\n  {fact}\n}}\n"
                ),
            });
        }
    }
    out
}
