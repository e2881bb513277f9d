//! The draft `infer` returns always passes `squillion check`. A draft that does not is mended
//! here, never written as it is: the queries, relation facts and relations are taken out as far
//! as needed for the rest to check, then put back one at a time, each kept only when the draft
//! still checks; what stays out is named in the header with the error it gave. A draft whose
//! entities and value types alone do not check is an error ([`InferError::Invalid`]).

use super::draft::{Draft, FactKind};
use super::finish::Inferred;
use super::{write, InferError};

/// The draft's text when it passes `squillion check`, else the rendered diagnostics.
fn check(d: &Draft) -> Result<String, String> {
    let text = write::write(d)?;
    let source = squillion_grammar::SourceFile::new("draft.sqn".to_owned(), text.clone());
    match squillion_codegen::load(&source) {
        Ok(_) => Ok(text),
        Err(diags) => Err(source.render(&diags, false)),
    }
}

/// The first error of rendered diagnostics, on one line.
fn first_error(rendered: &str) -> String {
    rendered
        .lines()
        .map(|l| {
            l.trim_start_matches(|c: char| c.is_whitespace() || c == '×')
                .trim()
        })
        .find(|l| l.starts_with("error"))
        .or_else(|| rendered.lines().map(str::trim).find(|l| !l.is_empty()))
        .unwrap_or("it did not check")
        .to_owned()
}

/// The draft, its relations (one per relation of the draft, in order) and its text, once it
/// passes `squillion check`.
pub fn checked(
    draft: Draft,
    relations: Vec<Inferred>,
) -> Result<(Draft, Vec<Inferred>, String), InferError> {
    if let Ok(text) = check(&draft) {
        return Ok((draft, relations, text));
    }
    let full = draft.clone();
    let mut core = draft;
    let queries = std::mem::take(&mut core.queries);
    // How far the core was taken apart: 0 without queries, 1 also without relation facts,
    // 2 also without relations.
    let mut level = 0;
    if check(&core).is_err() {
        level = 1;
        for r in &mut core.relations {
            r.facts.clear();
        }
    }
    if check(&core).is_err() {
        level = 2;
        core.relations.clear();
    }
    check(&core).map_err(InferError::Invalid)?;
    // The relations of the core, by their index in the full draft.
    let mut kept: Vec<usize> = (0..full.relations.len()).collect();
    if level == 2 {
        kept.clear();
        for (k, r) in full.relations.iter().enumerate() {
            let mut bare = r.clone();
            bare.facts.clear();
            core.relations.push(bare);
            if let Err(e) = check(&core) {
                core.relations.pop();
                core.header.push(format!(
                    "Left out: relation `{} <-> {}`: the draft did not check with it ({}); a defect of `infer`, please report it.",
                    write::end(&r.left),
                    write::end(&r.right),
                    first_error(&e)
                ));
            } else {
                kept.push(k);
            }
        }
    }
    if level >= 1 {
        for (j, &k) in kept.iter().enumerate() {
            let r = &full.relations[k];
            for f in &r.facts {
                core.relations[j].facts.push(f.clone());
                if let Err(e) = check(&core) {
                    core.relations[j].facts.pop();
                    let said = match &f.kind {
                        FactKind::Fields(_) => "fields { ... }".to_owned(),
                        other => write::fact(other),
                    };
                    core.header.push(format!(
                        "Left out: `{said}` of relation `{} <-> {}`: the draft did not check with it ({}); a defect of `infer`, please report it.",
                        write::end(&r.left),
                        write::end(&r.right),
                        first_error(&e)
                    ));
                }
            }
        }
    }
    for q in queries {
        core.queries.push(q);
        if check(&core).is_err() {
            if let Some(q) = core.queries.pop() {
                core.header.push(format!(
                    "Left out: query `{}` on {} from an index the language cannot state ({}).",
                    q.name,
                    q.on,
                    q.comments.first().map_or("", String::as_str)
                ));
            }
        }
    }
    let text = check(&core).map_err(InferError::Invalid)?;
    let relations = if kept.len() == relations.len() {
        relations
    } else {
        relations
            .into_iter()
            .enumerate()
            .filter(|(k, _)| kept.contains(k))
            .map(|(_, r)| r)
            .collect()
    };
    Ok((core, relations, text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infer::draft::{
        Card, End, EntityDecl, Fact, FieldDecl, QueryDecl, RelationDecl, TypeExpr,
    };
    use crate::infer::layout::LinkKind;

    fn entity(name: &str, fields: &[&str]) -> EntityDecl {
        EntityDecl {
            name: name.into(),
            place: format!("{}s", name.to_lowercase()),
            collection: Some(format!("{}s", name.to_lowercase())),
            comments: Vec::new(),
            tree: false,
            versioned_future: false,
            discriminator: None,
            schema_version: None,
            fields: fields
                .iter()
                .map(|f| FieldDecl {
                    name: (*f).into(),
                    ty: TypeExpr::Named("string".into()),
                    optional: false,
                    attrs: Vec::new(),
                    comments: Vec::new(),
                    trailing: None,
                })
                .collect(),
            variants: Vec::new(),
        }
    }

    fn relation(left: &str, right: &str, facts: Vec<FactKind>) -> RelationDecl {
        RelationDecl {
            comments: Vec::new(),
            left: End {
                entity: "E0".into(),
                field: left.into(),
                card: Card::Few {
                    max: Some(4),
                    typical: None,
                },
            },
            right: End {
                entity: "E0".into(),
                field: right.into(),
                card: Card::One,
            },
            facts: facts
                .into_iter()
                .map(|kind| Fact {
                    comments: Vec::new(),
                    kind,
                })
                .collect(),
        }
    }

    fn inferred(end: &str) -> Inferred {
        Inferred {
            kind: LinkKind::ChildRef,
            left: ("e0s".into(), end.into()),
            right: ("e0s".into(), String::new()),
            left_class: "few",
            right_class: "one",
        }
    }

    fn show(field: &str) -> FactKind {
        FactKind::Show {
            fields: vec![format!("E0.{field}")],
            on: "E0".into(),
            ratio: None,
        }
    }

    /// A fact naming a field the entity does not have (g17_18 with `elements` on: `show E0.q2
    /// on E0`, `q2` being a relation's end) is left out with a note; the rest stays.
    #[test]
    fn a_fact_that_does_not_check_is_left_out_with_a_note() {
        let draft = Draft {
            entities: vec![entity("E0", &["s"])],
            relations: vec![
                relation("r0", "q0", vec![show("s")]),
                relation("r1", "q1", vec![FactKind::NavigateBoth, show("q2")]),
            ],
            ..Draft::default()
        };
        let (d, rels, text) =
            checked(draft, vec![inferred("r0"), inferred("r1")]).expect("a draft");
        assert_eq!(rels.len(), 2);
        assert_eq!(d.relations[0].facts.len(), 1);
        assert_eq!(
            d.relations[1]
                .facts
                .iter()
                .map(|f| &f.kind)
                .collect::<Vec<_>>(),
            vec![&FactKind::NavigateBoth]
        );
        assert!(
            text.contains(
                "Left out: `show E0.q2 on E0` of relation `E0.r1: few(4) <-> E0.q1: one`"
            ),
            "{text}"
        );
        assert!(text.contains("E0407"), "{text}");
    }

    /// A relation that does not check whatever its facts is left out, and its inferred
    /// relation with it; a query that does not check is left out; the draft checks.
    #[test]
    fn relations_and_queries_that_do_not_check_are_left_out() {
        let mut bad = relation("r1", "q1", Vec::new());
        bad.right.entity = "Nowhere".into();
        let draft = Draft {
            entities: vec![entity("E0", &["s"])],
            relations: vec![relation("r0", "q0", Vec::new()), bad],
            queries: vec![QueryDecl {
                name: "by_missing".into(),
                on: "E0".into(),
                comments: vec!["index `missing_1`".into()],
                conditions: vec![("missing".into(), false)],
                sort: Vec::new(),
                limit: None,
                rate_per_second: None,
            }],
            ..Draft::default()
        };
        let (d, rels, text) =
            checked(draft, vec![inferred("r0"), inferred("r1")]).expect("a draft");
        assert_eq!(d.relations.len(), 1);
        assert_eq!(rels, vec![inferred("r0")]);
        assert!(d.queries.is_empty());
        assert!(
            text.contains("Left out: relation `E0.r1: few(4) <-> Nowhere.q1: one`"),
            "{text}"
        );
        assert!(text.contains("Left out: query `by_missing`"), "{text}");
        check(&d).expect("the mended draft checks");
    }

    /// Entities that do not check are an error, not a draft.
    #[test]
    fn a_draft_whose_entities_do_not_check_is_an_error() {
        let mut e = entity("E0", &["s"]);
        e.fields[0].ty = TypeExpr::Named("NoSuchType".into());
        let draft = Draft {
            entities: vec![e],
            ..Draft::default()
        };
        assert!(matches!(
            checked(draft, Vec::new()),
            Err(InferError::Invalid(_))
        ));
    }
}
