//! Where every copy lives once the collections are final, and the update that keeps each in step
//! (rule 5). A copy is made once, on the reference that carries it, but that reference may end
//! up in many places: the child's own collection, inside a parent that embeds the child (in a
//! subdocument, an array, an array inside an array), inside buckets of children, and inside the
//! parent's subset or top-N copies of the child. Each place gets its own [`Denormalized`] with a
//! fan-out that the server accepts there: one filtered positional operator per array on the way.

use std::collections::{HashMap, HashSet};

use crate::plan::{
    Collection, CollectionRole, Decision, Denormalized, FanOut, FieldKind, PlanField,
};

/// One place holding a copy: the collection and the fields from its top level down to the copy.
struct Site<'c> {
    collection: &'c str,
    /// The reference field holding the copy, and every field above it, outermost first.
    chain: Vec<&'c PlanField>,
    /// The copy itself.
    copy: &'c PlanField,
}

/// Replaces every decision's copies by one per place they really live, and points the
/// obligations that name a copy (`Obligation::FanOut`) at all of its places.
pub(crate) fn place(
    decisions: &mut [Decision],
    bases: &mut [super::Basis],
    collections: &[Collection],
) {
    let index = References::of(collections);
    for (d, basis) in decisions.iter_mut().zip(bases.iter_mut()) {
        let originals = std::mem::take(&mut d.denormalized);
        let mut placed: Vec<Denormalized> = Vec::new();
        let mut moved: Vec<Vec<usize>> = Vec::new();
        for x in originals {
            let name = x.copy_path.rsplit('.').next().unwrap_or(&x.copy_path);
            let sites = index.sites(&d.id, &x.source, name);
            let mut indices = Vec::new();
            if sites.is_empty() {
                indices.push(placed.len());
                placed.push(x.clone());
            }
            for site in sites {
                indices.push(placed.len());
                placed.push(Denormalized {
                    collection: site.collection.to_owned(),
                    copy_path: copy_path(&site),
                    fan_out: fan_out(&site),
                    ..x.clone()
                });
            }
            moved.push(indices);
        }
        d.denormalized = placed;
        let obligations = std::mem::take(&mut basis.obligations);
        for o in obligations {
            match o {
                super::basis::Obligation::FanOut(i) => basis.obligations.extend(
                    moved
                        .get(i)
                        .into_iter()
                        .flatten()
                        .map(|j| super::basis::Obligation::FanOut(*j)),
                ),
                other => basis.obligations.push(other),
            }
        }
    }
}

/// A reference field and where it is: its collection and the fields from the top level down to
/// it (the reference last).
struct Holder<'c> {
    collection: &'c str,
    chain: Vec<&'c PlanField>,
}

/// Every reference of the final collections, found in one walk: by the relationship that made
/// it, and, for the references that subsets and top-N lists keep in their elements, by the
/// entity the list copies and the reference's name. Looking a copy's places up here keeps
/// placing linear in the size of the schema.
struct References<'c> {
    /// The entity of each entity collection, by collection name.
    entities: HashMap<&'c str, &'c str>,
    by_relation: HashMap<&'c str, Vec<Holder<'c>>>,
    /// (entity copied by the list, reference name) -> the references in its elements, each
    /// with its position in the walk so that places come out in collection order.
    in_lists: HashMap<(&'c str, &'c str), Vec<(usize, Holder<'c>)>>,
}

impl<'c> References<'c> {
    fn of(collections: &'c [Collection]) -> Self {
        let mut by_relation: HashMap<&str, Vec<Holder<'c>>> = HashMap::new();
        let mut in_lists: HashMap<(&str, &str), Vec<(usize, Holder<'c>)>> = HashMap::new();
        let mut order = 0;
        for c in collections {
            walk(&c.fields, &mut Vec::new(), &mut |chain, f| {
                if !matches!(f.kind, FieldKind::Ref | FieldKind::RefArray) {
                    return;
                }
                let holder = || Holder {
                    collection: &c.name,
                    chain: chain.to_vec(),
                };
                if let Some(relation) = f.relation.as_deref() {
                    by_relation.entry(relation).or_default().push(holder());
                    return;
                }
                let [.., list, _] = chain else { return };
                let is_list = matches!(list.kind, FieldKind::Denormalized | FieldKind::Computed)
                    && list.relation.is_some();
                if let (true, Some(entity)) = (is_list, list.source.as_deref()) {
                    order += 1;
                    in_lists
                        .entry((entity, f.name.as_str()))
                        .or_default()
                        .push((order, holder()));
                }
            });
        }
        let entities = collections
            .iter()
            .filter(|c| c.role == CollectionRole::Entity)
            .map(|c| (c.name.as_str(), c.entity.as_str()))
            .collect();
        References {
            entities,
            by_relation,
            in_lists,
        }
    }

    /// Every place holding the copy named `name` of `source` made on relationship `relation`:
    /// the references of that relationship (wherever their holder is stored), and the copies of
    /// those references that subsets and top-N lists keep of the holder.
    fn sites(&self, relation: &str, source: &str, name: &str) -> Vec<Site<'c>> {
        let site = |h: &Holder<'c>| {
            let f = h.chain.last()?;
            Some(Site {
                collection: h.collection,
                chain: h.chain.clone(),
                copy: copy_in(f, source, name)?,
            })
        };
        let mut out: Vec<Site<'c>> = self
            .by_relation
            .get(relation)
            .into_iter()
            .flatten()
            .filter_map(site)
            .collect();
        // A subset or top-N copy of the holder keeps the reference (`keep user`) as the holder
        // stores it at its top level: with the same copies, in each kept element.
        let mut kept: Vec<(usize, Site<'c>)> = Vec::new();
        let mut seen = HashSet::new();
        for s in out.iter().filter(|s| s.chain.len() == 1) {
            let Some(entity) = self.entities.get(s.collection) else {
                continue;
            };
            let key = (*entity, s.chain[0].name.as_str());
            if !seen.insert(key) {
                continue;
            }
            for (order, h) in self.in_lists.get(&key).into_iter().flatten() {
                if let Some(s) = site(h) {
                    kept.push((*order, s));
                }
            }
        }
        kept.sort_by_key(|(order, _)| *order);
        out.extend(kept.into_iter().map(|(_, s)| s));
        out
    }
}

/// The copy named `name` of `source` that reference `f` carries.
fn copy_in<'c>(f: &'c PlanField, source: &str, name: &str) -> Option<&'c PlanField> {
    if !matches!(f.kind, FieldKind::Ref | FieldKind::RefArray) {
        return None;
    }
    f.children.iter().find(|x| {
        x.kind == FieldKind::Denormalized && x.name == name && x.source.as_deref() == Some(source)
    })
}

/// Calls `visit(chain, field)` on every field, `chain` ending with the field itself.
fn walk<'c>(
    fields: &'c [PlanField],
    chain: &mut Vec<&'c PlanField>,
    visit: &mut dyn FnMut(&[&'c PlanField], &'c PlanField),
) {
    for f in fields {
        chain.push(f);
        visit(chain, f);
        if !f.recursive {
            walk(&f.children, chain, visit);
        }
        chain.pop();
    }
}

/// The copy's dotted path in its collection's documents (arrays implicit).
fn copy_path(site: &Site<'_>) -> String {
    let mut names: Vec<&str> = site.chain.iter().map(|f| f.name.as_str()).collect();
    names.push(&site.copy.name);
    names.join(".")
}

/// The update of the copies at `site`: matched on the reference's `id`, set through one
/// `$[elemN]` per array on the way, each filtered on the `id` inside its element.
fn fan_out(site: &Site<'_>) -> FanOut {
    let mut set = String::new();
    let mut arrays: Vec<(String, usize)> = Vec::new();
    for (i, f) in site.chain.iter().enumerate() {
        if !set.is_empty() {
            set.push('.');
        }
        set.push_str(&f.name);
        for _ in 0..f.array_depth {
            let ident = FanOut::identifier(arrays.len());
            set.push_str(&format!(".$[{ident}]"));
            arrays.push((ident, i));
        }
    }
    let names: Vec<&str> = site.chain.iter().map(|f| f.name.as_str()).collect();
    let array_filters = arrays
        .iter()
        .map(|(ident, i)| {
            let mut inside: Vec<&str> = vec![ident];
            inside.extend(names.iter().skip(i + 1));
            inside.push("id");
            inside.join(".")
        })
        .collect();
    FanOut {
        collection: site.collection.to_owned(),
        match_path: format!("{}.id", names.join(".")),
        set_path: format!("{set}.{}", site.copy.name),
        array_filters,
    }
}
