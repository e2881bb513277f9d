//! What a decision keeps beside its layout: copies and their fan-outs, subsets, buckets, computed
//! values and outliers.

use serde::Serialize;

use super::SummaryFn;

/// A copied field and what keeping it correct costs.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct Denormalized {
    /// `Entity.field` of the source.
    pub source: String,
    /// Collection holding the copies.
    pub collection: String,
    /// Path of the copy in that collection's documents.
    pub copy_path: String,
    /// Reads per update of the source (rule 5), when known.
    pub reads_per_update: Option<f64>,
    /// The source is `@immutable`: its copies never need updating.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub immutable: bool,
    /// The update that keeps copies in step when the source changes.
    pub fan_out: FanOut,
}

/// The write that propagates a change of a copied field.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct FanOut {
    /// Collection to update.
    pub collection: String,
    /// Path compared with the source document's id.
    pub match_path: String,
    /// Path set to the new value, with one filtered positional operator per array on the way
    /// (`lines.$[elem].product.name`; `lines.$[elem].parts.$[elem1].product.name` in an array of
    /// an array).
    pub set_path: String,
    /// The `arrayFilters` conditions, one per array on the way, in order: the path, inside the
    /// element, compared with the source document's id (`elem.product.id`). Empty when no array
    /// holds the copy.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub array_filters: Vec<String>,
}

impl FanOut {
    /// The identifier of the filtered positional operator of array `level` (0: outermost).
    pub fn identifier(level: usize) -> String {
        if level == 0 {
            "elem".to_owned()
        } else {
            format!("elem{level}")
        }
    }

    /// `(by, copy)`: the paths of the source's id and of the copy, with `[]` after each array
    /// (`lines[].product.id`, `lines[].product.name`): the form of the derive's
    /// `fan_out(by = .., copy = ..)`.
    pub fn marked_paths(&self) -> (String, String) {
        let mut copy = self.set_path.clone();
        for level in 0..self.array_filters.len() {
            copy = copy.replacen(&format!(".$[{}]", Self::identifier(level)), "[]", 1);
        }
        // `by` crosses the same arrays: it shares every segment of `copy` but the last.
        let arrays: Vec<usize> = copy.split('.').map(|s| s.matches("[]").count()).collect();
        let by = self
            .match_path
            .split('.')
            .enumerate()
            .map(|(i, s)| format!("{s}{}", "[]".repeat(arrays.get(i).copied().unwrap_or(0))))
            .collect::<Vec<_>>()
            .join(".");
        (by, copy)
    }
}

/// `latest N` children kept in the parent document: copies of the N children with the largest
/// `sort_by`, stored in the declared order (largest first when `descending`).
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct SubsetPlan {
    /// Collection of the parent.
    pub collection: String,
    /// Path of the array in the parent.
    pub path: String,
    /// How many are kept.
    pub n: u64,
    /// BSON name of the child field that orders them (held by every copy).
    pub sort_by: String,
    /// Stored newest (largest) first.
    pub descending: bool,
    /// The field of each copy holding the child's `_id` (`_id`): a changed child's copy is found
    /// by it, a removed child's copy leaves by it, and the application fetches the child with
    /// it. Empty when the children are elements without one (bucketed, or embedded in a parent
    /// of another entity), even if their entity has a collection of its own elsewhere: their
    /// copies are pushed by the bucket's appends or the array's pushes
    /// (`Decision::copies_kept_by_layout`).
    pub child_id: String,
    /// BSON names of the child's fields each copy holds besides [`SubsetPlan::child_id`]; never
    /// the child's reference back to this parent.
    pub keep: Vec<String>,
    /// Where the children are read from to refill the subset when one changes or goes; `None`:
    /// the layout keeps no reference to the parent in a child collection, so the subset is kept
    /// only by adding children.
    pub children: Option<SubsetChildren>,
}

/// Where the children of a subset or top-N list live, each naming its parent.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Eq, Serialize)]
pub struct SubsetChildren {
    /// The children's collection.
    pub collection: String,
    /// Path, in each child, of its parent's `_id` (`post`, `post.id` for an extended reference).
    pub parent_key: String,
}

/// Children in bounded bucket documents.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct BucketPlan {
    /// The bucket collection.
    pub collection: String,
    /// Children per bucket.
    pub size: u64,
    /// Path of the field referencing the parent.
    pub parent_path: String,
    /// Path of the array of children.
    pub items_path: String,
    /// Path of the count of children (`count < size` guards the append).
    pub count_path: String,
    /// Paths of the first/last values of the time field, for time-range reads.
    pub time_range: Option<TimeRangePaths>,
    /// The child's field that orders the children, for paged reads, by its stored (BSON) name:
    /// every append keeps its bucket's children sorted by it (`$push` with `$sort`, then `_id`).
    pub order_by: Option<String>,
    /// Pages are read newest first (`page N by f desc`): page 0 is the newest bucket (the one
    /// appends fill, so it may be short), its children largest key first.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub newest_first: bool,
    /// Why buckets: paged reads, time series, or both.
    pub purpose: BucketPurpose,
}

/// What buckets serve.
#[derive(Debug, Clone, schemars::JsonSchema, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BucketPurpose {
    /// Reading children a page at a time.
    Pages,
    /// A time series read by ranges, with summaries.
    TimeSeries,
}

/// Bucket fields holding the smallest and largest time of their children.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Eq, Serialize)]
pub struct TimeRangePaths {
    /// The child's time field, by its stored (BSON) name.
    pub field: String,
    /// Smallest value in the bucket.
    pub start_path: String,
    /// Largest value in the bucket.
    pub end_path: String,
}

/// A value maintained on write.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct Computed {
    /// Collection of the document holding it.
    pub collection: String,
    /// Its path.
    pub path: String,
    /// What it computes.
    pub function: ComputedFn,
    /// The child's field it reads, by its stored (BSON) name, as the element holds it (none for
    /// count). For an average and a top-N list, the field as declared.
    pub field: Option<String>,
}

/// A computed value's function.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
#[serde(tag = "fn", rename_all = "snake_case")]
pub enum ComputedFn {
    /// A summary (`$inc` / `$max` / `$min`).
    Summary {
        /// count, total, max, min.
        summary: SummaryFn,
    },
    /// The mean of a field (`avg`): not stored, read as the total divided by the count, both
    /// maintained on write.
    Average {
        /// Path of the total it divides.
        total_path: String,
        /// Path of the count it divides by.
        count_path: String,
    },
    /// The best N children (`$push` `$each` `$sort` `$slice N`).
    TopN {
        /// How many.
        n: u64,
        /// BSON name of the child field ranking them (held by every copy).
        sort_by: String,
        /// Largest first (else smallest first).
        descending: bool,
        /// The field of each copy holding the child's `_id` (`_id`); empty for children that are
        /// elements without one, as [`SubsetPlan::child_id`] says.
        child_id: String,
        /// BSON names of the child's fields each copy holds besides `child_id`; never the
        /// child's reference back to this parent.
        keep: Vec<String>,
        /// Where the children are read from to refill the list when one changes or goes
        /// (`None`: kept only by adding children).
        children: Option<SubsetChildren>,
    },
}

/// Usual children embedded, the rare overflow in extra documents.
#[derive(Debug, Clone, schemars::JsonSchema, PartialEq, Serialize)]
pub struct OutlierPlan {
    /// Collection of the parent.
    pub collection: String,
    /// Path of the array in the parent.
    pub path: String,
    /// Elements kept in the parent before overflowing.
    pub embedded_max: u64,
    /// Path of the flag set on parents that overflowed.
    pub flag_path: String,
    /// The collection holding overflow documents.
    pub overflow_collection: String,
    /// Typical count declared.
    pub typical: u64,
    /// Maximum count in force (`None`: unbounded).
    pub max: Option<u64>,
}
