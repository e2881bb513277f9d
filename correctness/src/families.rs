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
        example("blog", include_str!("../../examples/blog.sqn")),
        example("catalog", include_str!("../../examples/catalog.sqn")),
        example("inventory", include_str!("../../examples/inventory.sqn")),
        example("library", include_str!("../../examples/library.sqn")),
        example("patterns", include_str!("../../examples/patterns.sqn")),
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

/// Issue 13: geospatial points, at the top of a document, optional, and in a value type. Every
/// schema has an entity `Place { name, kind, <point> }` and the queries `nearby` (`near`),
/// `nearby_of_kind` (`kind == ?` and `near`) and `inside` (`within`) on the point.
pub fn geo() -> Vec<Schema> {
    let schema = |name: &str, doc: &str, fields: &str, values: &str, path: &str| Schema {
        name: format!("geo_{name}"),
        doc: format!("Issue 13: `near` and `within` on {doc}."),
        sqn: format!(
            "{values}entity Place {{ name: string  kind: string  {fields} }}\n\
             query nearby on Place {{ where {path} near ? }}\n\
             query nearby_of_kind on Place {{ where kind == ? and {path} near ? }}\n\
             query inside on Place {{ where {path} within ? }}\n"
        ),
    };
    vec![
        schema("top", "a point field", "loc: point", "", "loc"),
        schema(
            "optional",
            "an optional point field",
            "loc: point?",
            "",
            "loc",
        ),
        schema(
            "value",
            "a point in a value type",
            "spot: Spot",
            "value Spot { label: string  loc: point }\n",
            "spot.loc",
        ),
    ]
}

/// Issue 12: queries that declare the fields they return (`returns`), over several sort
/// declarations (ascending, descending, compound, none), each returning a different set of fields
/// (scalars, an array, a large string), and one query returning whole documents. Prices and ranks
/// take few values, so most sort keys tie and `_id` breaks the ties.
pub fn projections() -> Vec<Schema> {
    vec![Schema {
        name: "projection_items".to_owned(),
        doc: "Issue 12: projections (`returns`) and keyset paging in the declared order.".to_owned(),
        sqn: "entity Item {\n  \
              title: string\n  \
              price: int32\n  \
              rank: int32\n  \
              summary: string @size(20KB)\n  \
              tags: [string; 10]\n\
              }\n\
              query by_price on Item { where price >= ? sort price returns title, price }\n\
              query by_price_desc on Item { where price >= ? sort price desc returns title }\n\
              query by_price_rank on Item { where price >= ? sort price desc, rank returns rank, tags }\n\
              query by_rank_title on Item { where rank <= ? sort rank, title desc returns title, summary }\n\
              query unsorted on Item { where price >= ? returns price }\n\
              query cheapest on Item { where price >= ? sort price limit 1 returns title }\n\
              query whole on Item { where price >= ? sort price desc }\n"
            .to_owned(),
    }]
}

/// Issue 12: `find_by_<parent>` of a child_ref relationship pages by keyset in the order the
/// relation declares (`page N by f [desc]`, or none: `_id`), with the reference stored as an id
/// or as an extended reference (`show`). Every schema has `Customer { name }` and
/// `Order { placed_at, total }` related as `Customer.orders <-> Order.customer`.
pub fn child_pages() -> Vec<Schema> {
    let schema = |name: &str, doc: &str, facts: &str| Schema {
        name: format!("child_pages_{name}"),
        doc: format!("Issue 12: `find_by_customer` pages {doc}."),
        sqn: format!(
            "entity Customer {{ name: string }}\n\
             entity Order {{ placed_at: date  total: int32 }}\n\
             relation Customer.orders: squillions <-> Order.customer: one {{\n  \
             standalone Order\n{facts}}}\n"
        ),
    };
    vec![
        schema("desc", "newest first", "  page 20 by placed_at desc\n"),
        schema("asc", "oldest first", "  page 20 by placed_at\n"),
        schema("by_id", "by `_id` (no order declared)", ""),
        schema(
            "extended_desc",
            "newest first, through an extended reference",
            "  page 20 by placed_at desc\n  show Customer.name on Order ratio 1000:1\n",
        ),
    ]
}

/// Issue 11 (helpdesk): a bucket decided for paging (`page N by created [desc]`) keeps each
/// bucket's comments sorted by the declared key whatever order they are appended in, and reads
/// its buckets in the declared direction. Every schema has `Ticket { title }` and
/// `Comment { created, body }` related as `Ticket.comments <-> Comment.ticket`; what varies is
/// the key's type, the direction, the page size, and (for a date or number) a time-range read
/// (`time_range by created`, which orders the buckets by their first key).
pub fn bucket_pages() -> Vec<Schema> {
    let mut out = Vec::new();
    let mut size = 3;
    for ty in ["date", "int32", "string"] {
        for desc in [false, true] {
            // `time_range` reads a range of a date or number: a string key pages only.
            for range in [false, true].into_iter().filter(|r| !r || ty != "string") {
                let name = format!(
                    "bucket_pages_{ty}_{}{}",
                    if desc { "desc" } else { "asc" },
                    if range { "_range" } else { "" }
                );
                out.push(Schema {
                    name,
                    doc: format!(
                        "Issue 11: buckets of {size} comments by a {ty} key, {}{}.",
                        if desc { "newest first" } else { "oldest first" },
                        if range {
                            ", read by time range too"
                        } else {
                            ""
                        }
                    ),
                    sqn: format!(
                        "entity Ticket {{ title: string }}\n\
                         entity Comment {{ created: {ty}  body: string }}\n\
                         relation Ticket.comments: squillions <-> Comment.ticket: one {{\n  \
                         page {size} by created{}\n{}}}\n",
                        if desc { " desc" } else { "" },
                        if range {
                            "  time_range by created\n"
                        } else {
                            ""
                        }
                    ),
                });
                size = if size >= 5 { 2 } else { size + 1 };
            }
        }
    }
    out
}

/// Issue 12: `count_<query>` for every condition a query can state: equality, `!=`, ranges,
/// `between`, `in`, `starts_with` (and `ignore_case`), on strings, numbers, dates, an
/// enumeration, optional fields and an array, on the reference to a parent (`shop == ?`,
/// `shop in ?`), with and without `sort` and `limit`, and on one parent's children
/// (`on Shop.items`). Items reference their shop (`child_ref`).
pub fn counts() -> Vec<Schema> {
    vec![Schema {
        name: "count_items".to_owned(),
        doc: "Issue 12: `count_<query>` of every condition shape.".to_owned(),
        sqn: "entity Shop { name: string }\n\
              entity Item {\n  \
              name: string\n  \
              price: int32\n  \
              weight: double\n  \
              note: string?\n  \
              stock: int64?\n  \
              kind: one_of(\"a\", \"b\", \"c\")\n  \
              tags: [string; 4]\n  \
              placed: date\n\
              }\n\
              relation Shop.items: squillions <-> Item.shop: one { standalone Item }\n\
              query named on Item { where name == ? }\n\
              query not_named on Item { where name != ? }\n\
              query cheaper on Item { where price < ? }\n\
              query at_most on Item { where price <= ? sort price }\n\
              query heavier on Item { where weight > ? }\n\
              query dearest on Item { where price >= ? sort price desc limit 5 }\n\
              query first_cheap on Item { where price >= ? sort price limit 1 }\n\
              query placed_in on Item { where placed between ? }\n\
              query of_kinds on Item { where kind in ? }\n\
              query not_kind on Item { where kind != ? }\n\
              query prices_in on Item { where price in ? and weight <= ? }\n\
              query name_prefix on Item { where name starts_with ? }\n\
              query name_prefix_ci on Item { where name starts_with ? ignore_case }\n\
              query noted on Item { where note == ? }\n\
              query not_noted on Item { where note != ? }\n\
              query stocked on Item { where stock >= ? }\n\
              query tagged on Item { where tags == ? }\n\
              query untagged on Item { where tags != ? }\n\
              query of_shop on Item { where shop == ? and price >= ? }\n\
              query shops_kind on Item { where shop in ? and kind == ? }\n\
              query shop_items on Shop.items { where price >= ? sort price desc limit 3 }\n\
              query shop_noted on Shop.items { where price < ? and note == ? }\n"
            .to_owned(),
    }]
}

/// Issue 12: loads through arrays of ids (`load_<f>`, `load_<f>_projected::<P>`) of `parent_refs`
/// and of both sides of a many-to-many `two_way`, whose documents carry a 20 KB field a listing
/// must not pull. Types: `Shop`, `Item`, `Tag`.
pub fn loads() -> Vec<Schema> {
    vec![Schema {
        name: "loads".to_owned(),
        doc: "Issue 12: `$in` loads through arrays of ids, whole and projected.".to_owned(),
        sqn: "entity Shop { name: string }\n\
              entity Item { title: string  price: int32  summary: string @size(20KB) }\n\
              entity Tag { label: string  note: string @size(20KB) }\n\
              relation Shop.items: many(50) <-> Item.shop: one {\n  \
              standalone Item\n  force parent_refs\n}\n\
              relation Item.tags: many(10) <-> Tag.items: many(50) {\n  \
              navigate both\n  force two_way\n}\n"
            .to_owned(),
    }]
}

/// Issue 12: queries on the attribute pattern (`where m has (k == ?, v <op> ?)`), on maps of
/// four value types, with every kind of comparison of the value, another condition, sorts,
/// limits, a projection and two attributes of one map.
pub fn attributes() -> Vec<Schema> {
    vec![Schema {
        name: "attributes".to_owned(),
        doc: "Issue 12: `has` queries on `@attributes` maps, sent as `$elemMatch`.".to_owned(),
        sqn: "entity Product {\n  \
              sku: string\n  \
              brand: string\n  \
              colours: map<string> @attributes\n  \
              sizes: map<int32> @attributes\n  \
              weights: map<double> @attributes\n  \
              flags: map<bool> @attributes\n\
              }\n\
              query by_colour on Product { where colours has (k == ?, v == ?) sort sku }\n\
              query colour_not on Product { where colours has (k == ?, v != ?) }\n\
              query size_below on Product { where sizes has (k == ?, v < ?) sort sku desc limit 5 }\n\
              query size_between on Product { where sizes has (k == ?, v between ?) and brand == ? sort sku }\n\
              query weight_at_least on Product { where weights has (k == ?, v >= ?) }\n\
              query colour_in on Product { where colours has (k == ?, v in ?) sort brand, sku }\n\
              query colour_prefix on Product { where colours has (k == ?, v starts_with ?) sort sku limit 1 }\n\
              query flag_set on Product { where flags has (k == ?, v == ?) sort sku returns sku, flags }\n\
              query two_colours on Product { where colours has (k == ?, v == ?) and colours has (k == ?, v == ?) sort sku }\n"
            .to_owned(),
    }]
/// Issue 12: bounded maps (`map<T; N>`) of a number, a string and a value type, at bounds 1, 3
/// and 8, required and optional, and an unbounded map; each entity also holds an `@attributes`
/// map of the same bound (an array of `{k, v}`). Types: `Bag { name, m, attrs }`, `V { s, n }`.
pub fn maps() -> Vec<Schema> {
    let mut out = Vec::new();
    let shapes: [(&str, &str, Option<u64>, bool); 7] = [
        ("int_1", "int32", Some(1), false),
        ("int_3", "int32", Some(3), false),
        ("int_8", "int32", Some(8), false),
        ("string_3_optional", "string", Some(3), true),
        ("value_3", "V", Some(3), false),
        ("value_8_optional", "V", Some(8), true),
        ("int_unbounded", "int32", None, false),
    ];
    for (name, value, bound, optional) in shapes {
        let bound_text = bound.map(|n| format!("; {n}")).unwrap_or_default();
        let q = if optional { "?" } else { "" };
        out.push(Schema {
            name: format!("map_{name}"),
            doc: format!(
                "Issue 12: `m: map<{value}{bound_text}>{q}` and `attrs: map<string{bound_text}> @attributes`."
            ),
            sqn: format!(
                "value V {{ s: string  n: int32 }}\n\
                 entity Bag @collection(\"bags\") {{\n  \
                 name: string\n  \
                 m: map<{value}{bound_text}>{q}\n  \
                 attrs: map<string{bound_text}> @attributes\n\
                 }}\n"
            ),
        });
    }
    out
}
