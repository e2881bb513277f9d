//! `upgrade(from = N, rename(from = "old", to = "new"), wrap(path = "author", id = "id"))`: how
//! documents stored at an older schema version are read (the online mode of a migration).

use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;

use crate::ctxt::Ctxt;

use super::values::{key_name, lit_i64, name_value, skip_value};
use super::UpgradeDecl;

/// Reads one `upgrade(...)`.
pub(super) fn upgrade(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<Option<UpgradeDecl>> {
    let span = meta.path.span();
    let mut out = UpgradeDecl {
        from: None,
        renames: Vec::new(),
        wraps: Vec::new(),
        span,
    };
    meta.parse_nested_meta(|m| {
        match key_name(&m).as_str() {
            "from" => {
                let v = lit_i64(&m)?;
                if v.0 < 0 {
                    cx.error_at(v.1, "`upgrade(from = N)` is a version, 0 for documents without one");
                }
                out.from = Some(v);
            }
            "rename" => {
                let (from, to) = pair(cx, &m, ("from", "to"))?;
                if let (Some(from), Some(to)) = (from, to) {
                    out.renames.push((from, to));
                } else {
                    cx.error_spanned_by(&m.path, "`rename` names the stored path before and after: `rename(from = \"pages\", to = \"page_count\")`");
                }
            }
            "wrap" => {
                let (path, id) = pair(cx, &m, ("path", "id"))?;
                if let (Some(path), Some(id)) = (path, id) {
                    out.wraps.push((path, id));
                } else {
                    cx.error_spanned_by(&m.path, "`wrap` names the reference and the name of the id inside it: `wrap(path = \"author\", id = \"id\")`");
                }
            }
            other => {
                cx.error_spanned_by(&m.path, format!("unknown upgrade option `{other}`; expected from, rename, wrap"));
                skip_value(&m)?;
            }
        }
        Ok(())
    })?;
    if out.from.is_none() {
        cx.error_at(
            span,
            "`upgrade` names the version it reads: `upgrade(from = 1, ...)`",
        );
        return Ok(None);
    }
    Ok(Some(out))
}

/// The two named strings of `rename(...)` or `wrap(...)`.
fn pair(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    keys: (&str, &str),
) -> syn::Result<(Option<String>, Option<String>)> {
    let (mut a, mut b) = (None, None);
    meta.parse_nested_meta(|m| {
        let key = key_name(&m);
        if key == keys.0 {
            a = Some(name_value(&m)?);
        } else if key == keys.1 {
            b = Some(name_value(&m)?);
        } else {
            cx.error_spanned_by(
                &m.path,
                format!("unknown option `{key}`; expected {}, {}", keys.0, keys.1),
            );
            skip_value(&m)?;
        }
        Ok(())
    })?;
    Ok((a, b))
}
