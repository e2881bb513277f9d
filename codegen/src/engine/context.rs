//! What every engine module reads: the model, the thresholds, and facts derived once.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use squillion_grammar::{SourceFile, Span};

use crate::model::{Entity, Layout, Model, Query, Relation, RelationKind, Settings};
use crate::plan::{SourcePosition, Warning};

/// A relation whose child end is `one?`: its children may have no parent there.
struct Orphan {
    relation: String,
    /// `Book.author`.
    end: String,
    parent: String,
    /// The parent is the child's own kind (a tree's root has no parent).
    own_kind: bool,
}

/// The engine's view of one model.
pub(crate) struct Ctx<'a> {
    pub model: &'a Model,
    pub settings: &'a Settings,
    pub source: &'a SourceFile,
    /// Entities read on their own: declared `standalone`, queried, or carrying a pattern that
    /// needs a collection (tree, queue, versioning).
    pub standalone: BTreeSet<String>,
    /// Entities some other relationship's layout refers to by `_id` (an id array, a reference to
    /// the parent, a link): they must be documents of their own, so no relationship embeds them
    /// (rule 2). Filled by the engine between decision rounds, with the relationship and its
    /// layout that refer to each.
    pub referenced: std::cell::RefCell<BTreeMap<String, (String, Layout)>>,
    /// Entities that two or more relationships with different parents would embed (or bucket)
    /// without being forced to: embedded in each, one child would be stored twice, so each is a
    /// document of its own (rule 2 across relationships). Filled by the engine between decision
    /// rounds, with the embedding relationships and their parents.
    pub shared: std::cell::RefCell<BTreeMap<String, Vec<(String, String)>>>,
    /// How many relationship decisions were made, for [`super::Effort`].
    pub decided: std::cell::Cell<usize>,
    /// Steps taken breaking embedding cycles (entities reached and walked back through), for
    /// [`super::Effort`].
    pub walked: std::cell::Cell<usize>,
    /// Decide the slow, plain way (every relationship again in every round of the referenced
    /// fixpoint, reachability afresh for every cycle): the reference the fast way is tested
    /// against.
    pub exhaustive: bool,
    /// While [`Self::watching`]: the entities asked about whose answer the referenced set can
    /// change.
    watch: std::cell::RefCell<Option<Vec<String>>>,
    /// Entities declared `standalone` in some relation.
    declared_standalone: BTreeSet<&'a str>,
    /// Entities that may have no parent (`Book.author: one?`): every relation saying so.
    orphans: HashMap<&'a str, Vec<Orphan>>,
    /// Entities among them that always have a parent of another kind through some other
    /// relation: only the relations of their optional ends keep them out.
    homed: BTreeSet<&'a str>,
    /// Entities with a lifecycle of their own: a field of theirs is `@expires`, so their
    /// documents are deleted on their own schedule (the field and its TTL in seconds).
    expiring: HashMap<&'a str, (&'a str, u64)>,
    /// The relationships each entity is an end of, in the model's order (a relationship of an
    /// entity with itself once).
    ends_of: HashMap<&'a str, Vec<&'a Relation>>,
    // Lookup-only maps (never iterated into output): hashing keeps large schemas linear.
    entities: HashMap<&'a str, &'a Entity>,
    relations: HashMap<&'a str, &'a Relation>,
    queries_on: HashMap<&'a str, Vec<&'a Query>>,
    queries_through: HashMap<&'a str, Vec<&'a Query>>,
    /// Queries on a parent's children (`on Post.comments`), by relation id.
    children_queries: HashMap<&'a str, Vec<&'a Query>>,
    queries_by_name: HashMap<&'a str, &'a Query>,
}

impl<'a> Ctx<'a> {
    pub fn new(model: &'a Model, source: &'a SourceFile) -> Self {
        let mut standalone = BTreeSet::new();
        for r in &model.relations {
            standalone.extend(r.facts.standalone.iter().cloned());
        }
        // A query on a parent's children reads them through the parent, not on their own.
        for q in model.queries.iter().filter(|q| q.children.is_none()) {
            standalone.insert(q.entity.clone());
        }
        let mut expiring = HashMap::new();
        for e in &model.entities {
            let p = &e.patterns;
            if p.tree || p.queue.is_some() || p.versioned.is_some() {
                standalone.insert(e.name.clone());
            }
            let own = e.all_fields();
            if let Some((f, ttl)) = own
                .filter_map(|f| Some((f, f.facts.expires_after_seconds?)))
                .next()
            {
                // Rule 2: documents that expire on their own schedule are used on their own;
                // embedded, their TTL index would delete the document that holds them.
                standalone.insert(e.name.clone());
                expiring.insert(e.name.as_str(), (f.name.as_str(), ttl));
            }
        }
        // A child whose end is `one?` may have no parent: embedded in that parent, a child
        // without it would have nowhere to be. It keeps documents of its own unless another
        // parent, one it always has (`one`, not the entity itself), can hold it.
        let mut orphans: HashMap<&str, Vec<Orphan>> = HashMap::new();
        let mut homed = BTreeSet::new();
        for r in model
            .relations
            .iter()
            .filter(|r| r.kind != RelationKind::ManyToMany)
        {
            let (child, parent) = (r.child(), r.parent());
            if child.cardinality.optional {
                orphans
                    .entry(child.entity.as_str())
                    .or_default()
                    .push(Orphan {
                        relation: r.id.clone(),
                        end: format!("{}.{}", child.entity, child.field),
                        parent: parent.entity.clone(),
                        own_kind: parent.entity == child.entity,
                    });
            } else if parent.entity != child.entity {
                homed.insert(child.entity.as_str());
            }
        }
        for (entity, list) in &orphans {
            if !homed.contains(entity) || list.iter().any(|o| o.own_kind) {
                standalone.insert((*entity).to_owned());
            }
        }
        let declared_standalone = model
            .relations
            .iter()
            .flat_map(|r| r.facts.standalone.iter().map(String::as_str))
            .collect();
        let mut queries_on: HashMap<&str, Vec<&Query>> = HashMap::new();
        let mut queries_through: HashMap<&str, Vec<&Query>> = HashMap::new();
        let mut children_queries: HashMap<&str, Vec<&Query>> = HashMap::new();
        // The relation whose end an entity's field is (`Message.channel`): a query filtering on
        // that end itself (`where channel == ?`) finds the children by their parent as much as
        // one through a parent's field (`channel.name == ?`).
        let mut ends: HashMap<(&str, &str), &str> = HashMap::new();
        for r in &model.relations {
            for end in [&r.left, &r.right] {
                ends.insert((end.entity.as_str(), end.field.as_str()), r.id.as_str());
            }
        }
        for q in &model.queries {
            if let Some(of) = &q.children {
                children_queries
                    .entry(of.relation.as_str())
                    .or_default()
                    .push(q);
                continue;
            }
            queries_on.entry(q.entity.as_str()).or_default().push(q);
            let paths = q
                .conditions
                .iter()
                .map(|c| &c.path)
                .chain(q.sort.iter().map(|s| &s.path));
            let mut seen = BTreeSet::new();
            for path in paths {
                let relation = match (&path.through, path.segments.as_slice()) {
                    (Some(t), _) => Some(t.relation.as_str()),
                    (None, [end]) => ends.get(&(q.entity.as_str(), end.as_str())).copied(),
                    _ => None,
                };
                if let Some(relation) = relation {
                    if seen.insert(relation) {
                        queries_through.entry(relation).or_default().push(q);
                    }
                }
            }
        }
        let mut ends_of: HashMap<&str, Vec<&Relation>> = HashMap::new();
        for r in &model.relations {
            ends_of.entry(r.left.entity.as_str()).or_default().push(r);
            if r.right.entity != r.left.entity {
                ends_of.entry(r.right.entity.as_str()).or_default().push(r);
            }
        }
        Ctx {
            ends_of,
            model,
            settings: &model.settings,
            source,
            standalone,
            referenced: Default::default(),
            shared: Default::default(),
            decided: Default::default(),
            walked: Default::default(),
            exhaustive: false,
            watch: Default::default(),
            declared_standalone,
            orphans,
            homed,
            expiring,
            entities: model
                .entities
                .iter()
                .map(|e| (e.name.as_str(), e))
                .collect(),
            relations: model.relations.iter().map(|r| (r.id.as_str(), r)).collect(),
            queries_on,
            queries_through,
            children_queries,
            queries_by_name: model.queries.iter().map(|q| (q.name.as_str(), q)).collect(),
        }
    }

    pub fn entity(&self, name: &str) -> Option<&'a Entity> {
        self.entities.get(name).copied()
    }

    pub fn relation(&self, id: &str) -> Option<&'a Relation> {
        self.relations.get(id).copied()
    }

    /// Queries that read `entity` directly (not those on a parent's children).
    pub fn queries_on(&self, entity: &str) -> &[&'a Query] {
        self.queries_on
            .get(entity)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Queries whose paths cross relationship `id`.
    pub fn queries_through(&self, id: &str) -> &[&'a Query] {
        self.queries_through
            .get(id)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Queries on a parent's children through relationship `id` (`on Post.comments`).
    pub fn children_queries(&self, id: &str) -> &[&'a Query] {
        self.children_queries
            .get(id)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    pub fn query(&self, name: &str) -> Option<&'a Query> {
        self.queries_by_name.get(name).copied()
    }

    /// Whether the children of `rel` are fixed once loaded: `growth static`, or both ends are
    /// `@static` reference data.
    pub fn is_static(&self, rel: &Relation) -> bool {
        let read_only = |e: &str| self.entity(e).is_some_and(|e| e.patterns.read_only);
        rel.facts.fixed || (read_only(&rel.left.entity) && read_only(&rel.right.entity))
    }

    /// How many relationships `entity` is an end of.
    pub fn relations_of(&self, entity: &str) -> usize {
        self.relations_at(entity).len()
    }

    /// The relationships `entity` is an end of, in the model's order.
    pub fn relations_at(&self, entity: &str) -> &[&'a Relation] {
        self.ends_of.get(entity).map_or(&[], Vec::as_slice)
    }

    pub fn is_standalone(&self, entity: &str) -> bool {
        self.standalone.contains(entity) || {
            self.asked(entity);
            self.referenced.borrow().contains_key(entity)
                || self.shared.borrow().contains_key(entity)
        }
    }

    /// Runs `f` and returns with its result the entities it asked about whose answer depends on
    /// the referenced set (`is_standalone`, `read_alone`): what must be decided again when one
    /// of them becomes referenced.
    pub fn watching<T>(&self, f: impl FnOnce() -> T) -> (T, Vec<String>) {
        let outer = self.watch.replace(Some(Vec::new()));
        let out = f();
        let asked = self.watch.replace(outer).unwrap_or_default();
        (out, asked)
    }

    fn asked(&self, entity: &str) {
        if let Some(w) = self.watch.borrow_mut().as_mut() {
            w.push(entity.to_owned());
        }
    }

    /// [`Self::is_standalone`] as relationship `asking` sees it: a reference by `_id` that
    /// `asking` itself makes is no reason for `asking` to keep the entity out.
    pub fn is_standalone_beside(&self, entity: &str, asking: &str) -> bool {
        self.read_alone(entity, asking).is_some()
    }

    /// The field of `entity` whose date makes its documents expire, and the TTL in seconds, when
    /// it has one (`@expires`).
    pub fn expiring(&self, entity: &str) -> Option<(&'a str, u64)> {
        self.expiring.get(entity).copied()
    }

    /// Why `entity` counts as standalone, for the facts of relationship `asking`.
    pub fn read_alone(&self, entity: &str, asking: &str) -> Option<super::basis::Alone> {
        use super::basis::Alone;
        if self.declared_standalone.contains(entity) {
            return Some(Alone::Declared);
        }
        if let Some((field, ttl)) = self.expiring(entity) {
            return Some(Alone::Expires {
                field: field.to_owned(),
                ttl,
            });
        }
        if let Some(q) = self.queries_on(entity).first() {
            return Some(Alone::Query(q.name.clone()));
        }
        if let Some(list) = self.orphans.get(entity) {
            // Kept out of every parent, or only out of `asking`'s, when another parent it
            // always has can hold it.
            let homed = self.homed.contains(entity) && !list.iter().any(|o| o.own_kind);
            let this = list.iter().find(|o| o.relation == asking);
            if let Some(o) = this.or(list.first().filter(|_| !homed)) {
                return Some(Alone::NoParent {
                    end: o.end.clone(),
                    parent: o.parent.clone(),
                    homed,
                });
            }
        }
        if self.standalone.contains(entity) {
            return Some(Alone::Pattern);
        }
        self.asked(entity);
        if let Some(parents) = self.shared.borrow().get(entity) {
            return Some(Alone::Shared {
                parents: parents.clone(),
            });
        }
        self.referenced
            .borrow()
            .get(entity)
            .filter(|(relation, _)| relation != asking)
            .map(|(relation, layout)| Alone::Referenced {
                relation: relation.clone(),
                layout: *layout,
            })
    }

    pub fn position(&self, span: Span) -> SourcePosition {
        let pos = self.source.position(span.start);
        SourcePosition {
            file: self.source.name().to_owned(),
            line: pos.line,
            column: pos.column,
            start: span.start,
            end: span.end,
        }
    }
}

/// Warnings gathered while planning.
#[derive(Default)]
pub(crate) struct Warnings {
    pub list: Vec<(Span, Warning)>,
}

impl Warnings {
    pub fn push(&mut self, span: Span, warning: Warning) {
        self.list.push((span, warning));
    }
}

/// `snake_case` of a CamelCase name.
pub(crate) fn snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let chars: Vec<char> = name.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev_lower =
                i > 0 && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit());
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if i > 0 && (prev_lower || (next_lower && chars[i - 1].is_uppercase())) {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(*c);
        }
    }
    out
}

/// Formats a count with thousands separators (1000 -> "1,000").
pub(crate) fn count(n: u64) -> String {
    crate::prose::thousands(n)
}

/// A duration for prose: "30 days", "12 hours", "90 seconds".
pub(crate) fn duration_words(seconds: u64) -> String {
    let (n, unit) = match seconds {
        s if s > 0 && s % 86_400 == 0 => (s / 86_400, "day"),
        s if s > 0 && s % 3_600 == 0 => (s / 3_600, "hour"),
        s if s > 0 && s % 60 == 0 => (s / 60, "minute"),
        s => (s, "second"),
    };
    format!("{} {unit}{}", count(n), if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_names() {
        assert_eq!(snake("LogMessage"), "log_message");
        assert_eq!(snake("Book"), "book");
        assert_eq!(snake("IoTReading"), "io_t_reading");
        assert_eq!(snake("HTTPServer"), "http_server");
    }

    #[test]
    fn counts_have_separators() {
        assert_eq!(count(500000), "500,000");
        assert_eq!(count(200), "200");
        assert_eq!(count(1000), "1,000");
    }
}
