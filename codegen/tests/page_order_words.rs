//! A page's order in words follows what its field holds: "newest first" is said of a date (or a
//! timestamp) read descending only. `page 20 by price desc` used to read "by price, newest
//! first"; numbers read "highest first"/"lowest first", other values "in reverse order" or, in
//! alphabetical order, nothing more than "by name". Checked for every field type, direction,
//! cardinality and layout the engine picks for a paged relationship.

mod planned;

/// A field type of the child and the words its descending and ascending pages must carry.
const TYPES: &[(&str, &str, &str)] = &[
    ("date", ", newest first", ", oldest first"),
    ("timestamp", ", newest first", ", oldest first"),
    ("int32", ", highest first", ", lowest first"),
    ("int64", ", highest first", ", lowest first"),
    ("double", ", highest first", ", lowest first"),
    ("decimal128", ", highest first", ", lowest first"),
    ("string", ", in reverse order", ""),
];

const ORDER_WORDS: &[&str] = &[
    "newest first",
    "oldest first",
    "highest first",
    "lowest first",
    "in reverse order",
];

#[test]
fn page_order_words_follow_the_field_type() {
    let mut checked = 0;
    for (ty, desc_words, asc_words) in TYPES {
        for descending in [true, false] {
            for card in ["few(30)", "many(3000)", "squillions"] {
                for standalone in [false, true] {
                    let dir = if descending { " desc" } else { "" };
                    let mut src = format!(
                        "entity Shop {{ name: string }}\nentity Offer {{ label: string  rank: {ty} }}\n\
                         relation Shop.offers: {card} <-> Offer.shop: one {{\n  page 20 by rank{dir}\n"
                    );
                    if standalone {
                        src.push_str("  standalone Offer\n");
                    }
                    src.push_str("}\n");
                    let plan = planned::plan(&src);
                    let d = planned::decision(&plan, "Shop.offers");
                    let page = d
                        .facts
                        .iter()
                        .find(|f| f.contains("per page"))
                        .unwrap_or_else(|| panic!("no page fact in {:?}\n{src}", d.facts));
                    let want = if descending { desc_words } else { asc_words };
                    let expected = format!("by rank{want}");
                    assert!(
                        page.ends_with(&expected),
                        "{ty}{dir}: `{page}` should end with `{expected}`\n{src}"
                    );
                    for w in ORDER_WORDS {
                        assert!(
                            want.contains(w) || !page.contains(w),
                            "{ty}{dir}: `{page}` says `{w}`\n{src}"
                        );
                    }
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, TYPES.len() * 12);
}
