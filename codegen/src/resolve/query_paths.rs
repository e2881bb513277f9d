//! Paths in queries: from `a.b.c` in a query to the field, the reference or the pattern field it
//! names, through embedded values and relations, with a diagnostic for each wrong step.

use squillion_grammar::ast::{self, Ident, Operator, Path, QueryDecl};
use squillion_grammar::Diagnostic;

use super::fields::ID;
use super::names::{all_of, article, closest};
use super::Resolver;
use crate::codes;
use crate::model::{
    BsonType, Condition, Entity, Field, FieldPath, FieldType, Identity, Model, Returned, Through,
    Versioning,
};

/// Resolves every query, in order.
/// What a path ends at.
pub(super) enum End<'m> {
    /// A declared field (of the entity, a value type, or the entity across a relation).
    Field(&'m Field),
    /// `_id`, or a relation end compared as a whole (the reference): an id of this type.
    Id(BsonType),
}

/// The fields an entity's patterns add, which queries may name (`@tree`: `parent`, `ancestors`;
/// `@queue`: `in_progress`, `started`; versioning: `version`, `valid_from`, `valid_to`,
/// `document_id`; `@schema_version`: `schema_version`).
fn pattern_fields(entity: &Entity) -> Vec<&'static str> {
    let p = &entity.patterns;
    let mut out = Vec::new();
    if p.tree {
        out.extend(["parent", "ancestors"]);
    }
    if p.queue.is_some() {
        out.extend(["in_progress", "started"]);
    }
    match p.versioned {
        Some(Versioning::ValidRange) => {
            out.extend(["document_id", "version", "valid_from", "valid_to"])
        }
        Some(Versioning::CurrentAndHistory) => out.push("version"),
        None => {}
    }
    if p.schema_version.is_some() {
        out.push("schema_version");
    }
    out
}

/// The type of a field `entity`'s patterns add (for arrays, of each element), if it is one.
fn pattern_field(entity: &Entity, name: &str) -> Option<BsonType> {
    if !pattern_fields(entity).contains(&name) {
        return None;
    }
    Some(match name {
        "parent" | "ancestors" | "document_id" => id_type(entity),
        "in_progress" => BsonType::Bool,
        "started" | "valid_from" | "valid_to" => BsonType::Date,
        _ => BsonType::Int32,
    })
}

/// Resolves paths of queries on one entity.
pub(super) struct Paths<'m> {
    pub model: &'m Model,
    pub entity: &'m Entity,
}

impl<'m> Paths<'m> {
    /// The fields of `returns`: each a field, relation end or pattern field of the entity, named
    /// once. `_id` is always returned, so naming it adds nothing.
    pub(super) fn returns(&self, r: &mut Resolver<'_>, decl: &QueryDecl) -> Vec<Returned> {
        let mut out: Vec<Returned> = Vec::new();
        for name in &decl.returns {
            if let Some(first) = out.iter().find(|f| f.name == name.name) {
                r.report(
                    Diagnostic::error(
                        codes::DUPLICATE_RETURNED_FIELD,
                        name.span,
                        format!("query `{}` returns `{}` twice", decl.name.name, name.name),
                    )
                    .with_label("named again here")
                    .with_related(first.span, "first named here")
                    .with_help(format!("name `{}` once in `returns`", name.name)),
                );
                continue;
            }
            if name.name == ID {
                continue;
            }
            let known = self.entity.field(&name.name).is_some()
                || self.relation_end(&name.name).is_some()
                || pattern_field(self.entity, &name.name).is_some();
            if !known {
                let mut candidates: Vec<&str> = fields_of(self.entity);
                candidates.extend(self.relation_ends());
                candidates.extend(pattern_fields(self.entity));
                r.report(unknown_field(
                    name,
                    &format!("entity `{}`", self.entity.name),
                    candidates,
                ));
                continue;
            }
            out.push(Returned {
                name: name.name.clone(),
                span: name.span,
            });
        }
        out
    }

    pub(super) fn condition(
        &self,
        r: &mut Resolver<'_>,
        cond: &ast::Condition,
    ) -> Option<Condition> {
        if let Some(key) = &cond.attribute {
            return self.attribute_condition(r, cond, key);
        }
        let (path, end) = self.resolve(r, &cond.path)?;
        let scalar = match &end {
            End::Id(t) => Some(Some(*t)),
            End::Field(f) if r.typed(f) => Some(element(&f.ty).scalar()),
            // Unknown type: reported already.
            End::Field(_) => None,
        };
        if let Some(scalar) = scalar {
            let described = match (&end, scalar) {
                (_, Some(t)) => t.sqn_name().to_owned(),
                (End::Field(f), None) => f.ty.sqn(),
                (End::Id(_), None) => "id".to_owned(),
            };
            let described = format!("{} `{described}`", article(&described));
            let op = cond.op;
            let mut problems: Vec<(String, &str)> = Vec::new();
            let string = scalar == Some(BsonType::String);
            let geo = matches!(op, Operator::Near | Operator::Within);
            if geo && scalar != Some(BsonType::Point) {
                problems.push((
                    format!(
                        "`{}` finds geospatial points, but `{}` is {described}",
                        op.as_str(),
                        path.dotted()
                    ),
                    "declare the field as `point` (stored as GeoJSON, indexed `2dsphere`), or \
                     compare it with `==`, `<` or `between`",
                ));
            }
            if op == Operator::StartsWith && !string {
                problems.push((
                    format!(
                        "`starts_with` matches strings, but `{}` is {described}",
                        path.dotted()
                    ),
                    "compare it with `==`, or match a string field",
                ));
            }
            if cond.ignore_case && !string {
                problems.push((
                    format!(
                        "`ignore_case` compares strings, but `{}` is {described}",
                        path.dotted()
                    ),
                    "remove `ignore_case`: only strings have a case",
                ));
            }
            let ranged = matches!(
                op,
                Operator::Lt | Operator::Le | Operator::Gt | Operator::Ge | Operator::Between
            );
            if ranged && !scalar.is_some_and(BsonType::is_ordered) {
                problems.push((
                    format!(
                        "`{}` compares ordered values, but `{}` is {described}, which has no useful order",
                        op.as_str(),
                        path.dotted()
                    ),
                    "compare it with `==`, `!=` or `in`, or compare a number, date or string",
                ));
            }
            let enumeration = matches!(&end, End::Field(f) if !f.facts.one_of.is_empty());
            if ranged && enumeration {
                problems.push((
                    format!(
                        "`{}` compares ordered values, but `{}` is an enumeration: the server orders \
                         its stored texts alphabetically, not in the order `one_of` lists them",
                        op.as_str(),
                        path.dotted()
                    ),
                    "compare it with `==`, `!=` or `in` (`in` takes the values wanted)",
                ));
            }
            if !problems.is_empty() {
                for (message, help) in problems {
                    r.report(
                        Diagnostic::error(codes::OPERATOR_TYPE_MISMATCH, cond.span, message)
                            .with_label(format!("`{}` is {described}", path.dotted()))
                            .with_help(help),
                    );
                }
                return None;
            }
        }
        // A field declared `@ignore_case` is compared without regard to case by every query,
        // as its index is built (docs/language.md): the condition says so itself.
        let field_ignores_case = matches!(&end, End::Field(f)
            if f.facts.ignore_case && r.typed(f) && element(&f.ty).scalar() == Some(BsonType::String));
        Some(Condition {
            path,
            op: cond.op,
            ignore_case: cond.ignore_case || field_ignores_case,
            span: cond.span,
            attribute: false,
        })
    }

    /// Resolves `path`: a field of the entity (into value types and variants), `_id`, a relation
    /// end of the entity, or a field reached through a relation end.
    pub(super) fn resolve(
        &self,
        r: &mut Resolver<'_>,
        path: &Path,
    ) -> Option<(FieldPath, End<'m>)> {
        let segments: Vec<String> = path.segments.iter().map(|s| s.name.clone()).collect();
        let (first, rest) = path.segments.split_first()?;
        if first.name == ID {
            if let Some(next) = rest.first() {
                r.report(into_scalar(next, ID, id_type(self.entity).sqn_name()));
                return None;
            }
            let t = id_type(self.entity);
            return Some((
                FieldPath {
                    segments,
                    through: None,
                    bson_type: Some(t),
                },
                End::Id(t),
            ));
        }
        if let Some(field) = self.entity.field(&first.name) {
            let end = self.walk(r, first, field, rest)?;
            let bson_type = bson_of(&end);
            return Some((
                FieldPath {
                    segments,
                    through: None,
                    bson_type,
                },
                end,
            ));
        }
        if let Some((relation, other)) = self.relation_end(&first.name) {
            let Some(next) = rest.first() else {
                let t = other.map(id_type).unwrap_or(BsonType::ObjectId);
                return Some((
                    FieldPath {
                        segments,
                        through: None,
                        bson_type: Some(t),
                    },
                    End::Id(t),
                ));
            };
            // The other entity did not resolve: reported with the relation.
            let other = other?;
            let Some(field) = other.field(&next.name) else {
                if let Some(far) = self.far_end(&other.name, &next.name) {
                    r.report(two_relations(
                        first,
                        next,
                        &self.entity.name,
                        &other.name,
                        far,
                    ));
                    return None;
                }
                let mut d =
                    unknown_field(next, &format!("entity `{}`", other.name), fields_of(other));
                if next.name == ID {
                    d = d.with_help(format!(
                        "`{}` itself is the reference to `{}`: write `{} == ?`",
                        first.name, other.name, first.name
                    ));
                }
                r.report(d);
                return None;
            };
            let end = self.walk(r, next, field, &rest[1..])?;
            let bson_type = bson_of(&end);
            // The other entity's natural key (`origin.code`, `code` its `@key`) is the value the
            // reference holds: the path is the reference itself (`origin == ?`), which needs no
            // copy of the key beside it.
            if rest.len() == 1 && other.is_key(&next.name) {
                return Some((
                    FieldPath {
                        segments: vec![first.name.clone()],
                        through: None,
                        bson_type,
                    },
                    end,
                ));
            }
            let field: Vec<&str> = rest.iter().map(|s| s.name.as_str()).collect();
            return Some((
                FieldPath {
                    segments,
                    through: Some(Through {
                        relation: relation.to_owned(),
                        entity: other.name.clone(),
                        field: field.join("."),
                    }),
                    bson_type,
                },
                end,
            ));
        }
        if let Some(t) = pattern_field(self.entity, &first.name) {
            if let Some(next) = rest.first() {
                r.report(into_scalar(next, &first.name, t.sqn_name()));
                return None;
            }
            return Some((
                FieldPath {
                    segments,
                    through: None,
                    bson_type: Some(t),
                },
                End::Id(t),
            ));
        }
        if let Some(d) = self.summary_named(first) {
            r.report(d);
            return None;
        }
        let mut candidates: Vec<&str> = fields_of(self.entity);
        candidates.extend(self.relation_ends());
        candidates.extend(pattern_fields(self.entity));
        candidates.push(ID);
        r.report(unknown_field(
            first,
            &format!("entity `{}`", self.entity.name),
            candidates,
        ));
        None
    }

    /// Walks `rest` from `field` (named by `segment`) into value types. A `@payload` field on the
    /// way is an error: a payload is never queried, so it is never indexed.
    fn walk(
        &self,
        r: &mut Resolver<'_>,
        segment: &Ident,
        field: &'m Field,
        rest: &[Ident],
    ) -> Option<End<'m>> {
        let mut field = field;
        let mut at = segment;
        for seg in rest {
            if field.facts.payload {
                r.report(on_payload(at, field));
                return None;
            }
            if !r.typed(field) {
                return None;
            }
            match element(&field.ty) {
                FieldType::Value { name } => {
                    // An unknown value type was reported with the field.
                    let value = self.model.value(name)?;
                    let Some(next) = value.fields.iter().find(|f| f.name == seg.name) else {
                        let names = value.fields.iter().map(|f| f.name.as_str()).collect();
                        r.report(unknown_field(seg, &format!("value type `{name}`"), names));
                        return None;
                    };
                    field = next;
                    at = seg;
                }
                FieldType::Map { .. } => {
                    let help = if field.facts.attributes {
                        format!(
                            "`{}` is an `@attributes` map: find documents by one of its attributes \
                             with `{} has (k == ?, v == ?)` (the key `\"{}\"` is the method's \
                             argument)",
                            field.name, field.name, seg.name
                        )
                    } else {
                        "to search a map's keys, mark it `@attributes` (stored as `[{k, v}]`) and \
                         query it with `has (k == ?, v == ?)`, or use an array of a value type"
                            .to_owned()
                    };
                    r.report(
                        Diagnostic::error(
                            codes::PATH_INTO_SCALAR,
                            seg.span,
                            format!(
                                "`{}` is a map: its keys are data, so a query cannot name `{}`",
                                field.name, seg.name
                            ),
                        )
                        .with_label("a key of a map")
                        .with_help(help),
                    );
                    return None;
                }
                other => {
                    r.report(into_scalar(seg, &field.name, &other.sqn()));
                    return None;
                }
            }
        }
        if field.facts.payload {
            r.report(on_payload(at, field));
            return None;
        }
        Some(End::Field(field))
    }

    /// The relation whose end on this entity is named `name`, and the entity at its other end.
    fn relation_end(&self, name: &str) -> Option<(&'m str, Option<&'m Entity>)> {
        let here = &self.entity.name;
        self.model.relations.iter().find_map(|rel| {
            let other = if rel.left.entity == *here && rel.left.field == name {
                &rel.right
            } else if rel.right.entity == *here && rel.right.field == name {
                &rel.left
            } else {
                return None;
            };
            Some((rel.id.as_str(), self.model.entity(&other.entity)))
        })
    }

    /// The entity at the other end of `entity`'s relation end `name`, if it has one.
    fn far_end(&self, entity: &str, name: &str) -> Option<&'m str> {
        self.model.relations.iter().find_map(|rel| {
            if rel.left.entity == entity && rel.left.field == name {
                Some(rel.right.entity.as_str())
            } else if rel.right.entity == entity && rel.right.field == name {
                Some(rel.left.entity.as_str())
            } else {
                None
            }
        })
    }

    /// E0501 for a path naming a summary the entity keeps of its children, or would keep
    /// (`goals_count`, `reviews_avg`: `<end>_<summary>` of one of its relation ends): summaries
    /// are written by the repositories, not fields a query reads, and the nearest field or
    /// relation end ("did you mean `goals`?") was no answer.
    fn summary_named(&self, seg: &Ident) -> Option<Diagnostic> {
        const SUMMARIES: [&str; 5] = ["count", "total", "max", "min", "avg"];
        let (end, function) = self.relation_ends().find_map(|end| {
            let suffix = seg.name.strip_prefix(end)?.strip_prefix('_')?;
            SUMMARIES.contains(&suffix).then_some((end, suffix))
        })?;
        let entity = &self.entity.name;
        let (ty, by) = if function == "count" {
            ("int32 @counter", "counted")
        } else {
            ("double", "set")
        };
        let entities = crate::prose::plural(entity);
        Some(
            Diagnostic::error(
                codes::UNKNOWN_QUERY_FIELD,
                seg.span,
                format!(
                    "entity `{entity}` has no field `{}`: that is the name of the summary `{function}` of {entity}.{end}, which a query cannot filter or sort on",
                    seg.name
                ),
            )
            .with_label("a summary, not a field")
            .with_help(format!(
                "a query reads {entity}'s own fields, relation ends and pattern fields; to order or find {entities} by it, keep the value in a field of {entity} under another name (`{end}_{function}_kept: {ty}`, {by} by the application) and query that"
            )),
        )
    }

    fn relation_ends(&self) -> impl Iterator<Item = &'m str> + '_ {
        let here = self.entity.name.as_str();
        self.model.relations.iter().flat_map(move |rel| {
            [&rel.left, &rel.right]
                .into_iter()
                .filter(move |end| end.entity == here)
                .map(|end| end.field.as_str())
        })
    }
}

/// The type of the elements of an array (nested arrays too), or the type itself.
fn element(ty: &FieldType) -> &FieldType {
    match ty {
        FieldType::Array { elem, .. } => element(elem),
        other => other,
    }
}

fn bson_of(end: &End<'_>) -> Option<BsonType> {
    match end {
        End::Id(t) => Some(*t),
        End::Field(f) => match element(&f.ty) {
            FieldType::Scalar { bson } => Some(*bson),
            FieldType::Counters { .. } => Some(BsonType::Int64),
            _ => None,
        },
    }
}

fn id_type(entity: &Entity) -> BsonType {
    match &entity.identity {
        Identity::Natural { bson_type, .. } => *bson_type,
        Identity::ObjectId => BsonType::ObjectId,
    }
}

fn fields_of(entity: &Entity) -> Vec<&str> {
    entity.all_fields().map(|f| f.name.as_str()).collect()
}

fn unknown_field(seg: &Ident, owner: &str, candidates: Vec<&str>) -> Diagnostic {
    let close = closest(&seg.name, candidates.iter().copied());
    let help = match close {
        Some(close) => format!("did you mean `{close}`?"),
        None if candidates.is_empty() => format!("{owner} has no fields"),
        None => format!("{owner} has {}", all_of(candidates.iter().copied())),
    };
    Diagnostic::error(
        codes::UNKNOWN_QUERY_FIELD,
        seg.span,
        format!("{owner} has no field `{}`", seg.name),
    )
    .with_label("no such field")
    .with_help(help)
    .with_fix_from(close.map(|c| (seg.span, c)))
}

/// A path through two relations (`album.artist` from Track): a query reads one collection, and
/// the engine copies or indexes fields of the entity one relation away only.
fn two_relations(first: &Ident, next: &Ident, here: &str, middle: &str, far: &str) -> Diagnostic {
    Diagnostic::error(
        codes::UNKNOWN_QUERY_FIELD,
        next.span,
        format!(
            "`{}.{}` goes through two relations ({here} to {middle}, then {middle} to {far}): a \
             path reaches fields of the entity one relation away only",
            first.name, next.name
        ),
    )
    .with_label(format!("a relation end of `{middle}`, not a field"))
    .with_help(format!(
        "relate {here} to {far} directly and filter on that end (`relation {far}.<end>: ... <-> \
         {here}.<end>: one`), or find the {middle}s first (`query ... on {middle} {{ where {} == ? \
         }}`) and then the {here}s with `{} in ?`",
        next.name, first.name
    ))
}

fn into_scalar(next: &Ident, field: &str, ty: &str) -> Diagnostic {
    Diagnostic::error(
        codes::PATH_INTO_SCALAR,
        next.span,
        format!(
            "`{field}` is {} `{ty}`, which has no field `{}`",
            article(ty),
            next.name
        ),
    )
    .with_label("nothing to look into")
    .with_help(format!("end the path at `{field}`"))
}

/// `E0505`: a query path through a `@payload` field.
fn on_payload(segment: &Ident, field: &Field) -> Diagnostic {
    Diagnostic::error(
        codes::QUERY_ON_PAYLOAD,
        segment.span,
        format!(
            "a query cannot use `{}`: it is a `@payload` field, stored and returned but never \
             queried, so never indexed",
            field.name
        ),
    )
    .with_label("a `@payload` field")
    .with_help(
        "query another field, or remove `@payload` if the application does look documents up by \
         this one (the Plan then indexes it for the query)",
    )
}
