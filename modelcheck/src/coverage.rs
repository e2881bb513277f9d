//! What a batch covers, counted from the Plans of its schemas and the calls the harness made:
//! every layout family, modifier, field feature at every placement, pattern and declared query
//! of issue 11's cross product is a row, with the schemas whose Plan has it and the repository
//! calls made on the collections that hold it. The batch test writes the table into
//! `docs/testing.md` and fails when a required row drops to zero ([`Table::empty_rows`]).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use squillion_codegen::plan::{Collection, CollectionRole, ComputedFn, FieldKind, Plan, PlanField};

/// Where a field sits in its document.
const PLACEMENTS: [&str; 5] = [
    "top level",
    "subdocument",
    "array of subdocuments",
    "nested arrays",
    "bucket",
];

/// The field features of the cross product.
const FEATURES: [&str; 9] = [
    "@unique", "@index", "@expires", "counters", "map", "optional", "variant", "@stored", "@key",
];

/// Rows about relationships, patterns and queries, in the table's order.
/// (Rows counted by a method name count only calls of that method; the others count every call
/// on the collections holding them.)
const RELATION_ROWS: [&str; 27] = [
    "layout embed",
    "layout parent_refs",
    "layout child_ref",
    "layout two_way",
    "layout one_way",
    "layout bucket",
    "bucket append",
    "layout link_collection",
    "link collection link",
    "embedding cycle",
    "copy (show)",
    "copy in an array (arrayFilters)",
    "subset (latest N)",
    "top-N",
    "summary",
    "summary, with removals",
    "outlier",
    "pattern tree",
    "pattern queue",
    "pattern versioning",
    "pattern schema_version",
    "pattern polymorphic",
    "declared query",
    "@unique in an array",
    "element inc, embedded child",
    "element inc, order line",
    "element guarded dec",
];

/// Rows the harness does not drive with operations yet (their schemas are generated, compiled
/// and set up, and their documents checked, but no call is made on what the row names). The
/// batch test requires calls on every other row.
pub const NOT_DRIVEN: [&str; 1] = ["outlier"];

/// Rows the CI slice may lack: the engine seldom chooses an outlier for a generated relation
/// (none in the CI slice's 50 schemas).
pub const MAY_LACK: [&str; 1] = ["outlier"];

/// The coverage of one schema: its rows and, per row, the collections that hold it.
#[derive(Debug, Clone, Default)]
pub struct SchemaCoverage {
    /// Row name to the collections (and for `summary, with removals`, the methods) it counts.
    pub rows: BTreeMap<String, BTreeSet<String>>,
}

impl SchemaCoverage {
    fn add(&mut self, row: impl Into<String>, collection: &str) {
        self.rows
            .entry(row.into())
            .or_default()
            .insert(collection.to_owned());
    }
}

/// Every row, in the table's order.
pub fn all_rows() -> Vec<String> {
    let mut rows: Vec<String> = RELATION_ROWS.iter().map(|r| (*r).to_owned()).collect();
    for f in FEATURES {
        for p in PLACEMENTS {
            rows.push(format!("{f} at {p}"));
        }
    }
    rows
}

/// `<bucket collection>.append_<f>`, the method of the bucket collection's repository that adds
/// a child of `d`, when `d` is bucketed.
fn append_method(plan: &Plan, d: &squillion_codegen::plan::Decision) -> Option<String> {
    let b = d.bucket.as_ref()?;
    let f = plan
        .collection(&b.collection)
        .and_then(|c| c.field(&b.items_path))?;
    Some(format!("{}.append_{}", b.collection, f.code_name))
}

/// Which rows `plan` has, and where.
pub fn of_plan(plan: &Plan) -> SchemaCoverage {
    let mut cov = SchemaCoverage::default();
    for d in &plan.relationships {
        let holders: BTreeSet<&str> = d.placement.iter().map(|p| p.collection.as_str()).collect();
        for h in &holders {
            cov.add(format!("layout {}", d.strategy.as_str()), h);
        }
        if d.parent == d.child && d.strategy.as_str() == "embed" {
            // Driven by the pushes of whole documents of the holder's own type.
            for p in &d.placement {
                let code = plan
                    .collection(&p.collection)
                    .and_then(|col| col.field(&p.path))
                    .map_or_else(|| p.path.clone(), |f| f.code_name.clone());
                cov.add("embedding cycle", &format!("{}.push_{code}", p.collection));
            }
        }
        for x in &d.denormalized {
            cov.add("copy (show)", &x.collection);
            cov.add("copy (show)", &x.fan_out.collection);
            if !x.fan_out.array_filters.is_empty() {
                cov.add("copy in an array (arrayFilters)", &x.fan_out.collection);
            }
            if x.fan_out.array_filters.len() > 1 {
                cov.add("copy in a nested array", &x.fan_out.collection);
            }
        }
        // A subset or top-N list refilled from its children is written through
        // `push_`/`replace_`/`remove_` of its parent (every list of the relationship at once).
        let refilled = crate::subsets::all(plan)
            .into_iter()
            .find(|x| x.d.id == d.id)
            .map(|x| {
                ["push", "replace", "remove"].map(|m| format!("{}.{m}_{}", x.parent.name, x.method))
            });
        if let Some(s) = &d.subset {
            match (&s.children, &refilled) {
                (Some(_), Some(methods)) => {
                    for m in methods {
                        cov.add("subset (latest N)", m);
                    }
                }
                // Bucketed children: the bucket's appends push the copies (an outlier's pushes
                // are not driven yet).
                _ if d.copies_kept_by_layout() => {
                    if let Some(m) = append_method(plan, d) {
                        cov.add("subset (latest N)", &m);
                    }
                }
                _ => cov.add(
                    "subset (latest N)",
                    &format!("{}.push_{}", s.collection, s.path),
                ),
            }
        }
        if let Some(m) = append_method(plan, d) {
            cov.add("bucket append", &m);
        }
        for c in plan
            .collections
            .iter()
            .filter(|c| matches!(&c.role, CollectionRole::Link { relation } if *relation == d.id))
        {
            cov.add("link collection link", &format!("{}.link", c.name));
        }
        for c in &d.computed {
            match &c.function {
                ComputedFn::TopN { children, .. } => match (children, &refilled) {
                    (Some(_), Some(methods)) => {
                        for m in methods {
                            cov.add("top-N", m);
                        }
                    }
                    _ => {
                        let code = plan
                            .collection(&c.collection)
                            .and_then(|col| col.field(&c.path))
                            .map_or_else(|| c.path.clone(), |f| f.code_name.clone());
                        cov.add("top-N", &format!("{}.offer_{code}", c.collection));
                    }
                },
                ComputedFn::Summary { .. } | ComputedFn::Average { .. } => {
                    cov.add("summary", &c.collection);
                    // Removals from the array the summary counts: `remove_<array>` calls.
                    for p in d.placement.iter().filter(|p| p.collection == c.collection) {
                        if let Some(f) = plan
                            .collection(&p.collection)
                            .and_then(|col| col.field(&p.path))
                        {
                            cov.add(
                                "summary, with removals",
                                &format!("{}.remove_{}", p.collection, f.code_name),
                            );
                        }
                    }
                }
            }
        }
        if let Some(o) = &d.outlier {
            let code = plan
                .collection(&o.collection)
                .and_then(|col| col.field(&o.path))
                .map_or_else(|| o.path.clone(), |f| f.code_name.clone());
            cov.add("outlier", &format!("{}.push_{code}", o.collection));
        }
    }
    // Embedding cycles between entities: an entity embedded (at any depth) in itself, driven by
    // the pushes of whole documents into its top-level arrays of itself.
    for c in &plan.collections {
        if c.role == CollectionRole::Entity && nests_itself(&c.fields, &mut Vec::new()) {
            for f in c.fields.iter().filter(|f| f.recursive && f.array_depth > 0) {
                cov.add(
                    "embedding cycle",
                    &format!("{}.push_{}", c.name, f.code_name),
                );
            }
        }
    }
    for c in &plan.collections {
        for p in &c.patterns {
            let row = match p.name.as_str() {
                "tree" => "pattern tree",
                "queue" => "pattern queue",
                "document_versioning" => "pattern versioning",
                "schema_versioning" => "pattern schema_version",
                "polymorphic" => "pattern polymorphic",
                _ => continue,
            };
            cov.add(row, &c.name);
        }
        if c.role == CollectionRole::Entity && c.id.natural_key.is_some() {
            cov.add("@key at top level", &c.name);
        }
        let bucket = matches!(c.role, CollectionRole::Bucket { .. });
        fields(c, &c.fields, bucket, 0, 0, &mut cov);
    }
    for q in &plan.queries {
        cov.add("declared query", &format!("{}.{}", q.collection, q.name));
    }
    // Numbers of one element of a keyed array: the calls of `inc_<array>_<n>` and of the
    // counters' `dec_<array>_<n>`.
    for c in plan
        .collections
        .iter()
        .filter(|c| c.role == CollectionRole::Entity)
    {
        for k in crate::elements::keyed(c) {
            let row = if k.array.kind == FieldKind::RefArray {
                "element inc, order line"
            } else {
                "element inc, embedded child"
            };
            for n in &k.numbers {
                let (inc, dec) = crate::elements::method_names(k.array, n);
                cov.add(row, &format!("{}.{inc}", c.name));
                if n.flags.counter {
                    cov.add("element guarded dec", &format!("{}.{dec}", c.name));
                }
            }
        }
    }
    cov
}

fn nests_itself(fields: &[PlanField], path: &mut Vec<String>) -> bool {
    fields.iter().any(|f| {
        if f.kind != FieldKind::Embedded {
            return false;
        }
        if f.recursive {
            return true;
        }
        match &f.type_name {
            Some(t) if path.contains(t) => true,
            Some(t) => {
                path.push(t.clone());
                let found = nests_itself(&f.children, path);
                path.pop();
                found
            }
            None => nests_itself(&f.children, path),
        }
    })
}

/// Rows of the field features of `fs`, at `depth` subdocuments below the top level and under
/// `arrays` array levels.
fn fields(
    c: &Collection,
    fs: &[PlanField],
    bucket: bool,
    depth: usize,
    arrays: usize,
    cov: &mut SchemaCoverage,
) {
    for f in fs {
        let placement = if bucket {
            "bucket"
        } else if arrays >= 2 {
            "nested arrays"
        } else if arrays == 1 {
            "array of subdocuments"
        } else if depth > 0 {
            "subdocument"
        } else {
            "top level"
        };
        let counters = f.kind == FieldKind::Pattern && f.array_depth > 0 && f.bson_type == "long";
        let features = [
            ("@unique", f.flags.unique),
            ("@index", f.flags.indexed && !f.flags.unique),
            ("@expires", f.flags.expire_after_seconds.is_some()),
            ("counters", counters),
            ("map", f.map),
            ("optional", f.optional),
            ("variant", f.variant.is_some()),
            (
                "@stored",
                f.name != f.code_name && f.kind != FieldKind::Pattern,
            ),
        ];
        for (name, has) in features {
            if has {
                cov.add(format!("{name} at {placement}"), &c.name);
            }
        }
        if arrays > 0 && f.flags.unique {
            cov.add("@unique in an array", &c.name);
        }
        if f.children.is_empty() {
            continue;
        }
        let below = arrays + usize::from(f.array_depth);
        fields(c, &f.children, bucket, depth + 1, below, cov);
    }
}

/// The table of a batch: per row, how many schemas have it and how many calls were made on the
/// collections holding it (`calls[schema][(collection, method)]`).
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// Row to (schemas, calls).
    pub rows: BTreeMap<String, (u64, u64)>,
}

impl Table {
    /// Adds one schema's coverage and the calls made on it.
    pub fn add(&mut self, cov: &SchemaCoverage, calls: &BTreeMap<(String, String), u64>) {
        for (row, holders) in &cov.rows {
            let made: u64 = calls
                .iter()
                .filter(|((collection, method), _)| {
                    holders.contains(collection)
                        || holders.contains(&format!("{collection}.{method}"))
                })
                .map(|(_, n)| *n)
                .sum();
            let e = self.rows.entry(row.clone()).or_default();
            e.0 += 1;
            e.1 += made;
        }
    }

    /// The rows the batch must have that it lacks: every layout, modifier, pattern and query
    /// row and every field feature at the top level, with a schema and (rows the harness drives)
    /// a call. Other placements are counted, not required: the language keeps some features at
    /// the top level (`@key`, `@expires` of an entity with its own collection).
    pub fn empty_rows(&self) -> Vec<String> {
        RELATION_ROWS
            .iter()
            .filter(|r| !MAY_LACK.contains(r))
            .map(|r| (*r).to_owned())
            .chain(FEATURES.iter().map(|f| format!("{f} at top level")))
            .filter(|row| {
                let (schemas, calls) = self.rows.get(row).copied().unwrap_or_default();
                schemas == 0 || (calls == 0 && !NOT_DRIVEN.contains(&row.as_str()))
            })
            .collect()
    }

    /// The table as Markdown: relations, patterns and queries; then features by placement.
    pub fn markdown(&self) -> String {
        let cell = |row: &str| {
            let (s, c) = self.rows.get(row).copied().unwrap_or_default();
            let driven = if NOT_DRIVEN.contains(&row) {
                " (not driven)"
            } else {
                ""
            };
            format!("{s} / {c}{driven}")
        };
        let mut out = String::from("| layout, modifier, pattern | schemas / calls |\n|---|---|\n");
        for row in RELATION_ROWS {
            let _ = writeln!(out, "| {row} | {} |", cell(row));
        }
        out.push_str("\n| field feature |");
        for p in PLACEMENTS {
            let _ = write!(out, " {p} |");
        }
        out.push_str("\n|---|");
        for _ in PLACEMENTS {
            out.push_str("---|");
        }
        out.push('\n');
        for f in FEATURES {
            let _ = write!(out, "| {f} |");
            for p in PLACEMENTS {
                let _ = write!(out, " {} |", cell(&format!("{f} at {p}")));
            }
            out.push('\n');
        }
        out
    }
}
