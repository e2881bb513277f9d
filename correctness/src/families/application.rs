//! Issue 12's families: the repository a real application needs (geospatial queries, projections,
//! pages of children and of buckets, counts, loads through id arrays, attribute queries, bounded
//! maps).

use super::Schema;

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
}

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
