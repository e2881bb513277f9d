//! The projection struct of each query that declares `returns`: `_id` and the returned fields,
//! typed as in the collection's own struct, so the query's methods read only them (the
//! projection is sent to the server) and return this struct instead of the whole document.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::{docs, queries, serde_path, Generator};
use crate::plan::Collection;

impl Generator<'_> {
    /// The projection structs of collection `c`'s queries, and each one's name by query.
    /// `owner` is the collection's type (embedded types are shared with it); `unbounded` the
    /// arrays its repository bounds itself (typed as in its struct).
    pub(super) fn projections(
        &mut self,
        c: &Collection,
        owner: &str,
        unbounded: &[String],
    ) -> (TokenStream, Vec<(String, Ident)>) {
        let mut out = TokenStream::new();
        let mut names = Vec::new();
        let queries: Vec<_> = queries::with_methods(self.plan, &c.name)
            .filter(|q| !q.returns.is_empty())
            .collect();
        for q in queries {
            let name = self.types.projection(&q.name);
            let mut fields = Vec::new();
            for stored in std::iter::once("_id").chain(q.returns.iter().map(String::as_str)) {
                let Some(f) = c.field(stored) else {
                    continue;
                };
                let mut f = f.clone();
                if unbounded.contains(&f.name) {
                    f.set_outer_bound(None);
                }
                // A variant's field is absent from the other variants' documents.
                if f.variant.is_some() {
                    f.optional = true;
                }
                fields.push(self.field_in(&f, owner, true, &[]));
            }
            let returned: Vec<String> = q.returns.iter().map(|f| format!("`{f}`")).collect();
            let doc = docs(&[
                format!(
                    "What query `{}` returns (`returns`): `_id` and {} of a document of `{}`.",
                    q.name,
                    returned.join(", "),
                    c.name
                ),
                String::new(),
                "Its methods send the projection, so the rest of each document stays on the \
                 server."
                    .to_owned(),
            ]);
            let serde = serde_path();
            let body = super::braced(fields.into_iter().collect());
            out.extend(quote! {
                #doc
                #[derive(Debug, Clone, PartialEq, #serde::Serialize, #serde::Deserialize)]
                #[serde(crate = "::squillion::__private::serde")]
                pub struct #name #body
            });
            names.push((q.name.clone(), name));
        }
        (out, names)
    }
}
