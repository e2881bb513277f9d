//! W135: a `page` that holds every child a parent can have.

use crate::model::{Relation, RelationKind};
use crate::plan::{Decision, RuleId, Severity};
use crate::prose::{n_of, plural};

use super::{codes, Emit};

/// `page N` on children of which a parent has at most N: one page is the whole list, so the
/// page is no reason to bucket them or to keep them out of the parent (`relation::pages`); the
/// layout is decided as without it.
pub(crate) fn whole_page(e: &mut Emit<'_, '_>, rel: &Relation, d: &Decision) {
    if rel.kind != RelationKind::OneToMany {
        return;
    }
    let Some(page) = &rel.facts.page else {
        return;
    };
    let Some(max) = rel.parent().cardinality.max(e.ctx.settings) else {
        return;
    };
    if page.size < max {
        return;
    }
    e.warn(
        codes::WHOLE_PAGE,
        Severity::Info,
        RuleId::Rule6,
        page.span,
        format!(
            "a page of {} holds every child: a {} has at most {}, so the page is no reason to bucket them ({} chosen as without it)",
            page.size,
            d.parent,
            n_of(max, &d.child),
            d.strategy.as_str()
        ),
        Some(format!(
            "drop `page {}`, or state the bound of {} a parent really reaches: pages smaller than it are read one at a time",
            page.size,
            plural(&d.child)
        )),
        None,
        Some(&d.id),
    );
}
