//! One-to-many: embed, parent_refs, child_ref, two_way or bucket, with the outlier modifier.

use crate::model::{Layout, Navigate, Relation};
use crate::plan::RuleId;

use super::super::basis::{Against, Growth, Reason};
use super::super::context::Ctx;
use super::super::denormalize::copy_sides;
use super::{base_facts, choice, rejected, view, Choice};

pub(super) fn decide(ctx: &Ctx<'_>, rel: &Relation) -> Choice {
    let v = view(ctx, rel);
    let s = ctx.settings;
    let facts = base_facts(ctx, &v);
    let parent_side = rel.parent_side();
    let f = &rel.facts;
    let (p, c) = (v.parent.entity.clone(), v.child.entity.clone());
    let max = v.n_max;
    let over_embed = max.is_none_or(|n| n > s.embed_array_max);
    let over_ids = max.is_none_or(|n| n > s.id_array_max);
    // Children that keep arriving never live in an array of the parent, as documents or as ids
    // (rule 3; seed 000: "Continually Growing Documents"). An array whose bound is within
    // `embed_array_max` stops at its bound, however often it is appended to: "arrays should not
    // grow *without bound*" (rule 3), and seed 002's bucket is exactly such an array (`count <
    // 200`, a `$push` per reading). So `append_heavy` keeps the children out of the parent only
    // beyond that bound; `unbounded` always does.
    let growth = Growth {
        append_heavy: f.append_heavy,
        unbounded: f.unbounded,
    };
    let growing = f.unbounded || (f.append_heavy && over_embed);

    // Bucket: children read a page at a time, or a time series read by time range. Summaries
    // alone are computed on the parent, not a reason to bucket; nor is a page that holds every
    // child a parent can have (`super::pages`).
    let page = super::pages(ctx, rel);
    if !v.child_alone && (page.is_some() || (f.time_range.is_some() && (over_embed || growing))) {
        let size = page.map(|p| p.size).unwrap_or(s.bucket_size);
        let mut rules = vec![RuleId::Bucket];
        if over_embed {
            rules.push(RuleId::Rule3);
        }
        if !f.summary.is_empty() {
            rules.push(RuleId::Computed);
        }
        rules.push(RuleId::Rule6);
        let reason = if page.is_some() {
            Reason::Pages {
                parent: p.clone(),
                child: c.clone(),
                size,
            }
        } else {
            Reason::Series {
                parent: p.clone(),
                child: c.clone(),
                max,
                size,
                summaries: !f.summary.is_empty(),
            }
        };
        let mut rej = vec![if over_embed {
            rejected(
                Layout::Embed,
                &[RuleId::Rule3],
                Against::TooManyToEmbed {
                    parent: p.clone(),
                    child: c.clone(),
                    max,
                    limit: s.embed_array_max,
                },
            )
        } else {
            rejected(
                Layout::Embed,
                &[RuleId::Rule6],
                Against::CannotPage { child: c.clone() },
            )
        }];
        rej.push(rejected(
            Layout::ChildRef,
            &[RuleId::Bucket],
            Against::DocumentPerChild {
                child: c.clone(),
                size,
            },
        ));
        if !over_ids {
            rej.push(rejected(
                Layout::ParentRefs,
                &[RuleId::Rule2],
                Against::NoDocumentsToReference { child: c.clone() },
            ));
        }
        let mut ch = choice(Layout::Bucket, parent_side, rules, reason, facts, rej);
        ch.bucket_size = Some(size);
        return ch;
    }

    // Outlier: the usual parent has few children, rare ones have many.
    if let Some(typical) = v.n_typical {
        let cap = v.parent.cardinality.outlier_cap(s);
        let overflows = max.is_none_or(|n| n > cap);
        if !v.child_alone && typical <= cap && overflows && !growing {
            let reason = Reason::Outlier {
                parent: p.clone(),
                child: c.clone(),
                typical,
                max,
                cap,
            };
            let rej = vec![
                rejected(
                    Layout::Embed,
                    &[RuleId::Rule3],
                    Against::RareParentHolds {
                        parent: p.clone(),
                        child: c.clone(),
                        max,
                    },
                ),
                rejected(
                    Layout::ChildRef,
                    &[RuleId::Rule1],
                    Against::UsualFewInline {
                        parent: p.clone(),
                        child: c.clone(),
                        typical,
                    },
                ),
            ];
            let mut ch = choice(
                Layout::Embed,
                parent_side,
                vec![RuleId::Rule1, RuleId::Outlier, RuleId::Rule3],
                reason,
                facts,
                rej,
            );
            ch.outlier_cap = Some(cap);
            return ch;
        }
    }

    // Static children (loaded once, never added): rule 3's concern is growth, so they embed up
    // to what an id array would hold; the document-size warnings still apply.
    let fixed = ctx.is_static(rel) && max.is_some_and(|n| n <= s.id_array_max);
    if !v.child_alone && over_embed && fixed && !growing {
        let rej = vec![
            rejected(
                Layout::ParentRefs,
                &[RuleId::Rule1],
                Against::ReferencesBuyNothing { child: c.clone() },
            ),
            rejected(
                Layout::ChildRef,
                &[RuleId::Rule1],
                Against::ChildCollection {
                    parent: p.clone(),
                    child: c.clone(),
                },
            ),
        ];
        let reason = Reason::EmbedStatic {
            parent: p,
            child: c,
            max,
            limit: s.embed_array_max,
        };
        return choice(
            Layout::Embed,
            parent_side,
            vec![RuleId::Rule1, RuleId::Rule3],
            reason,
            facts,
            rej,
        );
    }

    // Embed: few children, never read on their own.
    if !v.child_alone && !over_embed && !growing {
        let rej = vec![
            rejected(
                Layout::ParentRefs,
                &[RuleId::Rule1],
                Against::ReferencesBuyNothing { child: c.clone() },
            ),
            rejected(
                Layout::ChildRef,
                &[RuleId::Rule1],
                Against::ChildCollection {
                    parent: p.clone(),
                    child: c.clone(),
                },
            ),
        ];
        let reason = Reason::EmbedFew {
            parent: p,
            child: c,
            max,
            appended: f.append_heavy,
        };
        return choice(
            Layout::Embed,
            parent_side,
            vec![RuleId::Rule1],
            reason,
            facts,
            rej,
        );
    }

    let mut rej = vec![if v.child_alone {
        rejected(
            Layout::Embed,
            &[RuleId::Rule2],
            super::kept_out(ctx, &c, &v.rel.id),
        )
    } else if growing {
        rejected(
            Layout::Embed,
            &[RuleId::Rule3],
            Against::ParentGrows {
                parent: p.clone(),
                child: c.clone(),
                growth,
            },
        )
    } else {
        rejected(
            Layout::Embed,
            &[RuleId::Rule3],
            Against::TooManyToEmbed {
                parent: p.clone(),
                child: c.clone(),
                max,
                limit: s.embed_array_max,
            },
        )
    }];
    let child_ref = |reason: Reason, rules: Vec<RuleId>, rej: Vec<_>| {
        choice(
            Layout::ChildRef,
            parent_side,
            rules,
            reason,
            facts.clone(),
            rej,
        )
    };

    // Too many for an id array: each child references its parent.
    if over_ids {
        rej.push(rejected(
            Layout::ParentRefs,
            &[RuleId::Rule3],
            Against::TooManyIds {
                max,
                limit: s.id_array_max,
            },
        ));
        rej.push(rejected(
            Layout::TwoWay,
            &[RuleId::Rule3],
            Against::ParentSideTooMany {
                parent: p.clone(),
                max,
                limit: s.id_array_max,
            },
        ));
        let reason = Reason::TooManyForIds {
            parent: p,
            child: c,
            max,
        };
        return child_ref(reason, vec![RuleId::Rule3, RuleId::Rule4], rej);
    }

    if f.atomic_move {
        rej.push(rejected(
            Layout::TwoWay,
            &[RuleId::TwoWayReferencing],
            Against::NoAtomicMoveTwoWay {
                parent: p.clone(),
                child: c.clone(),
            },
        ));
        rej.push(rejected(
            Layout::ParentRefs,
            &[RuleId::TwoWayReferencing],
            Against::NoAtomicMoveArray {
                parent: p.clone(),
                child: c.clone(),
            },
        ));
        let reason = Reason::AtomicMove {
            parent: p,
            child: c,
        };
        return child_ref(reason, vec![RuleId::Rule2, RuleId::Rule6], rej);
    }

    // Children that keep arriving: no id array in the parent either.
    if growing {
        for layout in [Layout::ParentRefs, Layout::TwoWay] {
            rej.push(rejected(
                layout,
                &[RuleId::Rule3],
                Against::IdArrayGrows {
                    parent: p.clone(),
                    child: c.clone(),
                },
            ));
        }
        let reason = Reason::Growing {
            parent: p,
            child: c,
            growth,
        };
        return child_ref(reason, vec![RuleId::Rule3, RuleId::Rule4], rej);
    }

    // Children that expire on their own: an id array would keep the ids of expired ones.
    if let Some((field, _)) = ctx.expiring(&c) {
        for layout in [Layout::ParentRefs, Layout::TwoWay] {
            rej.push(rejected(
                layout,
                &[RuleId::Rule2],
                Against::KeepsExpiredIds {
                    parent: p.clone(),
                    child: c.clone(),
                },
            ));
        }
        let reason = Reason::Expiring {
            parent: p,
            child: c,
            field: field.to_owned(),
        };
        return child_ref(reason, vec![RuleId::Rule2, RuleId::Rule4], rej);
    }

    if let Some(query) = child_found_through(ctx, rel) {
        rej.push(rejected(
            Layout::ParentRefs,
            &[RuleId::Rule6],
            Against::QueryThroughArray {
                parent: p.clone(),
                child: c.clone(),
                query: query.clone(),
            },
        ));
        if f.navigate != Navigate::Both {
            let reason = Reason::FoundByQuery {
                parent: p,
                child: c,
                query,
            };
            return child_ref(reason, vec![RuleId::Rule6, RuleId::Rule4], rej);
        }
    }

    // Read from the child to its parent only: the child's own reference answers it.
    if p != c && f.navigate == Navigate::Entity(c.clone()) {
        rej.push(rejected(
            Layout::ParentRefs,
            &[RuleId::Rule6],
            Against::ParentNeedsMultikey {
                parent: p.clone(),
                child: c.clone(),
            },
        ));
        rej.push(rejected(
            Layout::TwoWay,
            &[RuleId::Rule6],
            Against::ParentNotRead {
                parent: p.clone(),
                child: c.clone(),
            },
        ));
        let reason = Reason::ReadFromChild {
            parent: p,
            child: c,
        };
        return child_ref(reason, vec![RuleId::Rule6, RuleId::Rule4], rej);
    }

    if f.navigate == Navigate::Both {
        rej.push(rejected(
            Layout::ParentRefs,
            &[RuleId::Rule6],
            Against::ParentNeedsMultikey {
                parent: p.clone(),
                child: c.clone(),
            },
        ));
        rej.push(rejected(
            Layout::ChildRef,
            &[RuleId::Rule6],
            Against::ListNeedsIndex {
                parent: p.clone(),
                child: c.clone(),
            },
        ));
        let reason = Reason::BothWays {
            parent: p,
            child: c,
            max,
        };
        return choice(
            Layout::TwoWay,
            parent_side,
            vec![RuleId::Rule2, RuleId::TwoWayReferencing, RuleId::Rule6],
            reason,
            facts,
            rej,
        );
    }

    // Children that show their parent's mutable fields store its id beside the copies, and
    // each update of those fields finds the copies by it through an index: that index lists the
    // children as well, so an id array in the parent would only repeat it (unless the array
    // holds copies of the children the parent shows).
    let sides = copy_sides(ctx, rel);
    if p != c && !sides.mutable_on_child.is_empty() && !sides.on_parent {
        rej.push(rejected(
            Layout::ParentRefs,
            &[RuleId::Rule4, RuleId::Rule5],
            Against::ArrayBesideFanOut {
                parent: p.clone(),
                child: c.clone(),
            },
        ));
        let reason = Reason::CarriesParentCopies {
            parent: p,
            child: c,
            sources: sides.mutable_on_child,
        };
        return child_ref(reason, vec![RuleId::Rule5, RuleId::Rule4], rej);
    }

    // What the parent keeps of children in their own collection (summaries, `latest`, `top`)
    // is kept by the children's writes, which find their parent through each child's reference:
    // an id array in the parent names children, but no child names its parent.
    let kept = kept_of_children(f);
    if p != c && !kept.is_empty() {
        rej.push(rejected(
            Layout::ParentRefs,
            &[RuleId::Computed, RuleId::Rule4],
            Against::ArrayCannotKeep {
                parent: p.clone(),
                child: c.clone(),
                kept: kept.clone(),
            },
        ));
        let reason = Reason::KeepsOfChildren {
            parent: p,
            child: c,
            kept,
        };
        return child_ref(reason, vec![RuleId::Computed, RuleId::Rule4], rej);
    }

    rej.push(rejected(
        Layout::ChildRef,
        &[RuleId::Rule4],
        Against::ArrayServesParent {
            parent: p.clone(),
            child: c.clone(),
            max,
        },
    ));
    let rules = vec![
        if v.child_alone {
            RuleId::Rule2
        } else {
            RuleId::Rule3
        },
        RuleId::Rule4,
    ];
    let reason = Reason::ParentList {
        parent: p,
        child: c,
        max,
        alone: v.alone_why.clone(),
    };
    choice(Layout::ParentRefs, parent_side, rules, reason, facts, rej)
}

/// What a parent keeps of its children, in the words of the facts: `summary`, `latest N`,
/// `top N`.
fn kept_of_children(f: &crate::model::RelationFacts) -> Vec<String> {
    let mut out = Vec::new();
    if !f.summary.is_empty() {
        out.push("summaries".to_owned());
    }
    if let Some(l) = &f.latest {
        out.push(format!("the latest {}", l.n));
    }
    if let Some(t) = &f.top {
        out.push(format!("the top {}", t.n));
    }
    out
}

/// A query on the child that filters through this relationship (`where author == ?` or
/// `author.name starts_with ?` on Book), or a query on the parent's children (`on
/// Author.books`): the child is found by its parent.
fn child_found_through(ctx: &Ctx<'_>, rel: &Relation) -> Option<String> {
    if let Some(q) = ctx.children_queries(&rel.id).first() {
        return Some(q.name.clone());
    }
    let child = rel.child();
    ctx.queries_on(&child.entity)
        .iter()
        .find(|q| {
            q.conditions.iter().any(|c| {
                c.path
                    .through
                    .as_ref()
                    .is_some_and(|t| t.relation == rel.id)
                    || c.path.segments.first() == Some(&child.field)
            })
        })
        .map(|q| q.name.clone())
}
