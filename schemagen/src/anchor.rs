//! Anchors: recipes that make a batch cover what it must, whatever its seed draws.
//!
//! A batch drawn freely covers a rare row (a `@unique` field in an embedded array, a top-level
//! two-way link) only by luck: adding a feature to the generator shifts every draw, and a row the
//! model-based harness must drive can vanish from its fixed batch. [`covering_batch`] therefore
//! starts with one schema per [`Anchor`]: two entities (one for a pattern), a forced relation of
//! the anchor's family with the modifiers it names, and the field features it needs, on top of
//! features, names and queries drawn like any other schema's. Each anchor is small (nothing else
//! refers to its entities), so every document of it can be written and the harness's operations
//! reach the rows it holds. The rest of the batch is drawn freely.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config as RunnerConfig, RngAlgorithm, TestRng, TestRunner};

use crate::spec::{Family, Pattern, Schema};
use crate::strategy::{
    entity_recipe, relation_recipe, schema_with_recipe, Config, Feature, Recipe,
};

/// A relation's modifiers an anchor asks for (the others are off).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Modifiers {
    /// `show Parent.s on Child`.
    pub copy_down: bool,
    /// `show Child.s on Parent` (an array of extended references on the parent).
    pub copy_up: bool,
    /// `latest 3 by at desc`.
    pub latest: bool,
    /// `top 3 by n desc`.
    pub top: bool,
    /// `summary count, total(n), max(n), min(at)`.
    pub summary: bool,
    /// Order lines: the forced `one_way` relation's own `fields` hold numbers.
    pub lines: bool,
}

/// What one anchor schema holds for certain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Anchor {
    /// The rows of modelcheck's coverage table (and the audit's drift kinds) it is there for.
    pub rows: &'static [&'static str],
    /// The family forced between `E0` (parent) and `E1` (child); none: `E0` alone.
    pub family: Option<Family>,
    /// `E0`'s pattern.
    pub pattern: Pattern,
    /// Features `E0` always has (besides those drawn).
    pub parent: &'static [Feature],
    /// Features `E1` always has (besides those drawn).
    pub child: &'static [Feature],
    /// Features `E1` never has (drawn ones dropped): an element's key is the first required
    /// `@unique` field, so an anchor keyed by another leaves out the ones before it.
    pub without: &'static [Feature],
    /// A natural key on `E0`.
    pub key: bool,
    /// The relation's modifiers.
    pub modifiers: Modifiers,
}

const NONE: Modifiers = Modifiers {
    copy_down: false,
    copy_up: false,
    latest: false,
    top: false,
    summary: false,
    lines: false,
};

const fn relation(
    rows: &'static [&'static str],
    family: Family,
    parent: &'static [Feature],
    child: &'static [Feature],
    modifiers: Modifiers,
) -> Anchor {
    Anchor {
        rows,
        family: Some(family),
        pattern: Pattern::Plain,
        parent,
        child,
        without: &[],
        key: false,
        modifiers,
    }
}

const fn alone(rows: &'static [&'static str], pattern: Pattern) -> Anchor {
    Anchor {
        rows,
        family: None,
        pattern,
        parent: &[Feature::Enums],
        child: &[],
        without: &[],
        key: false,
        modifiers: NONE,
    }
}

/// The anchors, in the order they open a batch. Together they hold every layout family (forced),
/// every modifier, every pattern, every field feature at the top level, an enumeration in every
/// schema (top level, array, map, value type, embedded in another collection) and a declared
/// query comparing one, and the audit's drift kinds (a stale copy, a wrong summary, a broken
/// two-way link).
pub const ANCHORS: [Anchor; 15] = [
    relation(
        &[
            "layout embed",
            "@unique in an array",
            "summary",
            "summary, with removals",
            "@unique at top level",
            "@index at top level",
        ],
        Family::Embed,
        &[Feature::Unique, Feature::Index, Feature::Enums],
        &[Feature::Unique, Feature::Enums],
        Modifiers {
            summary: true,
            ..NONE
        },
    ),
    relation(
        &[
            "layout two_way",
            "copy (show)",
            "copy in an array (arrayFilters)",
            "@expires at top level",
            "counters at top level",
            "broken_link",
        ],
        Family::TwoWay,
        &[Feature::Expires, Feature::Counters, Feature::Enums],
        &[Feature::Enums],
        Modifiers {
            copy_up: true,
            ..NONE
        },
    ),
    Anchor {
        key: true,
        ..relation(
            &[
                "layout parent_refs",
                "copy (show)",
                "stale_copy",
                "map at top level",
                "optional at top level",
                "@key at top level",
            ],
            Family::ParentRefs,
            &[Feature::Map, Feature::Optional, Feature::Enums],
            &[Feature::Enums],
            Modifiers {
                copy_down: true,
                ..NONE
            },
        )
    },
    relation(
        &[
            "layout child_ref",
            "subset (latest N)",
            "top-N",
            "summary",
            "wrong_summary",
            "@stored at top level",
        ],
        Family::ChildRef,
        &[Feature::Stored, Feature::Enums],
        &[Feature::Enums],
        Modifiers {
            latest: true,
            top: true,
            summary: true,
            ..NONE
        },
    ),
    relation(
        &["layout one_way"],
        Family::OneWay,
        &[Feature::Attributes, Feature::Enums],
        &[Feature::Enums],
        NONE,
    ),
    relation(
        &["layout bucket", "bucket append"],
        Family::Bucket,
        &[Feature::Enums],
        &[Feature::Enums],
        NONE,
    ),
    relation(
        &["layout link_collection", "link collection link"],
        Family::LinkCollection,
        &[Feature::Enums],
        &[Feature::Enums],
        NONE,
    ),
    alone(&["pattern tree"], Pattern::Tree),
    alone(&["pattern queue"], Pattern::Queue),
    alone(&["pattern versioning"], Pattern::VersionedFuture),
    alone(&["pattern schema_version"], Pattern::SchemaVersion(2)),
    alone(
        &["pattern polymorphic", "variant at top level"],
        Pattern::Polymorphic,
    ),
    // Numbers in keyed elements (`inc_<array>_<f>`, the guarded `dec_<array>_<f>`): children
    // embedded by a `@unique` string, with counters (one `@stored`, one with a `@range`) that
    // the summaries, the latest and the top list of the array follow.
    relation(
        &["element inc, embedded child", "element guarded dec"],
        Family::Embed,
        &[Feature::Enums],
        &[Feature::Unique, Feature::Stock],
        Modifiers {
            latest: true,
            top: true,
            summary: true,
            ..NONE
        },
    ),
    // The same keyed by an enumeration stored under another name (`sku`, `@stored("k")`).
    Anchor {
        without: &[Feature::Unique, Feature::IgnoreCase],
        ..relation(
            &["element inc, embedded child", "element guarded dec"],
            Family::Embed,
            &[Feature::Enums],
            &[Feature::Sku, Feature::Stock],
            Modifiers {
                top: true,
                summary: true,
                ..NONE
            },
        )
    },
    // Order lines: a `one_way` relation's own numbers beside each reference, keyed by its id.
    relation(
        &[
            "layout one_way",
            "element inc, order line",
            "element guarded dec",
        ],
        Family::OneWay,
        &[Feature::Enums],
        &[Feature::Enums],
        Modifiers {
            lines: true,
            ..NONE
        },
    ),
];

/// Recipes holding `anchor` (number `index` among the anchors): its entities, relation and
/// features for certain, the rest drawn. `E0` gets a query comparing an enumeration, the
/// operator and field chosen by `index` (so the anchors together compare with `in`, `!=` and
/// `==`, at the top level, in an array and in a value type).
pub fn anchored_recipe(
    anchor: Anchor,
    index: usize,
    config: Config,
) -> impl Strategy<Value = Recipe> {
    (
        entity_recipe(config),
        entity_recipe(config),
        relation_recipe(config),
        prop::collection::vec((0..8usize, any::<u8>()), 0..3),
        0..7u8,
    )
        .prop_map(move |(mut e0, mut e1, mut rel, mut queries, returns)| {
            let embedded = matches!(anchor.family, Some(Family::Embed | Family::Bucket));
            e0.pattern = anchor.pattern;
            e0.key = anchor.key;
            e0.features.extend(anchor.parent);
            e1.pattern = Pattern::Plain;
            e1.key = false;
            e1.features.extend(anchor.child);
            e1.features.retain(|f| !anchor.without.contains(f));
            if embedded {
                // An expiring child cannot be forced inside its parent (W120).
                e1.features.retain(|f| *f != Feature::Expires);
            }
            for e in [&mut e0, &mut e1] {
                e.features.sort_by_key(|f| *f as u8);
                e.features.dedup();
            }
            let m = anchor.modifiers;
            rel.parent = 0;
            rel.child = 1;
            rel.forced = true;
            rel.one_to_one = false;
            rel.outlier = false;
            rel.copy_down = m.copy_down;
            rel.copy_up = m.copy_up;
            rel.latest = m.latest;
            rel.top = m.top;
            rel.summary = m.summary;
            rel.lines = m.lines;
            // The enumeration query: `kind % 6 == 0` compares an enumeration, `kind / 6 % 6`
            // picks the field and operator, `kind / 36` what it returns.
            let kind = u8::try_from(index % 6).unwrap_or(0) * 6 + (returns % 7) * 36;
            queries.push((0, kind));
            let entities = match anchor.family {
                Some(family) => {
                    rel.family = family;
                    vec![e0, e1]
                }
                None => vec![e0],
            };
            Recipe {
                entities,
                relations: anchor.family.map(|_| rel).into_iter().collect(),
                queries,
            }
        })
}

fn runner(seed: u64) -> TestRunner {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    TestRunner::new_with_rng(RunnerConfig::default(), rng)
}

/// `count` schemas drawn from `seed`: the same seed gives the same schemas on every machine.
pub fn batch(seed: u64, count: usize, config: Config) -> Vec<(Recipe, Schema)> {
    let mut runner = runner(seed);
    let strategy = schema_with_recipe(config);
    (0..count)
        .filter_map(|_| strategy.new_tree(&mut runner).ok().map(|t| t.current()))
        .collect()
}

/// `count` schemas from `seed` that open with one schema per anchor ([`ANCHORS`], as many as
/// `count` allows), then go on like [`batch`]: every row an anchor names is in the batch
/// whatever the seed (unless `config` turns off what it needs: a `@unique` field embedded, an
/// `@expires` field embedded, subsets).
pub fn covering_batch(seed: u64, count: usize, config: Config) -> Vec<(Recipe, Schema)> {
    let mut runner = runner(seed);
    let mut out = Vec::with_capacity(count);
    // The element anchors come last, and only with `config.elements`.
    let anchors = ANCHORS
        .iter()
        .filter(|a| config.elements || !a.rows.iter().any(|r| r.starts_with("element")));
    for (i, anchor) in anchors.enumerate().take(count) {
        if let Ok(tree) = anchored_recipe(*anchor, i, config).new_tree(&mut runner) {
            let r = tree.current();
            let s = crate::build::build(&r, config);
            out.push((r, s));
        }
    }
    let strategy = schema_with_recipe(config);
    while out.len() < count {
        match strategy.new_tree(&mut runner) {
            Ok(t) => out.push(t.current()),
            Err(_) => break,
        }
    }
    out
}
