//! Link collections read as what they hold: a many-to-many relation between the two referenced
//! entities, each document one pair, its other fields the relation's fields.

use super::*;

impl Assembly<'_> {
    /// One relation per link collection, counted from both references.
    pub(super) fn link_collections(&mut self) {
        let f = self.f;
        for l in f.link_collections {
            let (lr, rr) = (&f.refs[l.left], &f.refs[l.right]);
            let (Some(&left), Some(&right)) =
                (self.roots.get(&lr.target), self.roots.get(&rr.target))
            else {
                continue;
            };
            let root = Loc::root();
            self.consume(l.coll, &root, &lr.field);
            self.consume(l.coll, &root, &rr.field);
            let coll_name = self.sample(l.coll).name.clone();
            // The relation's fields, declared as an entity's would be, on a stand-in entity.
            let stand_in = self.new_entity(String::new(), l.coll, root.clone(), None);
            self.describe(stand_in);
            let mut fields = Vec::new();
            if stand_in + 1 == self.entities.len() {
                if let Some(ent) = self.entities.pop() {
                    let id_name = ent.names.get("_id").cloned();
                    fields = ent
                        .decl
                        .fields
                        .into_iter()
                        .filter(|d| Some(&d.name) != id_name.as_ref())
                        .collect();
                }
            }
            let left_name = self.entities[left].decl.name.clone();
            let right_name = self.entities[right].decl.name.clone();
            // `user_groups` holding a user and a group: `User.groups`; else the other side's name.
            let stem = snake(&singular(&snake(&self.sample(lr.target).name)));
            let left_end = coll_name
                .strip_prefix(&format!("{stem}_"))
                .filter(|rest| !rest.is_empty())
                .map_or_else(|| plural(&snake(&right_name)), str::to_owned);
            let left_end = self.entities[left].namer.unique(&field_name(&left_end));
            let right_end = self.entities[right]
                .namer
                .unique(&plural(&snake(&left_name)));
            let here = |r: &Reference| format!("{coll_name}.{}", r.field);
            let mut facts = Vec::new();
            if !fields.is_empty() {
                facts.push(Fact {
                    comments: vec![format!(
                        "measured: the fields of each {coll_name} document besides the pair"
                    )],
                    kind: FactKind::Fields(fields),
                });
            }
            let measure = |r: &Reference| Measure::PerTarget {
                coll: l.coll,
                place: root.clone(),
                path: r.field.clone(),
                target: r.target,
            };
            self.pending.push(Pending {
                link: Link {
                    kind: LinkKind::LinkCollection,
                    left: (left, left_end),
                    right: (right, right_end),
                    left_measure: measure(lr),
                    right_measure: measure(rr),
                    facts,
                    comments: vec![
                        format!(
                            "{coll_name} holds one document per pair of {} and {} (a link collection: unique index {})",
                            names::a(&left_name),
                            names::a(&right_name),
                            l.index
                        ),
                        format!("{}: {}", here(lr), self.found(l.left)),
                        format!("{}: {}", here(rr), self.found(l.right)),
                    ],
                    refs: vec![l.left, l.right],
                },
                wanted: None,
            });
        }
    }
}
