//! W131: a parent keeps lists (`latest`, `top`) or summaries of children that another
//! relationship stores as elements of its own documents (embedded, or bucketed): the generated
//! repositories keep a parent's lists and summaries from the writes of children in their own
//! collection, or from the appends to the parent's own array or buckets, and these children are
//! written through neither.

use crate::model::{Layout, Relation, RelationKind};
use crate::plan::{CollectionRole, Decision, RuleId, Severity};
use crate::prose::kept_elsewhere::{help, message, KeptElsewhere};

use super::{codes, Emit};

/// W131 at `rel` when its parent keeps something of children stored inside another entity's
/// documents.
pub(crate) fn kept_elsewhere(
    e: &mut Emit<'_, '_>,
    rel: &Relation,
    d: &Decision,
    decisions: &[Decision],
    collections: &[crate::plan::Collection],
) {
    if rel.kind == RelationKind::ManyToMany || matches!(d.strategy, Layout::Embed | Layout::Bucket)
    {
        return;
    }
    let mut kept: Vec<String> = d.subset.iter().map(|s| s.path.clone()).collect();
    kept.extend(d.computed.iter().map(|c| c.path.clone()));
    kept.dedup();
    if kept.is_empty() {
        return;
    }
    let own = collections
        .iter()
        .any(|c| c.role == CollectionRole::Entity && c.entity == d.child);
    if own {
        return;
    }
    let Some(holder) = decisions.iter().find(|h| {
        h.id != d.id
            && h.child == d.child
            && h.parent != d.child
            && matches!(h.strategy, Layout::Embed | Layout::Bucket)
    }) else {
        return;
    };
    let k = KeptElsewhere {
        relation: &d.id,
        parent: &d.parent,
        child: &d.child,
        kept,
        holder_relation: &holder.id,
        holder_layout: holder.strategy.as_str(),
        holder: &holder.parent,
    };
    e.warn(
        codes::KEPT_ELSEWHERE,
        Severity::Warning,
        RuleId::Computed,
        rel.span,
        message(&k),
        Some(help(&k)),
        None,
        Some(&d.id),
    );
}
