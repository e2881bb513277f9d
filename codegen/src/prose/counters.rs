//! W126 in words: why a `@counter` kept in array elements has no `inc_`/guarded `dec_` for one
//! element, and what gives it them. The engine decides which case it is
//! (`engine::warnings::counters_in_arrays`).

/// Why the repository has no per-element `inc_`/`dec_` for a counter kept in array elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unkept {
    /// Embedded children with no required `@unique` field: nothing identifies one element.
    NoIdentity,
    /// Embedded children some of which overflow into extra documents (outlier pattern).
    Overflow,
    /// Children grouped in bucket documents.
    Buckets,
    /// The counter is optional: `$inc` cannot add to null.
    Optional,
    /// A relationship's own fields anywhere but one array of references held by one side: on
    /// both sides (`two_way`), or beside embedded children.
    BothSides,
}

/// Where and what: the counter, its owner (`Night`, `the relationship Order.products`), the
/// child entity when the counter is a child's field, the array (`collection`, `path`).
pub(crate) struct CounterInArray<'a> {
    pub field: &'a str,
    pub owner: &'a str,
    pub child: Option<&'a str>,
    pub collection: &'a str,
    pub path: &'a str,
    pub why: Unkept,
}

/// The warning's message.
pub(crate) fn message(c: &CounterInArray<'_>) -> String {
    let method = method_suffix(c);
    let because = match c.why {
        Unkept::NoIdentity => format!(
            ", and nothing identifies one {} there (it has no required @unique field)",
            c.child.unwrap_or("element")
        ),
        Unkept::Overflow => ", some of which overflow into documents of their own".to_owned(),
        Unkept::Buckets => ", grouped in bucket documents".to_owned(),
        Unkept::Optional => ", and it is optional (`$inc` cannot add to null)".to_owned(),
        Unkept::BothSides => String::new(),
    };
    format!(
        "`{}` of {} is a @counter, but the layout keeps its values in the elements of the array `{}.{}`{because}: the repository has no `inc_{method}` or guarded `dec_{method}` for one element, so racing decrements are not guarded",
        c.field, c.owner, c.collection, c.path
    )
}

/// `<array>_<field>`, the suffix of the per-element methods.
fn method_suffix(c: &CounterInArray<'_>) -> String {
    let array = c.path.rsplit('.').next().unwrap_or(c.path);
    format!("{array}_{}", c.field)
}

/// The warning's help: what gives the counter its methods.
pub(crate) fn help(c: &CounterInArray<'_>) -> String {
    let method = method_suffix(c);
    match (c.child, c.why) {
        (Some(child), Unkept::NoIdentity) => format!(
            "give {child} a required @unique field (`code: string @unique`): the repository then finds one element by it, with `inc_{method}` and the guarded `dec_{method}`; or say it is written on its own (`standalone {child}`), each then a document whose repository has `inc_{}` and the guarded `dec_{}`; or drop `@counter` and write the array's elements whole",
            c.field, c.field
        ),
        (Some(_), Unkept::Optional) => format!(
            "make `{}` required (a counter starts at a value, 0 say): the repository then has `inc_{method}` and the guarded `dec_{method}`",
            c.field
        ),
        (Some(child), _) => format!(
            "to count up and down one {child} at a time, say it is written on its own (`standalone {child}`): each is then a document whose repository has `inc_{}` and the guarded `dec_{}`; or drop `@counter` and write the array's elements whole",
            c.field, c.field
        ),
        (None, Unkept::Optional) => format!(
            "make `{}` required (a counter starts at a value, 0 say): the repository then has `inc_{method}` and the guarded `dec_{method}`",
            c.field
        ),
        (None, _) => format!(
            "drop `@counter` and change the element with `pull_{path}` and `push_{path}`, or make `{}` a field of an entity of its own",
            c.field,
            path = c.path
        ),
    }
}
