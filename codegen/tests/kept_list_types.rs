//! The element type of a list the parent keeps (`latest N`, `top N`) is named after the list, as
//! an array of extended references is: `<Parent><List>` (`TicketEvents` for a Ticket's `events`,
//! `ShelfTopBins` for its `top_bins`), never after the child and the list (`EventEvents`,
//! `BinTopBins`), which repeats the child's name and does not say whose list it is.
//!
//! Over parent/child names, where the children live (their own collection, buckets, embedded with
//! an outlier) and which list is kept.

use squillion_codegen::rust::{generate, RustSettings};

mod planned;
use planned::{plan, snake};

const PAIRS: &[(&str, &str)] = &[
    ("Ticket", "Event"),
    ("Shelf", "Bin"),
    ("Post", "Reply"),
    ("Host", "LogMessage"),
    ("Board", "Pin"),
];

/// `snake_case` to `PascalCase`.
fn pascal(s: &str) -> String {
    s.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

#[test]
fn kept_lists_are_typed_after_their_parent_and_list() {
    let places = [
        ("squillions", "standalone {c}"),
        ("squillions", "page 20 by at"),
        ("many(5000, typical 20)", ""),
    ];
    let kept = [
        ("latest 3 by at desc keep v", ""),
        ("top 2 by v desc keep at", "top_"),
    ];
    let mut checked = 0;
    for (p, c) in PAIRS {
        let list = format!("{}s", snake(c));
        for (card, fact) in places {
            for (keep, prefix) in kept {
                let src = format!(
                    "entity {p} {{ name: string }}\nentity {c} {{ at: date  v: int32 }}\n\
                     relation {p}.{list}: {card} <-> {c}.{}: one {{\n  {}\n  {keep}\n}}\n",
                    snake(p),
                    fact.replace("{c}", c)
                );
                let code = generate(&plan(&src), &RustSettings::default());
                // Every bounded list of copies in the generated code: `pub <f>: BoundedVec<T, N>`
                // whose `T` is not the child's own type (embedded children, outliers).
                let lists: Vec<(String, String)> = code
                    .lines()
                    .filter_map(|l| {
                        let (f, rest) = l
                            .trim()
                            .strip_prefix("pub ")?
                            .split_once(": ::squillion::BoundedVec<")?;
                        let t = rest.split(',').next()?.to_owned();
                        Some((f.to_owned(), t))
                    })
                    .filter(|(_, t)| t != c && *t != format!("{c}Embedded"))
                    .collect();
                let want = format!("{prefix}{list}");
                assert!(
                    lists.iter().any(|(f, _)| f.ends_with(&want)),
                    "no kept list `{want}` in {lists:?}\n{src}"
                );
                for (f, t) in &lists {
                    assert_eq!(*t, format!("{p}{}", pascal(f)), "the type of `{f}`\n{src}");
                    assert!(
                        code.contains(&format!("pub struct {t} {{")),
                        "`{t}` not defined\n{src}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 20, "only {checked} kept lists were generated");
}
