//! Queries: field paths resolved against the entity, its value types and its relation ends;
//! comparisons checked against the types they compare.

use std::collections::BTreeMap;

use squillion_grammar::ast::{self, Direction, Ident, Operator, QueryDecl};
use squillion_grammar::{Diagnostic, Span};

use super::names::{all_of, closest, not_an_entity};
use super::query_paths::Paths;
use super::{units, Resolver};
use crate::codes;
use crate::model::{ChildrenOf, Entity, FieldPath, Model, Query, RelationKind, SortKey};

/// Resolves every query, in order.
pub(super) fn resolve_all<'d>(
    r: &mut Resolver<'_>,
    model: &Model,
    decls: impl Iterator<Item = &'d QueryDecl>,
) -> Vec<Query> {
    let mut names: BTreeMap<&str, Span> = BTreeMap::new();
    let mut out = Vec::new();
    for decl in decls {
        let name = decl.name.name.as_str();
        if let Some(first) = names.get(name) {
            r.report(
                Diagnostic::error(
                    codes::DUPLICATE_QUERY,
                    decl.name.span,
                    format!("query `{name}` is declared twice"),
                )
                .with_label("declared again here")
                .with_related(*first, "first declared here")
                .with_help("give each query its own name"),
            );
        } else {
            names.insert(name, decl.name.span);
        }
        out.push(query(r, model, decl));
    }
    out
}

fn query(r: &mut Resolver<'_>, model: &Model, decl: &QueryDecl) -> Query {
    for span in &decl.repeated_clauses {
        r.report(
            Diagnostic::error(
                codes::REPEATED_CLAUSE,
                *span,
                format!("query `{}` has a clause written twice", decl.name.name),
            )
            .with_label("written again here")
            .with_help(
                "write each of `where`, `sort`, `limit`, `rate` and `returns` at most once: join \
                 conditions with `and`, sort keys and returned fields with `,`",
            ),
        );
    }
    let mut entity = model.entity(&decl.entity.name);
    if entity.is_none() {
        let d = not_an_entity(r, &decl.entity.name, decl.entity.span, "the queried entity");
        r.report(d);
    }
    let mut children = None;
    if let (Some(parent), Some(end)) = (entity, &decl.children) {
        // `on Post.comments`: the conditions are on the children.
        entity = match children_of(r, model, parent, end) {
            Some((of, child)) => {
                children = Some(of);
                Some(child)
            }
            None => None,
        };
    }
    let mut conditions = Vec::new();
    let mut sort = Vec::new();
    let mut returns = Vec::new();
    if let Some(entity) = entity {
        let paths = Paths { model, entity };
        returns = paths.returns(r, decl);
        let mut geo: Option<&ast::Condition> = None;
        for cond in &decl.conditions {
            if matches!(cond.op, Operator::Near | Operator::Within) {
                match geo {
                    Some(first) => r.report(
                        Diagnostic::error(
                            codes::SECOND_GEO_CONDITION,
                            cond.span,
                            format!(
                                "query `{}` has a second geospatial condition: MongoDB runs one \
                                 `near` or `within` per query",
                                decl.name.name
                            ),
                        )
                        .with_label("a second `near`/`within`")
                        .with_related(first.span, "the first one")
                        .with_help(
                            "keep one `near` or `within`; filter the results further with \
                             `==`, `<` or `between` on other fields",
                        ),
                    ),
                    None => geo = Some(cond),
                }
            }
            if let Some(c) = paths.condition(r, cond) {
                if children.is_none() || own_path(r, decl, &c.path, cond.path.span) {
                    conditions.push(c);
                }
            }
        }
        for key in &decl.sort {
            if let Some((path, end)) = paths.resolve(r, &key.path) {
                if let super::query_paths::End::Field(f) = end {
                    sorted_by_text(r, key.span, &path, &f.facts.one_of);
                }
                if children.is_some() && !own_path(r, decl, &path, key.path.span) {
                    continue;
                }
                sort.push(SortKey {
                    path,
                    descending: key.direction == Direction::Desc,
                    span: key.span,
                });
            }
        }
    }
    let limit = decl
        .limit
        .as_ref()
        .and_then(|q| units::count(r, q, "`limit`"));
    let rate_per_second = decl
        .rate
        .as_ref()
        .and_then(|q| units::rate_per_second(r, q, "the query's `rate`"));
    Query {
        name: decl.name.name.clone(),
        docs: decl.docs.lines.clone(),
        entity: entity.map_or_else(|| decl.entity.name.clone(), |e| e.name.clone()),
        children,
        conditions,
        sort,
        limit,
        rate_per_second,
        returns,
        span: decl.name.span,
    }
}

/// `on Parent.end`: the relationship whose children `end` reaches, and the children's entity;
/// `None` after reporting why `end` reaches no children (E0508, E0509).
fn children_of<'m>(
    r: &mut Resolver<'_>,
    model: &'m Model,
    parent: &'m Entity,
    end: &Ident,
) -> Option<(ChildrenOf, &'m Entity)> {
    let found = model.relations.iter().find_map(|rel| {
        [(&rel.left, &rel.right), (&rel.right, &rel.left)]
            .into_iter()
            .find(|(here, _)| here.entity == parent.name && here.field == end.name)
            .map(|(here, other)| (rel, here, other))
    });
    let Some((rel, here, other)) = found else {
        let ends: Vec<&str> = model
            .relations
            .iter()
            .flat_map(|rel| [&rel.left, &rel.right])
            .filter(|e| e.entity == parent.name)
            .map(|e| e.field.as_str())
            .collect();
        let close = closest(&end.name, ends.iter().copied());
        let help = match close {
            Some(close) => format!("did you mean `{}.{close}`?", parent.name),
            None if ends.is_empty() => format!(
                "`{}` is an end of no relation: declare the relation, or query `{}` itself \
                 (`on {}`)",
                parent.name, parent.name, parent.name
            ),
            None => format!(
                "`{}` has the relation ends {}",
                parent.name,
                all_of(ends.iter().copied())
            ),
        };
        r.report(
            Diagnostic::error(
                codes::UNKNOWN_CHILDREN_END,
                end.span,
                format!("`{}` has no relation end `{}`", parent.name, end.name),
            )
            .with_label("no such relation end")
            .with_help(help)
            .with_fix_from(close.map(|c| (end.span, c))),
        );
        return None;
    };
    let is_parent_end = rel.kind == RelationKind::OneToMany && std::ptr::eq(rel.parent(), here);
    if !is_parent_end {
        let why = match rel.kind {
            RelationKind::ManyToMany => format!(
                "`{}.{}` is an end of a many-to-many relation: its other side has no single parent",
                parent.name, end.name
            ),
            _ => format!(
                "`{}.{}` reaches one `{}`, not children",
                parent.name, end.name, other.entity
            ),
        };
        let help = match (rel.kind, rel.kind == RelationKind::OneToMany) {
            (RelationKind::ManyToMany, _) => format!(
                "query `{}` itself, filtering on its end: `query q on {} {{ where {} == ? }}`",
                other.entity, other.entity, other.field
            ),
            (_, true) => format!(
                "name the parent's end: `on {}.{}`",
                rel.parent().entity,
                rel.parent().field
            ),
            _ => format!(
                "a one-to-one end is read with its owner; query `{}` itself (`on {}`)",
                other.entity, other.entity
            ),
        };
        r.report(
            Diagnostic::error(codes::NOT_A_CHILDREN_END, end.span, why)
                .with_label("not a parent's end of a one-to-many relation")
                .with_help(help),
        );
        return None;
    }
    let child = model.entity(&other.entity)?;
    Some((
        ChildrenOf {
            relation: rel.id.clone(),
            parent: parent.name.clone(),
            parent_end: here.field.clone(),
            child_end: other.field.clone(),
        },
        child,
    ))
}

/// Whether a path of a query on children stays on the children's own fields; reports E0510
/// when it crosses a relation end of theirs.
fn own_path(r: &mut Resolver<'_>, decl: &QueryDecl, path: &FieldPath, span: Span) -> bool {
    let Some(t) = &path.through else {
        return true;
    };
    let end = path.segments.first().cloned().unwrap_or_default();
    r.report(
        Diagnostic::error(
            codes::CHILDREN_QUERY_THROUGH_RELATION,
            span,
            format!(
                "query `{}` reads children of `{}`, but `{}` goes through `{end}` to `{}`",
                decl.name.name,
                decl.entity.name,
                path.dotted(),
                t.entity
            ),
        )
        .with_label("through another relation")
        .with_help(
            "compare the children's own fields: a query on a parent's children reads them \
             where that parent keeps them, where other entities' fields are not stored",
        ),
    );
    false
}

/// Warns when a sort key is an enumeration whose listed order is not its alphabetical order: the
/// server sorts the stored texts (`"high" < "low" < "normal" < "urgent"`), not by `one_of`.
fn sorted_by_text(r: &mut Resolver<'_>, span: Span, path: &FieldPath, values: &[String]) {
    let mut alphabetical: Vec<&String> = values.iter().collect();
    alphabetical.sort();
    if alphabetical.iter().copied().eq(values.iter()) {
        return;
    }
    let quoted = |v: &[&String]| {
        v.iter()
            .map(|s| format!("\"{s}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let listed: Vec<&String> = values.iter().collect();
    r.report(
        Diagnostic::warning(
            codes::SORT_BY_ENUMERATION,
            span,
            format!(
                "`{}` is an enumeration: the server sorts it by its stored text ({}), not in the \
                 order `one_of` lists it ({})",
                path.dotted(),
                quoted(&alphabetical),
                quoted(&listed)
            ),
        )
        .with_label("sorted alphabetically")
        .with_help(format!(
            "to sort in the listed order, store the rank as a number beside it (`{}_rank: int32`) \
             and sort by that; list the values alphabetically if that is the order you want",
            path.segments.last().map_or("value", String::as_str)
        )),
    );
}
