//! The schemas of each defect family of issue 11, written from facts the way a user would write
//! them, enumerated over the layouts, cardinalities and placements the defect depends on.
//!
//! `build.rs` generates one module per schema (named [`Schema::name`]); the tests drive the
//! generated repositories against the server. This file is also compiled into the build script,
//! so it uses nothing but `std`.

mod application;
mod containers;

pub use application::*;
pub use containers::*;

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
    out.extend(examples());
    out.extend(expiring());
    out.extend(cycles());
    out.extend(unique());
    out.extend(copies());
    out.extend(summaries());
    out.extend(subsets());
    out.extend(kept());
    out.extend(kept_parents());
    out.extend(two_way_ends());
    out.extend(geo());
    out.extend(projections());
    out.extend(child_pages());
    out.extend(bucket_pages());
    out.extend(counts());
    out.extend(loads());
    out.extend(attributes());
    out.extend(maps());
    out.extend(containers());
    out
}

/// The examples of `examples/`, as they are.
pub fn examples() -> Vec<Schema> {
    let example = |name: &str, sqn: &str| Schema {
        name: format!("example_{name}"),
        doc: format!("`examples/{name}.sqn`."),
        sqn: sqn.to_owned(),
    };
    vec![
        example("blog", include_str!("../../../examples/blog.sqn")),
        example("catalog", include_str!("../../../examples/catalog.sqn")),
        example("inventory", include_str!("../../../examples/inventory.sqn")),
        example("library", include_str!("../../../examples/library.sqn")),
        example("patterns", include_str!("../../../examples/patterns.sqn")),
    ]
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

/// Defect 7: embedding cycles the engine must break (every entity stored somewhere).
pub fn cycles() -> Vec<Schema> {
    let schema = |name: &str, doc: &str, sqn: &str| Schema {
        name: name.to_owned(),
        doc: format!("Defect 7: {doc}."),
        sqn: sqn.to_owned(),
    };
    vec![
        schema(
            "cycle_pair",
            "an assembly embeds its part, the part its assemblies",
            "entity Part { name: string }\n\
             entity Assembly { name: string }\n\
             relation Part.assembly: one? <-> Assembly.part: one\n\
             relation Assembly.parts: few(20) <-> Part.owner: one\n",
        ),
        schema(
            "cycle_self_one",
            "a person related to another person one-to-one",
            "entity Person { name: string }\n\
             relation Person.spouse: one <-> Person.spouse_of: one\n",
        ),
        schema(
            "cycle_three",
            "three entities embedding each other in a ring",
            "entity Region { name: string }\n\
             entity Store { name: string }\n\
             entity Shelf { name: string }\n\
             relation Region.stores: few(5) <-> Store.region: one\n\
             relation Store.shelves: few(5) <-> Shelf.store: one\n\
             relation Shelf.regions: few(5) <-> Region.shelf: one\n",
        ),
        schema(
            "cycle_tree",
            "a comment's replies are comments, and nothing else holds a comment",
            "entity Comment { text: string }\n\
             relation Comment.replies: few(3) <-> Comment.reply_to: one\n",
        ),
    ]
}

/// Defect 4: `@unique` on a field of documents held in an array: an embedded entity, a value
/// type, a nested subdocument of one, an optional field, children in buckets. The array field is
/// `items` of an `Owner` in every schema.
pub fn unique() -> Vec<Schema> {
    let schema = |name: &str, doc: &str, sqn: &str| Schema {
        name: format!("unique_{name}"),
        doc: format!("Defect 4: `@unique` on {doc}."),
        sqn: sqn.to_owned(),
    };
    vec![
        schema(
            "entity",
            "a field of an embedded entity",
            "entity Owner { name: string }\n\
             entity Item { code: string @unique  label: string }\n\
             relation Owner.items: few(4) <-> Item.owner: one\n",
        ),
        schema(
            "optional",
            "an optional field of an embedded entity",
            "entity Owner { name: string }\n\
             entity Item { code: string? @unique  label: string }\n\
             relation Owner.items: few(4) <-> Item.owner: one\n",
        ),
        schema(
            "value",
            "a field of a value type in an array",
            "value Item { code: string @unique  label: string }\n\
             entity Owner { name: string  items: [Item; 4] }\n",
        ),
        schema(
            "nested",
            "a field of a subdocument of an embedded entity",
            "value Tag { code: string @unique }\n\
             entity Owner { name: string }\n\
             entity Item { tag: Tag  label: string }\n\
             relation Owner.items: few(4) <-> Item.owner: one\n",
        ),
        schema(
            "bucket",
            "a field of children kept in buckets",
            "entity Owner { name: string }\n\
             entity Item { code: string @unique  at: date }\n\
             relation Owner.items: squillions <-> Item.owner: one {\n  page 3 by at\n}\n",
        ),
    ]
}

/// Defect 2: a copy of `Product.name` (`show Product.name on ...`) in every placement a copy can
/// have: in its holder's own collection, in a subdocument, in an embedded array, in an array
/// nested in an array, in a bucket's array, in a subset copy, in a top-N copy, in an array of
/// extended references, and in such an array inside an embedded array. Every schema has
/// `Product { name }`, whose `set_name` fans out.
pub fn copies() -> Vec<Schema> {
    let product = "entity Product { name: string }\n";
    let show = |on: &str| format!("show Product.name on {on} ratio 1000:1");
    let schema = |name: &str, doc: &str, sqn: String| Schema {
        name: format!("copy_{name}"),
        doc: format!("Defect 2: a copy of Product.name {doc}."),
        sqn: format!("{product}{sqn}"),
    };
    vec![
        schema(
            "top",
            "at the top level of its holder's collection (`lines.product.name`)",
            format!(
                "entity Line {{ qty: int32 }}\n\
                 relation Product.lines: squillions <-> Line.product: one {{ {} }}\n",
                show("Line")
            ),
        ),
        schema(
            "subdocument",
            "in a subdocument (`orders.line.product.name`)",
            format!(
                "entity Order {{ number: int32 }}\n\
                 entity Line {{ qty: int32 }}\n\
                 relation Order.line: one <-> Line.order: one\n\
                 relation Product.lines: squillions <-> Line.product: one {{ {} }}\n",
                show("Line")
            ),
        ),
        schema(
            "array",
            "in an embedded array (`orders.lines[].product.name`)",
            format!(
                "entity Order {{ number: int32 }}\n\
                 entity Line {{ qty: int32 }}\n\
                 relation Order.lines: few(10) <-> Line.order: one\n\
                 relation Product.lines: squillions <-> Line.product: one {{ {} }}\n",
                show("Line")
            ),
        ),
        schema(
            "nested",
            "in an array nested in an array (`orders.lines[].parts[].product.name`)",
            format!(
                "entity Order {{ number: int32 }}\n\
                 entity Line {{ qty: int32 }}\n\
                 entity Part {{ n: int32 }}\n\
                 relation Order.lines: few(5) <-> Line.order: one\n\
                 relation Line.parts: few(3) <-> Part.line: one\n\
                 relation Product.parts: squillions <-> Part.product: one {{ {} }}\n",
                show("Part")
            ),
        ),
        schema(
            "bucket",
            "in a bucket's array (`sensor_readings.readings[].product.name`)",
            format!(
                "entity Sensor {{ code: string }}\n\
                 entity Reading {{ at: date v: double }}\n\
                 relation Sensor.readings: squillions <-> Reading.sensor: one {{\n\
                   growth append_heavy, unbounded\n  time_range by at\n}}\n\
                 relation Product.readings: squillions <-> Reading.product: one {{ {} }}\n",
                show("Reading")
            ),
        ),
        schema(
            "subset",
            "in a subset copy (`posts.comments[].product.name`)",
            format!(
                "entity Post {{ title: string }}\n\
                 entity Comment {{ at: date text: string }}\n\
                 relation Post.comments: squillions <-> Comment.post: one {{ latest 3 by at desc keep at, product }}\n\
                 relation Product.comments: squillions <-> Comment.product: one {{ {} }}\n",
                show("Comment")
            ),
        ),
        schema(
            "top_n",
            "in a top-N copy (`races.top_efforts[].product.name`)",
            format!(
                "entity Race {{ title: string }}\n\
                 entity Effort {{ time: int32 }}\n\
                 relation Race.efforts: squillions <-> Effort.race: one {{ standalone Effort\n  top 3 by time asc keep time, product }}\n\
                 relation Product.efforts: squillions <-> Effort.product: one {{ {} }}\n",
                show("Effort")
            ),
        ),
        schema(
            "references",
            "in an array of extended references (`orders.products[].name`)",
            format!(
                "entity Order {{ number: int32 }}\n\
                 relation Order.products: few(5) <-> Product.orders: many(100000) {{ {} }}\n",
                show("Order")
            ),
        ),
        schema(
            "references_in_array",
            "in an array of extended references inside an embedded array (`orders.lines[].products[].name`)",
            format!(
                "entity Order {{ number: int32 }}\n\
                 entity Line {{ qty: int32 }}\n\
                 relation Order.lines: few(10) <-> Line.order: one\n\
                 relation Line.products: few(5) <-> Product.lines: many(100000) {{ {} }}\n",
                show("Line")
            ),
        ),
    ]
}

/// Defect 3: summaries of every kind (count, total, max, min, avg kept as total and count) kept
/// beside an embedded array and beside a subset (`latest N`).
pub fn summaries() -> Vec<Schema> {
    vec![
        Schema {
            name: "summary_embed".to_owned(),
            doc: "Defect 3: summaries of an embedded array, kept by push, remove, pull and set."
                .to_owned(),
            sqn: "entity Order { number: int32 }\n\
                  entity Line { qty: int32 price: double }\n\
                  relation Order.lines: few(6) <-> Line.order: one {\n\
                    summary count, total(qty), max(price), min(qty), avg(price)\n}\n"
                .to_owned(),
        },
        Schema {
            name: "summary_latest".to_owned(),
            doc: "Defect 3: summaries of all the children beside the latest 2, kept by the subset's push."
                .to_owned(),
            sqn: "entity Post { title: string }\n\
                  entity Comment { at: date votes: int32 }\n\
                  relation Post.comments: squillions <-> Comment.post: one {\n\
                    latest 2 by at desc keep at, votes\n  summary count, total(votes), max(votes)\n}\n"
                .to_owned(),
        },
    ]
}

/// Defect 6: subsets (`latest N`) and top-N lists whose copies carry the child's `_id`, kept in
/// step by every write of a child (push, replace, remove), with and without summaries, in both
/// orders, both together, with an extended reference to the parent and with a child holding
/// copies of its own. Every schema has `Owner { title }`, `Item { at, n, s }` and
/// `Owner.items: squillions <-> Item.owner: one`; `Product { name }` where the item copies it.
pub fn subsets() -> Vec<Schema> {
    let schema = |name: &str, doc: &str, product: bool, facts: &str| Schema {
        name: format!("subset_{name}"),
        doc: format!("Defect 6: {doc}."),
        sqn: format!(
            "entity Owner {{ title: string }}\n\
             entity Item {{ at: date  n: int32  s: string }}\n{}\
             relation Owner.items: squillions <-> Item.owner: one {{\n{facts}\n}}\n",
            if product {
                "entity Product { name: string }\n\
                 relation Product.items: squillions <-> Item.product: one { show Product.name on Item ratio 1000:1 }\n"
            } else {
                ""
            }
        ),
    };
    vec![
        schema(
            "latest_summaries",
            "the latest 2 by `at`, newest first, beside every summary",
            false,
            "  latest 2 by at desc keep at, n\n  summary count, total(n), max(n), min(at)",
        ),
        schema(
            "latest_asc",
            "the latest 3 by `n`, stored oldest first, keeping every field",
            false,
            "  latest 3 by n asc",
        ),
        schema(
            "top_summaries",
            "the 3 smallest by `n` beside a count, a total and a minimum",
            false,
            "  standalone Item\n  top 3 by n asc keep n, s\n  summary count, total(n), min(n)",
        ),
        schema(
            "top_one",
            "the single largest by `n`, no summaries",
            false,
            "  standalone Item\n  top 1 by n desc keep s",
        ),
        schema(
            "both",
            "a subset and a top-N list of the same children, with summaries",
            false,
            "  latest 2 by at desc keep at\n  top 2 by n desc keep n\n  summary count, max(n)",
        ),
        schema(
            "extended",
            "children whose reference to the owner is extended with a copy of its title (`owner.id`)",
            false,
            "  show Owner.title on Item ratio 1000:1\n  latest 2 by at desc keep at, s, owner",
        ),
        schema(
            "copies",
            "children holding copies of their own (`product: {id, name}`), kept in the subset",
            true,
            "  latest 3 by at desc keep at, product\n  summary count",
        ),
    ]
}

/// Issue 11, the children's own writes: summaries of children in their own collection (no array
/// beside them in the parent) and lists refilled from it, kept in step by the insert,
/// insert_many, replace, delete and field updates of the children's own repository. Every schema
/// has `Owner { title }`, `Item { at, n, s }` and `Owner.items: squillions <-> Item.owner: one`.
pub fn kept() -> Vec<Schema> {
    let schema = |name: &str, doc: &str, facts: &str| Schema {
        name: format!("kept_{name}"),
        doc: format!("Issue 11: {doc}, kept by the children's own repository."),
        sqn: format!(
            "entity Owner {{ title: string }}\n\
             entity Item {{ at: date  n: int32  s: string }}\n\
             relation Owner.items: squillions <-> Item.owner: one {{\n{facts}\n}}\n"
        ),
    };
    vec![
        schema(
            "counts",
            "a count and a total of children referencing their owner",
            "  summary count, total(n)",
        ),
        schema(
            "extremes",
            "the largest and smallest of a number and of a date, and an average",
            "  summary max(n), min(n), max(at), min(at), avg(n)",
        ),
        schema(
            "extended",
            "every summary, the children's reference extended with the owner's title (`owner.id`)",
            "  show Owner.title on Item ratio 1000:1\n  summary count, total(n), max(n), min(n)",
        ),
        schema(
            "latest",
            "the latest 2 by `at` beside summaries",
            "  latest 2 by at desc keep at, n\n  summary count, max(n)",
        ),
        schema(
            "top",
            "the 2 largest by `n` of standalone children, beside summaries",
            "  standalone Item\n  top 2 by n desc keep n, s\n  summary count, total(n), min(n)",
        ),
    ]
}

/// Issue 11: children that more than one parent keeps lists and summaries of, or that a two-way
/// link moves between parents; every write of a child (through its own repository, through any
/// parent's `push_`/`replace_`/`remove_`, or a `link_`/`unlink_`) keeps every parent in step.
/// Types: `Owner`, `Item` (and `Other`).
pub fn kept_parents() -> Vec<Schema> {
    vec![
        Schema {
            name: "kept_two_parents".to_owned(),
            doc: "Issue 11: children kept by two parents (a latest list and a top list, each with \
                  summaries), written through either parent."
                .to_owned(),
            sqn: "entity Owner { title: string }\n\
                  entity Other { title: string }\n\
                  entity Item { at: date  n: int32  s: string }\n\
                  relation Owner.items: squillions <-> Item.owner: one {\n  \
                  latest 2 by at desc keep at, n\n  summary count, max(n)\n}\n\
                  relation Other.items: squillions <-> Item.other: one {\n  standalone Item\n  \
                  top 2 by n desc keep n, s\n  summary count, total(n), min(n)\n}\n"
                .to_owned(),
        },
        Schema {
            name: "kept_two_way".to_owned(),
            doc: "Issue 11: a two-way one-parent relation whose parent keeps its latest children \
                  and summaries of them, the children moved by `link_`/`unlink_`."
                .to_owned(),
            sqn: "entity Owner { title: string }\n\
                  entity Item { at: date  n: int32  s: string }\n\
                  relation Owner.items: many(6) <-> Item.owner: one {\n  standalone Item\n  \
                  navigate both\n  latest 2 by at desc keep at, n\n  \
                  summary count, total(n), max(n)\n  force two_way\n}\n"
                .to_owned(),
        },
        Schema {
            name: "kept_copied".to_owned(),
            doc: "Issue 11: child fields both kept by the parent (a top list and summaries) and \
                  copied into other documents, whose setters fan the copies out."
                .to_owned(),
            sqn: "entity Owner { title: string }\n\
                  entity Item { at: date  n: int32  s: string }\n\
                  entity Note { text: string }\n\
                  relation Owner.items: squillions <-> Item.owner: one {\n  standalone Item\n  \
                  top 2 by n desc keep n, s\n  summary count, total(n), min(n)\n}\n\
                  relation Item.notes: squillions <-> Note.item: one {\n  \
                  show Item.s on Note ratio 100:1\n  show Item.n on Note ratio 100:1\n}\n"
                .to_owned(),
        },
        Schema {
            name: "kept_queue".to_owned(),
            doc: "Issue 11 (long run s3_021): jobs of a queue whose parent keeps the latest of \
                  them and summaries: enqueue and complete (a delete, with no done flag) keep \
                  the parent in step."
                .to_owned(),
            sqn: "entity Owner { title: string }\n\
                  entity Item @queue(priority: n) { at: date  n: int32  s: string }\n\
                  relation Owner.items: squillions <-> Item.owner: one {\n  \
                  latest 2 by at desc keep at, n\n  summary count, total(n), max(n)\n}\n"
                .to_owned(),
        },
        Schema {
            name: "kept_tree".to_owned(),
            doc: "Issue 11: nodes of a tree whose parent keeps the latest of them and summaries: \
                  `insert_under` keeps the parent in step as `insert` does."
                .to_owned(),
            sqn: "entity Owner { title: string }\n\
                  entity Item @tree { at: date  n: int32  s: string }\n\
                  relation Owner.items: squillions <-> Item.owner: one {\n  \
                  latest 2 by at desc keep at, n\n  summary count, total(n), max(n)\n}\n"
                .to_owned(),
        },
        Schema {
            name: "kept_versions".to_owned(),
            doc: "Issue 11: versions of a document whose parent keeps the latest of them and \
                  summaries: `new_version` (an insert, and the close of the version it follows) \
                  keeps the parent in step."
                .to_owned(),
            sqn: "entity Owner { title: string }\n\
                  entity Item @versioned(future) { at: date  n: int32  s: string }\n\
                  relation Owner.items: squillions <-> Item.owner: one {\n  \
                  latest 2 by at desc keep at, n\n  summary count, total(n), max(n)\n}\n"
                .to_owned(),
        },
    ]
}

/// Issue 11: the child's end of a one-to-many two-way relation, required (`one`) or optional
/// (`one?`), with and without a parent keeping its latest children: `unlink_` exists only where it
/// can take the reference away. Types: `Owner`, `Item`.
pub fn two_way_ends() -> Vec<Schema> {
    let mut out = Vec::new();
    for (end, optional) in [("required", ""), ("optional", "?")] {
        for (kept, facts) in [
            ("", ""),
            (
                "_kept",
                "  latest 2 by at desc keep at, n\n  summary count, max(n)\n",
            ),
        ] {
            out.push(Schema {
                name: format!("two_way_{end}{kept}"),
                doc: format!(
                    "Issue 11: a two-way one-to-many relation whose child's reference is {end}{}.",
                    if kept.is_empty() {
                        ""
                    } else {
                        ", the parent keeping its latest children"
                    }
                ),
                sqn: format!(
                    "entity Owner {{ title: string }}\n\
                     entity Item {{ at: date  n: int32  s: string }}\n\
                     relation Owner.items: many(6) <-> Item.owner: one{optional} {{\n  \
                     standalone Item\n  navigate both\n{facts}  force two_way\n}}\n"
                ),
            });
        }
    }
    out
}
