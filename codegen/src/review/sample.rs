//! Sample documents in MongoDB shell syntax, generated from the planned field types.
//!
//! Values are deterministic: the same collection gives the same bytes. Ids are derived from the
//! entity they identify, so that a reference in one sample matches the `_id` in the referenced
//! collection's sample (`products.parts[0]` is the `_id` of the `parts` sample). Sensitive fields
//! show `"<redacted>"`; arrays show two elements and say how many there can be.

use std::fmt::Write as _;

use crate::plan::{Collection, CollectionRole, Container, ContainerKind, FieldKind, PlanField};

use super::view::thousands;

/// Elements shown per array.
const SHOWN: u64 = 2;
/// Nesting depth at which a sample stops descending.
const MAX_DEPTH: usize = 8;

/// The sample document of collection `c`.
pub fn document(c: &Collection) -> String {
    let own = match &c.role {
        CollectionRole::Entity | CollectionRole::History => c.entity.clone(),
        CollectionRole::Bucket { relation }
        | CollectionRole::Link { relation }
        | CollectionRole::Overflow { relation } => format!("{}#{relation}", c.name),
    };
    let variant = c.variants.as_ref().and_then(|v| v.names.first().cloned());
    let ctx = Ctx {
        own: &own,
        variant: variant.as_deref(),
        discriminator: c.variants.as_ref().map(|v| v.discriminator.as_str()),
    };
    let mut out = String::new();
    object(&ctx, &c.fields, 0, 0, &mut out);
    out
}

struct Ctx<'a> {
    /// Name the document's own `_id` is derived from.
    own: &'a str,
    /// The variant shown (the first).
    variant: Option<&'a str>,
    /// The discriminator's BSON name.
    discriminator: Option<&'a str>,
}

/// A deterministic 24-hex-digit ObjectId for the `n`th document identified by `seed`.
pub fn object_id(seed: &str, n: u64) -> String {
    // FNV-1a, 64 bits: stable across platforms and releases.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in seed.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}{:08x}", n & 0xffff_ffff)
}

fn object(ctx: &Ctx<'_>, fields: &[PlanField], depth: usize, n: u64, out: &mut String) {
    let shown: Vec<&PlanField> = fields
        .iter()
        .filter(|f| match (&f.variant, ctx.variant) {
            (Some(v), Some(shown)) => v == shown,
            (Some(_), None) => false,
            (None, _) => true,
        })
        .collect();
    if shown.is_empty() {
        out.push_str("{}");
        return;
    }
    out.push_str("{\n");
    let pad = "  ".repeat(depth + 1);
    for (i, f) in shown.iter().enumerate() {
        let _ = write!(out, "{pad}{}: ", key(&f.name));
        value(ctx, f, depth + 1, n, out);
        if i + 1 < shown.len() {
            out.push(',');
        }
        out.push('\n');
    }
    out.push_str(&"  ".repeat(depth));
    out.push('}');
}

/// A key as the shell accepts it unquoted, else quoted.
fn key(name: &str) -> String {
    let plain = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if plain {
        name.to_owned()
    } else {
        format!("{name:?}")
    }
}

fn value(ctx: &Ctx<'_>, f: &PlanField, depth: usize, n: u64, out: &mut String) {
    if f.flags.sensitive {
        out.push_str("\"<redacted>\"");
        return;
    }
    levels(ctx, f, &f.containers, depth, n, out);
}

/// A value inside the container levels `rest` (outermost first).
fn levels(
    ctx: &Ctx<'_>,
    f: &PlanField,
    rest: &[Container],
    depth: usize,
    n: u64,
    out: &mut String,
) {
    let Some((level, inner)) = rest.split_first() else {
        scalar_or_object(ctx, f, depth, n, out);
        return;
    };
    match level.kind {
        ContainerKind::Array => array(ctx, f, level, inner, depth, n, out),
        ContainerKind::Map => {
            let pad = "  ".repeat(depth + 1);
            out.push_str("{\n");
            let _ = write!(out, "{pad}\"key1\": ");
            levels(ctx, f, inner, depth + 1, n, out);
            out.push('\n');
            out.push_str(&"  ".repeat(depth));
            out.push('}');
        }
    }
}

/// An array level: up to its bound, at most `SHOWN` elements.
fn array(
    ctx: &Ctx<'_>,
    f: &PlanField,
    level: &Container,
    inner: &[Container],
    depth: usize,
    n: u64,
    out: &mut String,
) {
    let count = level.bound.map_or(SHOWN, |b| b.min(SHOWN));
    if count == 0 {
        out.push_str("[]");
        return;
    }
    let more = match level.bound {
        Some(b) if b > count => format!(" /* \u{2026} up to {} */", thousands(b)),
        Some(_) => String::new(),
        None => " /* \u{2026} no bound */".to_owned(),
    };
    if !inner.is_empty() || f.bson_type == "object" {
        out.push_str("[\n");
        let pad = "  ".repeat(depth + 1);
        for i in 0..count {
            out.push_str(&pad);
            levels(ctx, f, inner, depth + 1, n + i, out);
            if i + 1 < count || !more.is_empty() {
                out.push(',');
            }
            out.push('\n');
        }
        if !more.is_empty() {
            out.push_str(&pad);
            out.push_str(more.trim_start());
            out.push('\n');
        }
        out.push_str(&"  ".repeat(depth));
        out.push(']');
    } else {
        out.push('[');
        for i in 0..count {
            if i > 0 {
                out.push_str(", ");
            }
            scalar_or_object(ctx, f, depth, n + i, out);
        }
        out.push_str(&more);
        out.push(']');
    }
}

fn scalar_or_object(ctx: &Ctx<'_>, f: &PlanField, depth: usize, n: u64, out: &mut String) {
    if f.bson_type == "object" {
        if f.recursive {
            out.push_str("{ /* same shape as the enclosing document */ }");
        } else if depth > MAX_DEPTH {
            out.push_str("{ /* \u{2026} */ }");
        } else {
            object(ctx, &f.children, depth, n, out);
        }
        return;
    }
    out.push_str(&scalar(ctx, f, n));
}

fn scalar(ctx: &Ctx<'_>, f: &PlanField, n: u64) -> String {
    let i = n + 1;
    if ctx.discriminator == Some(f.path.as_str()) {
        if let Some(v) = ctx.variant {
            return format!("{v:?}");
        }
    }
    match f.bson_type.as_str() {
        "objectId" => {
            let seed = if f.path == "_id" {
                ctx.own.to_owned()
            } else {
                match f.kind {
                    FieldKind::Ref | FieldKind::RefArray => {
                        f.source.clone().unwrap_or_else(|| f.path.clone())
                    }
                    _ if f.name == "id" => f.source.clone().unwrap_or_else(|| f.path.clone()),
                    _ => f.path.clone(),
                }
            };
            format!("ObjectId(\"{}\")", object_id(&seed, i))
        }
        // An enumeration's samples cycle through its values.
        "string" if !f.enum_values.is_empty() => {
            let at = usize::try_from(n).unwrap_or(0) % f.enum_values.len();
            format!("{:?}", f.enum_values[at])
        }
        "string" => format!("{:?}", string(f, i)),
        // A number with a range: a value inside it (the validator refuses any other).
        "int" | "long" | "double" | "decimal" if f.range.is_some() => ranged(f, n),
        "date" => format!("ISODate(\"2024-05-{:02}T09:30:00Z\")", 1 + (n % 28)),
        "long" => {
            if f.kind == FieldKind::Computed && f.name == "count" {
                "NumberLong(2)".to_owned()
            } else {
                format!("NumberLong({})", 40 + i)
            }
        }
        "int" => format!("NumberInt({})", i * 3),
        "double" => format!("{}.5", i * 2),
        "decimal" => format!("NumberDecimal(\"{}.99\")", i * 10 - 1),
        "bool" => (n % 2 == 0).to_string(),
        "binData" => "BinData(0, \"c3F1aWxsaW9u\")".to_owned(),
        "timestamp" => format!("Timestamp({{ t: 1714555800, i: {i} }})"),
        "regex" => "/^sample/i".to_owned(),
        "null" => "null".to_owned(),
        other => format!("/* {other} */ null"),
    }
}

/// Sample `n` of a number with a `@range`: its bounds and values between them, in turn.
fn ranged(f: &PlanField, n: u64) -> String {
    let Some(range) = &f.range else {
        return "null".to_owned();
    };
    let value = match (range.min.as_i64(), range.max.as_i64()) {
        (Some(lo), Some(hi)) => {
            let span = u64::try_from(i128::from(hi) - i128::from(lo)).unwrap_or(u64::MAX);
            let step = (n % 4).saturating_mul(span / 3);
            let v = i128::from(lo) + i128::from(step);
            v.to_string()
        }
        _ => {
            let (lo, hi) = range.as_f64();
            let v = lo + (hi - lo) * (n % 4) as f64 / 3.0;
            format!("{v:?}")
        }
    };
    match f.bson_type.as_str() {
        "int" => format!("NumberInt({value})"),
        "long" => format!("NumberLong({value})"),
        "decimal" => format!("NumberDecimal(\"{value}\")"),
        _ => value,
    }
}

fn string(f: &PlanField, i: u64) -> String {
    let name = f.name.to_ascii_lowercase();
    if f.path == "_id" {
        return format!("{}-{i}", f.code_name);
    }
    if name.contains("email") {
        format!("user{i}@example.com")
    } else if name.contains("url") || name.contains("uri") {
        format!("https://example.com/{i}")
    } else if name.contains("ip") && name.contains("addr") {
        format!("192.0.2.{i}")
    } else {
        format!("{} {i}", f.name.replace('_', " "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_ids_are_24_hex_digits_and_stable() {
        let a = object_id("Part", 1);
        assert_eq!(a.len(), 24);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(a, object_id("Part", 1));
        assert_ne!(a, object_id("Part", 2));
        assert_ne!(a, object_id("Product", 1));
    }

    #[test]
    fn keys_that_are_not_identifiers_are_quoted() {
        assert_eq!(key("name"), "name");
        assert_eq!(key("a-b"), "\"a-b\"");
        assert_eq!(key("1st"), "\"1st\"");
    }
}
