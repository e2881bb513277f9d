//! Where the workload decides among the layouts the rules accept (`choose_by_cost`), and what
//! replaces a choice that does not fit in a document (`refit`).

use crate::model::{Layout, Relation, RelationKind};
use crate::plan::RuleId;

use super::super::basis::{Against, Reason};
use super::super::cost;
use super::{forced_rules, Choice, Ineligible, Rejection};

/// Replaces the engine's choice, which does not fit in a document (`x`), by the cheapest
/// alternative the rules accept that fits; without one, by the layout that moves the children
/// into documents of their own (a reference on each child, or a link collection); without that,
/// by the cheapest that fits. When nothing fits the choice stands, and the size warning says so.
pub(super) fn refit(
    choice: &mut Choice,
    rel: &Relation,
    costed: &[(cost::Alternative, bool, cost::Estimate)],
    ineligible: &[Ineligible],
    x: &Ineligible,
) {
    // `costed` marks the alternatives the rules accept and that fit.
    let fits = |a: &cost::Alternative| !ineligible.iter().any(|i| i.alt == *a);
    let cheapest = |accepted_only: bool| {
        costed
            .iter()
            .filter(|(a, ok, _)| fits(a) && (*ok || !accepted_only))
            .min_by(|a, b| a.2.micros().total_cmp(&b.2.micros()))
            .map(|(a, _, _)| *a)
    };
    let own = match rel.kind {
        RelationKind::ManyToMany => Layout::LinkCollection,
        _ => Layout::ChildRef,
    };
    let Some(best) = cheapest(true)
        .or_else(|| {
            costed
                .iter()
                .find(|(a, _, _)| a.layout == own && fits(a))
                .map(|(a, _, _)| *a)
        })
        .or_else(|| cheapest(false))
    else {
        return;
    };
    let engine = choice.strategy;
    choice.rejected.retain(|r| r.strategy != Some(best.layout));
    choice.reason = Reason::TooLarge {
        layout: best.layout,
        engine,
        document: x.document.clone(),
        base: Box::new(choice.reason.clone()),
    };
    let mut rules = forced_rules(best.layout);
    rules.push(RuleId::DocumentSize);
    choice.rules = rules;
    choice.strategy = best.layout;
    choice.bucket_size = best.bucket_size;
    choice.outlier_cap = None;
}

/// Whether the engine's choice keeps the children's ids in the parent.
pub(super) fn holds_ids(alt: cost::Alternative) -> bool {
    matches!(
        alt.layout,
        Layout::ParentRefs | Layout::OneWay | Layout::TwoWay
    )
}

/// Whether the rules leave `layout` open: the engine rejected it only for a preference the
/// workload can outweigh (a bucket against a document per child, embedding against a second
/// read), never for a bound, growth, a read on its own or a navigation the layout cannot serve.
/// A reference on each child against an id array in the parent is open only where the parent's
/// own queries list parents, which carry the array unread (`Workload::parent_reads`): the rules
/// prefer the array otherwise, and the cost model's near-ties do not overturn seed 004.
/// A document per child against the buckets of a series without bound is open only where the
/// reads are declared too (`series_weighed`).
pub(super) fn accepted_by_rules(choice: &Choice, layout: Layout, w: &cost::Workload) -> bool {
    choice.rejected.iter().any(|r| {
        r.strategy == Some(layout)
            && match r.against {
                Against::DocumentPerChild { .. } => series_weighed(choice, w),
                Against::ChildCollection { .. }
                | Against::ReferencesBuyNothing { .. }
                | Against::UsualFewInline { .. }
                | Against::SecondRead { .. } => true,
                Against::ArrayServesParent { .. } => w.parent_reads > 0.0,
                _ => false,
            }
    })
}

/// Whether the workload may weigh a document per child against the rules' buckets. Always for
/// children read a page at a time, or a series with a bound; for a series without bound (a
/// time range over children added for ever: seed 002's IoT readings) only when the reads are
/// declared (a query's rate), not only the growth's. The estimate prices server time, not the
/// index a document per reading keeps for ever, which is what seed 002 buckets for ("reduces
/// index sizes up to 200X", "reduced RAM requirements"); and with the reads at their default
/// rate, a declared growth rate alone outweighs them by construction (`growth ... rate 10/s`
/// against one read a second), turning every busy series into a document per reading.
fn series_weighed(choice: &Choice, w: &cost::Workload) -> bool {
    let endless = matches!(choice.reason, Reason::Series { max: None, .. });
    !endless || w.declared
}

/// Among the alternatives the rules accept, the cheapest under the workload wins; the engine's
/// own choice keeps a tie. A different winner becomes the choice, the engine's a rejection.
pub(super) fn choose_by_cost(
    choice: &mut Choice,
    costed: &[(cost::Alternative, bool, cost::Estimate)],
) {
    let Some((engine, _, engine_cost)) = costed.first().copied() else {
        return;
    };
    let best =
        costed
            .iter()
            .filter(|(_, ok, _)| *ok)
            .fold((engine, engine_cost), |best, (a, _, e)| {
                if e.micros() < best.1.micros() {
                    (*a, *e)
                } else {
                    best
                }
            });
    if best.0 == engine || engine_cost.micros() <= 0.0 {
        return;
    }
    let layout = best.0.layout;
    let percent = (best.1.micros() / engine_cost.micros() * 100.0).round() as u64;
    let back = (engine_cost.micros() / best.1.micros() * 100.0).round() as u64;
    choice.rejected.retain(|r| r.strategy != Some(layout));
    choice.rejected.insert(
        0,
        Rejection {
            strategy: Some(engine.layout),
            rules: vec![RuleId::Rule6],
            against: Against::Costlier {
                chosen: layout,
                percent: back,
            },
        },
    );
    choice.reason = Reason::Cheaper {
        layout,
        engine: engine.layout,
        percent,
        base: Box::new(choice.reason.clone()),
    };
    let mut rules = forced_rules(layout);
    rules.push(RuleId::Rule6);
    choice.rules = rules;
    choice.strategy = layout;
    choice.bucket_size = best.0.bucket_size;
    choice.outlier_cap = None;
}
