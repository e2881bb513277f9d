//! The Rust type names of the declarations: two entities or value types whose names differ only
//! by case or underscores (`UserAccount`, `user_account`) are one Rust type, and so is an entity
//! named like a type the generated code derives from another one (`BookRepo`, the repository of
//! `Book`; `ShapeVariant`; `PolicyVersion`). Types squillion makes up itself (`BookRef`, buckets,
//! `TagsAttribute`) never take a declared name: the emitter numbers them instead.

use std::collections::BTreeMap;

use squillion_grammar::{Diagnostic, Span};

use super::Resolver;
use crate::codes;
use crate::model::{Model, Versioning};
use crate::rust::names::type_ident;

/// What gives a Rust type its name.
struct Owner<'m> {
    /// The declared name.
    name: &'m str,
    /// The declaration (`entity Book`, `value Address`).
    what: String,
    /// Its name in the file.
    span: Span,
    /// How the type comes from it: `None` for the declaration's own type.
    derived: Option<&'m str>,
}

/// Reports declarations whose Rust types clash (E0208).
pub(super) fn check(r: &mut Resolver<'_>, model: &Model) {
    let mut types: BTreeMap<String, Owner<'_>> = BTreeMap::new();
    let mut wanted: Vec<(String, Owner<'_>)> = Vec::new();
    for e in &model.entities {
        let what = format!("entity `{}`", e.name);
        let ty = type_ident(&e.name).to_string();
        let own = |derived| owner(&e.name, &what, e.span, derived);
        wanted.push((ty.clone(), own(None)));
        wanted.push((format!("{ty}Repo"), own(Some("its repository"))));
        if e.patterns.polymorphic.is_some() {
            wanted.push((
                format!("{ty}Variant"),
                own(Some("the enum of its variants")),
            ));
        }
        if e.patterns.versioned == Some(Versioning::CurrentAndHistory) {
            let history = type_ident(&format!("{}Version", e.name)).to_string();
            wanted.push((
                format!("{history}Repo"),
                own(Some("the repository of its past versions")),
            ));
            wanted.push((history, own(Some("its past versions"))));
        }
    }
    for v in &model.values {
        let what = format!("value type `{}`", v.name);
        wanted.push((
            type_ident(&v.name).to_string(),
            owner(&v.name, &what, v.span, None),
        ));
    }
    // Declarations in file order, so the later one is reported.
    wanted.sort_by_key(|(_, o)| (o.span.start, o.derived.is_some()));
    // One report per declaration: its repository clashes when its type does.
    let mut reported: Vec<Span> = Vec::new();
    for (ty, o) in wanted {
        match types.get(&ty) {
            // The same name declared twice is E0201 already.
            Some(first) if first.name == o.name => {}
            Some(_) if reported.contains(&o.span) => {}
            Some(first) => {
                r.report(clash(&ty, first, &o));
                reported.push(o.span);
            }
            None => {
                types.insert(ty, o);
            }
        }
    }
}

fn owner<'m>(name: &'m str, what: &str, span: Span, derived: Option<&'m str>) -> Owner<'m> {
    Owner {
        name,
        what: what.to_owned(),
        span,
        derived,
    }
}

fn describe(o: &Owner<'_>) -> String {
    match o.derived {
        None => format!("the type of {}", o.what),
        Some(how) => format!("{how} (of {})", o.what),
    }
}

fn clash(ty: &str, first: &Owner<'_>, second: &Owner<'_>) -> Diagnostic {
    Diagnostic::error(
        codes::RUST_TYPE_CLASH,
        second.span,
        format!(
            "the generated Rust type `{ty}` would be both {} and {}",
            describe(first),
            describe(second)
        ),
    )
    .with_label(format!("becomes `{ty}` in Rust"))
    .with_related(first.span, format!("also `{ty}` in Rust"))
    .with_help(
        "Rust type names are the declared names in PascalCase (underscores dropped), and every \
         entity also gets `<Name>Repo`: rename one of the two declarations",
    )
}
