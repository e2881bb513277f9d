//! Shapes of field types the attributes care about: arrays, bounded arrays, options, and the BSON
//! type a Rust type serializes to.

use syn::{GenericArgument, PathArguments, Type};

/// The last path segment of a type, with its generic arguments.
fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        Type::Group(g) => last_segment(&g.elem),
        Type::Paren(p) => last_segment(&p.elem),
        _ => None,
    }
}

fn generic_args(seg: &syn::PathSegment) -> Vec<&GenericArgument> {
    match &seg.arguments {
        PathArguments::AngleBracketed(a) => a.args.iter().collect(),
        _ => Vec::new(),
    }
}

fn first_type_arg(seg: &syn::PathSegment) -> Option<&Type> {
    generic_args(seg).into_iter().find_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

/// An array-like field type.
pub struct ArrayType<'a> {
    /// The element type.
    pub elem: &'a Type,
    /// `BoundedVec<T, N>`: its capacity expression.
    pub capacity: Option<&'a syn::Expr>,
}

/// `Vec<T>` or `BoundedVec<T, N>` (by last segment name).
pub fn array(ty: &Type) -> Option<ArrayType<'_>> {
    let seg = last_segment(ty)?;
    match seg.ident.to_string().as_str() {
        "Vec" => Some(ArrayType {
            elem: first_type_arg(seg)?,
            capacity: None,
        }),
        "BoundedVec" => {
            let args = generic_args(seg);
            let elem = first_type_arg(seg)?;
            let capacity = args.iter().find_map(|a| match a {
                GenericArgument::Const(e) => Some(e),
                _ => None,
            });
            Some(ArrayType { elem, capacity })
        }
        _ => None,
    }
}

/// A map field type: `BTreeMap<K, V>`, `HashMap<K, V>` or `IndexMap<K, V>` (by last segment
/// name), optionally inside an `Option`. Stored as a document whose keys are data.
pub struct MapType<'a> {
    /// The value type.
    pub value: &'a Type,
}

/// The map `ty` is (or is an `Option` of), if it is one.
pub fn map(ty: &Type) -> Option<MapType<'_>> {
    let ty = option_inner(ty).unwrap_or(ty);
    let seg = last_segment(ty)?;
    if !matches!(
        seg.ident.to_string().as_str(),
        "BTreeMap" | "HashMap" | "IndexMap"
    ) {
        return None;
    }
    let value = generic_args(seg)
        .into_iter()
        .filter_map(|a| match a {
            GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .nth(1)?;
    Some(MapType { value })
}

/// The `T` of `Option<T>`.
pub fn option_inner(ty: &Type) -> Option<&Type> {
    let seg = last_segment(ty)?;
    (seg.ident == "Option")
        .then(|| first_type_arg(seg))
        .flatten()
}

/// Whether `ty` is `String` (written `String`, `std::string::String` or `::std::string::String`).
pub fn is_string(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|seg| seg.ident == "String" && seg.arguments.is_none())
}

/// The type a setter takes its value as: `&str` for a `String` (`set_name(&id, "Ada")`; a
/// `&String` still coerces), `&T` otherwise.
pub fn value_param(ty: &Type) -> proc_macro2::TokenStream {
    if is_string(ty) {
        quote::quote!(&str)
    } else {
        quote::quote!(&#ty)
    }
}

/// The integer value of a literal capacity expression (`200`), if it is one.
pub fn literal_usize(e: &syn::Expr) -> Option<u64> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        syn::Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
            syn::Stmt::Expr(e, None) => literal_usize(e),
            _ => None,
        },
        _ => None,
    }
}

/// The `$jsonSchema` `bsonType`s a value of `ty` serializes to, when known.
pub fn bson_types(ty: &Type) -> Option<Vec<&'static str>> {
    if let Some(inner) = option_inner(ty) {
        let mut t = bson_types(inner)?;
        t.push("null");
        return Some(t);
    }
    if let Type::Reference(r) = ty {
        return bson_types(&r.elem);
    }
    if let Type::Array(_) = ty {
        return Some(vec!["array"]);
    }
    let seg = last_segment(ty)?;
    let name = seg.ident.to_string();
    Some(match name.as_str() {
        "String" | "str" | "char" => vec!["string"],
        "i8" | "i16" | "i32" | "u8" | "u16" | "u32" | "i64" | "u64" | "isize" | "usize" => {
            vec!["int", "long"]
        }
        "f32" | "f64" => vec!["double"],
        "bool" => vec!["bool"],
        "ObjectId" => vec!["objectId"],
        "DateTime" if is_bson_path(ty) => vec!["date"],
        "Decimal128" => vec!["decimal"],
        "Vec" | "BoundedVec" | "HashSet" | "BTreeSet" | "VecDeque" => vec!["array"],
        "HashMap" | "BTreeMap" | "IndexMap" => vec!["object"],
        "Document" if is_bson_path(ty) => vec!["object"],
        _ => return None,
    })
}

/// Whether a `DateTime`/`Document` path names bson's type (a bare name, or a path through `bson`).
fn is_bson_path(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => {
            let segs: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            segs.len() == 1 || segs.iter().any(|s| s == "bson")
        }
        _ => false,
    }
}

/// The dimensions of preallocated counters: `BoundedVec<BoundedVec<i64, 60>, 24>` is `[24, 60]`,
/// `BoundedVec<i64, 168>` is `[168]`; `None` unless every level is a `BoundedVec` with a literal
/// capacity and the innermost element is `i64`.
pub fn counter_dims(ty: &Type) -> Option<Vec<u64>> {
    let mut dims = Vec::new();
    let mut here = ty;
    loop {
        let Some(level) = array(here) else {
            let seg = last_segment(here)?;
            return (seg.ident == "i64" && seg.arguments.is_none() && !dims.is_empty())
                .then_some(dims);
        };
        let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) = level.capacity?
        else {
            return None;
        };
        dims.push(n.base10_parse().ok()?);
        here = level.elem;
    }
}
