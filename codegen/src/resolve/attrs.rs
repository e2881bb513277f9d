//! Attributes: which exist where, their argument forms, and the facts field attributes state.
//!
//! Entity attributes are turned into patterns by [`super::entities`]; this module knows both
//! tables so that an attribute written in the wrong place is named as such.

use squillion_grammar::ast::{Attr, FieldDecl, Quantity, Value};
use squillion_grammar::{Diagnostic, Span};

use super::names::{all_of, article, closest};
use super::{attr_habits, units, Resolver};
use crate::codes;
use crate::model::{BsonType, FieldFacts, FieldType};

/// Field attributes and the form each is written in.
pub(super) const FIELD_ATTRS: [(&str, &str); 16] = [
    ("key", "@key"),
    ("unique", "@unique"),
    ("index", "@index"),
    ("ignore_case", "@ignore_case"),
    ("immutable", "@immutable"),
    ("sensitive", "@sensitive"),
    ("seldom_read", "@seldom_read"),
    ("payload", "@payload"),
    ("attributes", "@attributes"),
    ("large", "@large(20KB)"),
    ("size", "@size(200B)"),
    ("updates", "@updates(5/day)"),
    ("counter", "@counter"),
    ("range", "@range(1, 5)"),
    ("stored", "@stored(\"name\")"),
    ("expires", "@expires(30d)"),
];

/// Entity attributes and the form each is written in.
pub(super) const ENTITY_ATTRS: [(&str, &str); 7] = [
    ("collection", "@collection(\"name\")"),
    ("tree", "@tree"),
    ("queue", "@queue(priority: field)"),
    ("polymorphic", "@polymorphic(discriminator: \"type\")"),
    ("versioned", "@versioned or @versioned(future)"),
    ("schema_version", "@schema_version(1)"),
    ("static", "@static"),
];

/// Where an attribute is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Target {
    /// After a field's type.
    Field,
    /// After an entity's name.
    Entity,
    /// After a value type's name (takes none).
    ValueType,
    /// After a variant's name (takes none).
    Variant,
}

fn form_of(name: &str) -> Option<(&'static str, Target)> {
    FIELD_ATTRS
        .iter()
        .map(|(n, f)| (*n, *f, Target::Field))
        .chain(ENTITY_ATTRS.iter().map(|(n, f)| (*n, *f, Target::Entity)))
        .find(|(n, _, _)| *n == name)
        .map(|(_, form, target)| (form, target))
}

/// The attributes of `attrs` known on `target`, first occurrences only. Unknown attributes are
/// errors; repeated ones warnings.
pub(super) fn known<'a>(r: &mut Resolver<'_>, attrs: &'a [Attr], target: Target) -> Vec<&'a Attr> {
    let mut out: Vec<&'a Attr> = Vec::new();
    for attr in attrs {
        let name = attr.name.name.as_str();
        let belongs = matches!(form_of(name), Some((_, t)) if t == target);
        if !belongs {
            r.report(unknown(attr, target));
            continue;
        }
        if let Some(first) = out.iter().find(|a| a.name.name == name) {
            r.report(
                Diagnostic::warning(
                    codes::DUPLICATE_ATTRIBUTE,
                    attr.span,
                    format!("`@{name}` is written twice"),
                )
                .with_label("written again here")
                .with_related(first.span, "first written here; this one is used")
                .with_help(format!("remove the second `@{name}`")),
            );
            continue;
        }
        out.push(attr);
    }
    out
}

fn unknown(attr: &Attr, target: Target) -> Diagnostic {
    let name = attr.name.name.as_str();
    let elsewhere = form_of(name);
    let mut fix = None;
    let (message, help) = match (target, elsewhere) {
        (Target::Field, Some((form, Target::Entity))) => (
            format!("`@{name}` is an entity attribute, not a field attribute"),
            format!("write it after the entity's name: `entity Name {form} {{ ... }}`"),
        ),
        (Target::Entity, Some((form, Target::Field))) => (
            format!("`@{name}` is a field attribute, not an entity attribute"),
            format!("write it after a field's type: `name: string {form}`"),
        ),
        (Target::ValueType | Target::Variant, found) => {
            let what = if target == Target::ValueType {
                "value types"
            } else {
                "variants"
            };
            let help = match found {
                Some((form, Target::Field)) => {
                    format!("`{form}` is a field attribute: write it after a field's type")
                }
                Some((form, _)) => {
                    format!("`{form}` is an entity attribute: write it after an entity's name")
                }
                None => format!("remove `@{name}`"),
            };
            (
                format!("{what} take no attributes, but `@{name}` is written here"),
                help,
            )
        }
        _ => {
            let (word, table) = match target {
                Target::Entity => ("entity", &ENTITY_ATTRS[..]),
                _ => ("field", &FIELD_ATTRS[..]),
            };
            let instead = (target == Target::Field)
                .then(|| attr_habits::field_help(name))
                .flatten();
            fix = attr_habits::alias(name, target == Target::Field).or_else(|| {
                instead
                    .is_none()
                    .then(|| closest(name, table.iter().map(|(n, _)| *n)))
                    .flatten()
            });
            let help = fix
                .map(|c| format!("did you mean `@{c}`?"))
                .or_else(|| instead.map(str::to_owned))
                .unwrap_or_else(|| {
                    format!(
                        "the {word} attributes are {}",
                        all_of(table.iter().map(|(_, f)| *f))
                    )
                });
            (format!("unknown {word} attribute `@{name}`"), help)
        }
    };
    Diagnostic::error(codes::UNKNOWN_ATTRIBUTE, attr.name.span, message)
        .with_label("not allowed here")
        .with_help(help)
        .with_fix_from(fix.map(|c| (attr.name.span, c)))
}

/// Reports arguments on an attribute that takes none; `true` when there are none.
pub(super) fn no_args(r: &mut Resolver<'_>, attr: &Attr) -> bool {
    if attr.args.is_empty() {
        return true;
    }
    r.report(arguments(attr, "takes no arguments"));
    false
}

/// The one argument of `attr`, unnamed or named `name`.
pub(super) fn single_arg<'a>(
    r: &mut Resolver<'_>,
    attr: &'a Attr,
    name: Option<&str>,
) -> Option<&'a Value> {
    match attr.args.as_slice() {
        [arg] => match (&arg.name, name) {
            (None, _) => Some(&arg.value),
            (Some(given), Some(expected)) if given.name == expected => Some(&arg.value),
            (Some(given), _) => {
                let mut d = arguments(attr, &format!("has no argument named `{}`", given.name));
                d.span = given.span;
                r.report(d);
                None
            }
        },
        [] => {
            r.report(arguments(attr, "needs one argument"));
            None
        }
        [_, extra, ..] => {
            let mut d = arguments(attr, "takes one argument");
            d.span = extra.span;
            r.report(d.with_label("one argument too many"));
            None
        }
    }
}

/// The error for arguments that do not fit `attr`'s form.
pub(super) fn arguments(attr: &Attr, problem: &str) -> Diagnostic {
    let name = attr.name.name.as_str();
    let form = form_of(name).map(|(f, _)| f).unwrap_or("");
    Diagnostic::error(
        codes::ATTRIBUTE_ARGUMENTS,
        attr.span,
        format!("`@{name}` {problem}"),
    )
    .with_label(format!("expected `{form}`"))
    .with_help(format!("write `{form}`"))
}

/// A quantity argument, or an error saying `@name` takes one.
fn quantity<'a>(r: &mut Resolver<'_>, attr: &'a Attr, kind: &str) -> Option<&'a Quantity> {
    match single_arg(r, attr, None)? {
        Value::Quantity(q) => Some(q),
        other => {
            let mut d = arguments(attr, &format!("takes {kind}"));
            d.span = other.span();
            r.report(d.with_label(format!("not {kind}")));
            None
        }
    }
}

/// A string argument, or an error saying `@name` takes one.
pub(super) fn string<'a>(
    r: &mut Resolver<'_>,
    attr: &'a Attr,
    name: Option<&str>,
) -> Option<(&'a str, Span)> {
    match single_arg(r, attr, name)? {
        Value::String { text, span } => Some((text.as_str(), *span)),
        other => {
            let mut d = arguments(attr, "takes a string in double quotes");
            d.span = other.span();
            r.report(d.with_label("not a string"));
            None
        }
    }
}

/// What a field's attributes say.
pub(super) struct FieldAttrs<'a> {
    /// The facts.
    pub(super) facts: FieldFacts,
    /// `@stored("name")`: the name and the string's span.
    pub(super) stored: Option<(String, Span)>,
    /// The known attributes present, first occurrences.
    present: Vec<&'a Attr>,
}

impl<'a> FieldAttrs<'a> {
    /// The attribute `@name`, if written.
    pub(super) fn get(&self, name: &str) -> Option<&'a Attr> {
        self.present.iter().copied().find(|a| a.name.name == name)
    }
}

/// Resolves the attributes of `field`, whose type is `ty` (`None` when unknown).
pub(super) fn field_attrs<'a>(
    r: &mut Resolver<'_>,
    field: &'a FieldDecl,
    ty: Option<&FieldType>,
) -> FieldAttrs<'a> {
    let present = known(r, &field.attrs, Target::Field);
    let mut facts = FieldFacts::default();
    let mut stored = None;
    for attr in &present {
        let name = attr.name.name.as_str();
        let flag = match name {
            "key" => Some(&mut facts.key),
            "unique" => Some(&mut facts.unique),
            "index" => Some(&mut facts.indexed),
            "ignore_case" => Some(&mut facts.ignore_case),
            "immutable" => Some(&mut facts.immutable),
            "sensitive" => Some(&mut facts.sensitive),
            "seldom_read" => Some(&mut facts.seldom_read),
            "payload" => Some(&mut facts.payload),
            "attributes" => Some(&mut facts.attributes),
            "counter" => Some(&mut facts.counter),
            _ => None,
        };
        if let Some(flag) = flag {
            *flag = no_args(r, attr);
            continue;
        }
        let what = format!("`@{name}`");
        match name {
            "large" => {
                facts.large_bytes =
                    quantity(r, attr, "a size").and_then(|q| units::value_size(r, q, &what));
            }
            "size" => {
                facts.size_bytes =
                    quantity(r, attr, "a size").and_then(|q| units::value_size(r, q, &what));
            }
            "updates" => {
                facts.updates_per_day =
                    quantity(r, attr, "a rate").and_then(|q| units::rate_per_day(r, q, &what));
            }
            "expires" => {
                facts.expires_after_seconds = quantity(r, attr, "a duration")
                    .and_then(|q| units::duration_seconds(r, q, &what));
            }
            "stored" => stored = string(r, attr, None).map(|(s, span)| (s.to_owned(), span)),
            "range" => {
                let counter = present.iter().copied().find(|a| a.name.name == "counter");
                facts.range = super::ranges::range(r, attr, field, ty, counter);
            }
            _ => {}
        }
    }
    let out = FieldAttrs {
        facts,
        stored,
        present,
    };
    contradictions(r, field, &out);
    if let Some(ty) = ty {
        type_mismatches(r, field, ty, &out);
    }
    redundancies(r, &out);
    out
}

/// Pairs of attributes that cannot hold together, and why.
const CONTRADICTIONS: [(&str, &str, &str); 9] = [
    (
        "payload",
        "index",
        "a payload is never queried, so it is never indexed",
    ),
    (
        "payload",
        "unique",
        "a payload is never queried, so no unique index can hold it",
    ),
    (
        "payload",
        "ignore_case",
        "a payload is never queried, so never compared without case",
    ),
    (
        "payload",
        "key",
        "a payload is never queried, but a key is looked up by value",
    ),
    (
        "payload",
        "attributes",
        "a payload is never queried, but attributes are searchable",
    ),
    (
        "seldom_read",
        "key",
        "a key is read with every reference to its document",
    ),
    (
        "immutable",
        "updates",
        "an immutable value is never updated",
    ),
    (
        "immutable",
        "counter",
        "a counter changes with every increment",
    ),
    (
        "key",
        "counter",
        "a key never changes, a counter always does",
    ),
];

fn contradictions(r: &mut Resolver<'_>, field: &FieldDecl, attrs: &FieldAttrs<'_>) {
    for (a, b, why) in CONTRADICTIONS {
        let (Some(first), Some(second)) = (attrs.get(a), attrs.get(b)) else {
            continue;
        };
        let (first, second) = if first.span.start <= second.span.start {
            (first, second)
        } else {
            (second, first)
        };
        r.report(
            Diagnostic::error(
                codes::CONTRADICTORY_ATTRIBUTES,
                second.span,
                format!(
                    "field `{}` cannot be both `@{}` and `@{}`",
                    field.name.name, first.name.name, second.name.name
                ),
            )
            .with_label(format!("contradicts `@{}`", first.name.name))
            .with_related(first.span, "the first fact")
            .with_help(format!("{why}: remove one of the two")),
        );
    }
}

fn type_mismatches(
    r: &mut Resolver<'_>,
    field: &FieldDecl,
    ty: &FieldType,
    attrs: &FieldAttrs<'_>,
) {
    // Arrays are compared, indexed and expired element by element.
    let elem = match ty {
        FieldType::Array { elem, .. } => elem.scalar(),
        other => other.scalar(),
    };
    let fixed = match ty {
        FieldType::Scalar { bson } => bson.fixed_size().is_some(),
        FieldType::Counters { .. } => true,
        _ => false,
    };
    let number = matches!(
        ty,
        FieldType::Scalar {
            bson: BsonType::Int32 | BsonType::Int64 | BsonType::Double
        }
    );
    let checks: [(&str, bool, &str, &str); 7] = [
        (
            "counter",
            !number,
            "a counter is a number the repository adds to and takes from (`$inc`)",
            "make the field an `int32`, `int64` or `double`, or remove `@counter`",
        ),
        (
            "counter",
            number && field.optional,
            "`$inc` cannot add to an absent value's null, and a counter starts at a number",
            "remove the `?`: a counter is always stored, starting at 0",
        ),
        (
            "ignore_case",
            elem != Some(BsonType::String),
            "only strings have a case",
            "remove `@ignore_case`, or make the field a `string`",
        ),
        (
            "attributes",
            !matches!(ty, FieldType::Map { .. }),
            "the attribute pattern stores a `map<T>` as `[{k, v}]`",
            "make the field a `map<T>`, or remove `@attributes`",
        ),
        (
            "large",
            fixed,
            "values of this type always have the same size",
            "remove `@large`; the engine knows the size of fixed-size types",
        ),
        (
            "size",
            fixed,
            "values of this type always have the same size",
            "remove `@size`; the engine knows the size of fixed-size types",
        ),
        (
            "expires",
            elem != Some(BsonType::Date),
            "a TTL index counts from a date",
            "put `@expires` on a `date` field",
        ),
    ];
    for (name, wrong, why, help) in checks {
        let Some(attr) = attrs.get(name) else {
            continue;
        };
        if !wrong {
            continue;
        }
        r.report(
            Diagnostic::error(
                codes::ATTRIBUTE_TYPE_MISMATCH,
                attr.span,
                format!(
                    "`@{name}` does not fit field `{}` of type `{}`: {why}",
                    field.name.name,
                    ty.sqn()
                ),
            )
            .with_label(format!("on {} `{}`", article(&ty.sqn()), ty.sqn()))
            .with_related(field.ty.span, "the field's type")
            .with_help(help),
        );
    }
}

/// Attributes another one implies, and what implies them.
const REDUNDANCIES: [(&str, &str, &str); 3] = [
    ("key", "unique", "a key is unique"),
    ("key", "immutable", "a key is immutable"),
    (
        "unique",
        "index",
        "a unique field is indexed by its unique index",
    ),
];

fn redundancies(r: &mut Resolver<'_>, attrs: &FieldAttrs<'_>) {
    for (implying, implied, why) in REDUNDANCIES {
        let (Some(by), Some(attr)) = (attrs.get(implying), attrs.get(implied)) else {
            continue;
        };
        r.report(
            Diagnostic::warning(
                codes::REDUNDANT_ATTRIBUTE,
                attr.span,
                format!("`@{implied}` is already implied by `@{implying}`"),
            )
            .with_label("implied")
            .with_related(by.span, "implied by this")
            .with_help(format!("{why}: remove `@{implied}`")),
        );
    }
}
