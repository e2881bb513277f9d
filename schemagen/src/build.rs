//! Assembling a [`Schema`] from a [`Recipe`]: names, fields, consistent facts.

use crate::spec::{
    Card, End, Entity, Fact, Family, FieldAttr, Pattern, Relation, Scalar, Schema, Ty,
};
use crate::strategy::{
    aim, base_fields, feature_fields, field, line_fields, query_for, value_type, variants, Config,
    Feature, Recipe,
};

/// The schema a recipe describes. Deterministic: the same recipe gives the same schema.
pub fn build(r: &Recipe, config: Config) -> Schema {
    let mut schema = Schema::default();
    // Small buckets and outlier caps: a few hundred operations fill several buckets and overflow
    // an outlier, and documents of large children (maps) stay under 16 MB at worst.
    schema
        .settings
        .push(("embed_array_max".to_owned(), "10".to_owned()));
    schema
        .settings
        .push(("bucket_size".to_owned(), "8".to_owned()));
    if let Some(max) = config.doc_max_size {
        schema
            .settings
            .push(("doc_warn_size".to_owned(), format!("{}KB", max / 2048)));
        schema
            .settings
            .push(("doc_max_size".to_owned(), format!("{}KB", max / 1024)));
    }
    let mut values: Vec<&'static str> = Vec::new();
    for (i, e) in r.entities.iter().enumerate() {
        let mut fields = Vec::new();
        if e.key {
            fields.push(field(
                "k",
                Ty::Scalar(Scalar::String),
                false,
                vec![FieldAttr::Key],
            ));
        }
        fields.extend(base_fields());
        for f in &e.features {
            let (fs, needs) = feature_fields(*f);
            fields.extend(fs);
            for n in needs {
                if !values.contains(n) {
                    values.push(n);
                }
            }
        }
        schema.entities.push(Entity {
            name: format!("E{i}"),
            collection: e.named_collection.then(|| format!("c_e{i}")),
            pattern: e.pattern,
            fields,
            variants: if e.pattern == Pattern::Polymorphic {
                variants()
            } else {
                vec![]
            },
        });
    }
    // V1 holds a V0: declare V0 first.
    values.sort_unstable();
    schema.values = values.iter().map(|v| value_type(v)).collect();

    let count = schema.entities.len();
    // Forced embeddings so far (parent, child): a cycle of them is refused (W121, issue 11
    // defect 7), so a forced embedding that would close one states its facts instead.
    let mut forced_embeds: Vec<(usize, usize)> = Vec::new();
    let reaches = |edges: &[(usize, usize)], from: usize, to: usize| {
        let mut seen = vec![from];
        let mut k = 0;
        while k < seen.len() {
            let at = seen[k];
            for (p, c) in edges {
                if *p == at && !seen.contains(c) {
                    seen.push(*c);
                }
            }
            k += 1;
        }
        seen.contains(&to)
    };
    for (k, rr) in r.relations.iter().enumerate() {
        let (mut parent, mut child) = (rr.parent % count, rr.child % count);
        if !config.embed_cycles {
            // Parents before children: embedding follows the declaration order, so it cannot
            // form a cycle.
            if parent == child {
                continue;
            }
            if parent > child {
                std::mem::swap(&mut parent, &mut child);
            }
        }
        let mut family = rr.family;
        let has = |e: usize, f: Feature| r.entities[e].features.contains(&f);
        if !config.expires_on_embedded
            && has(child, Feature::Expires)
            && matches!(family, Family::Embed | Family::Bucket)
        {
            family = Family::ChildRef;
        }
        let unique = has(child, Feature::Unique) || has(child, Feature::IgnoreCase);
        if !config.unique_on_embedded && unique && matches!(family, Family::Embed | Family::Bucket)
        {
            family = Family::ChildRef;
        }
        let (p, c) = (format!("E{parent}"), format!("E{child}"));
        let (mut pc, mut cc, mut facts) = aim(family, &c);
        let one_to_many = !matches!(family, Family::OneWay | Family::LinkCollection);
        let mut one_to_one = false;
        if family == Family::Embed && rr.one_to_one {
            (pc, cc) = (Card::One, Card::One);
            one_to_one = true;
        } else if family == Family::Embed && rr.outlier {
            pc = Card::Many(Some(1000), Some(3));
        }
        let lifecycle = (!config.expires_on_embedded && has(child, Feature::Expires))
            || (!config.unique_on_embedded && unique);
        if lifecycle && !one_to_many {
            // Many-to-many children may be embedded too (one_way, forced embed).
            facts.push(Fact::Standalone(c.clone()));
        }
        if one_to_many && !one_to_one {
            if rr.copy_down {
                if rr.immutable_copy && has(parent, Feature::Immutable) {
                    facts.push(Fact::Show {
                        from: p.clone(),
                        fields: vec!["born".to_owned()],
                        on: c.clone(),
                        ratio: None,
                    });
                } else {
                    facts.push(Fact::Show {
                        from: p.clone(),
                        fields: vec!["s".to_owned()],
                        on: c.clone(),
                        ratio: Some(100),
                    });
                }
            }
            if rr.copy_up {
                facts.push(Fact::Show {
                    from: c.clone(),
                    fields: vec!["s".to_owned()],
                    on: p.clone(),
                    ratio: Some(100),
                });
            }
            if rr.latest && config.subsets {
                facts.push(Fact::Latest(
                    3,
                    "at".to_owned(),
                    true,
                    vec!["at".to_owned(), "n".to_owned()],
                ));
            }
            if rr.top {
                // By a counter the elements' `dec_` lowers when the child has one (keeping one
                // stored under another name), so an element's change reorders the list.
                let (by, keep) = if has(child, Feature::Stock) {
                    ("stock", ["stock", "qty"])
                } else {
                    ("n", ["n", "s"])
                };
                facts.push(Fact::Top(
                    3,
                    by.to_owned(),
                    true,
                    keep.map(str::to_owned).to_vec(),
                ));
            }
            if rr.summary {
                // Over numbers the elements' `inc_`/`dec_` change when the child has them (one
                // stored under another name): the summaries are named after the relation end
                // and the function, so one total and one minimum.
                let stock = has(child, Feature::Stock);
                let summary = vec![
                    ("count".to_owned(), None),
                    (
                        "total".to_owned(),
                        Some(if stock { "qty" } else { "n" }.to_owned()),
                    ),
                    ("max".to_owned(), Some("n".to_owned())),
                    (
                        "min".to_owned(),
                        Some(if stock { "stock" } else { "at" }.to_owned()),
                    ),
                ];
                facts.push(Fact::Summary(summary));
            }
        }
        // Forcing an expiring child inside other documents is refused (W120, issue 11 defect 1):
        // such a relation states the facts of the family and lets the engine keep the child
        // in its own collection.
        let refused = (has(child, Feature::Expires)
            && matches!(family, Family::Embed | Family::Bucket))
            || (family == Family::Embed
                && (if parent == child {
                    one_to_one
                } else {
                    reaches(&forced_embeds, child, parent)
                }));
        if rr.lines && rr.forced && family == Family::OneWay {
            // Order lines: numbers kept beside each reference of the bounded side's array.
            facts.push(Fact::Fields(line_fields()));
        }
        if rr.forced && !refused {
            if family == Family::Embed {
                forced_embeds.push((parent, child));
            }
            let size = (family == Family::Bucket).then_some(4);
            facts.push(Fact::Force(family, size));
        }
        schema.relations.push(Relation {
            left: End {
                entity: p,
                field: format!("r{k}"),
                card: pc,
            },
            right: End {
                entity: c,
                field: format!("q{k}"),
                card: cc,
            },
            facts,
        });
    }

    for (k, (e, kind)) in r.queries.iter().enumerate() {
        let on = &schema.entities[e % count];
        // The ends through which `on` holds one reference: `where end == ?` finds by parent.
        let ends: Vec<String> = schema
            .relations
            .iter()
            .filter(|rel| rel.right.entity == on.name && rel.right.card == Card::One)
            .filter(|rel| rel.left.card != Card::One)
            .map(|rel| rel.right.field.clone())
            .collect();
        let q = query_for(format!("find{k}"), on, *kind, &ends);
        schema.queries.push(q);
    }
    schema
}
