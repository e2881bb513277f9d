//! `settings { ... }`: the thresholds of this file, over the defaults of [`Settings`].

use std::collections::BTreeMap;

use squillion_grammar::ast::{Item, RatioExpr, Schema, Setting, Value};
use squillion_grammar::{Diagnostic, Span};

use super::names::{all_of, closest};
use super::{units, Resolver};
use crate::codes;
use crate::model::{SettingKind, Settings};

/// Pairs of settings where the first must not exceed the second, and why.
const ORDERED: [(&str, &str, &str); 2] = [
    (
        "embed_array_max",
        "id_array_max",
        "an array of ids is allowed to grow larger than an embedded array, never smaller",
    ),
    (
        "doc_warn_size",
        "doc_max_size",
        "the warning comes before the error",
    ),
];

/// Settings whose value must lie in a range, the range, and why.
const RANGES: [(&str, f64, f64, &str); 3] = [
    (
        "doc_max_size",
        1024.0,
        16.0 * 1024.0 * 1024.0,
        "MongoDB refuses documents over 16 MB, and a limit under 1 KB would refuse almost every \
         document",
    ),
    (
        "doc_warn_size",
        1024.0,
        16.0 * 1024.0 * 1024.0,
        "a warning size under 1 KB would warn about almost every document; over 16 MB it would \
         never come before MongoDB's limit",
    ),
    (
        "max_indexes",
        1.0,
        64.0,
        "MongoDB allows at most 64 indexes per collection, so the warning must come at or before \
         that",
    ),
];

/// The settings of `schema`: the defaults, overridden by its `settings` block.
pub(super) fn resolve(r: &mut Resolver<'_>, schema: &Schema) -> Settings {
    let mut settings = Settings::default();
    let mut first_block: Option<Span> = None;
    let mut written: BTreeMap<&str, (&Setting, f64)> = BTreeMap::new();
    for item in &schema.items {
        let Item::Settings(block) = item else {
            continue;
        };
        if let Some(first) = first_block {
            r.report(
                Diagnostic::error(
                    codes::DUPLICATE_SETTING,
                    block.span,
                    "a second `settings` block",
                )
                .with_label("settings given again")
                .with_related(first, "the first `settings` block")
                .with_help("write every setting in one `settings` block"),
            );
        } else {
            first_block = Some(block.span);
        }
        for setting in &block.settings {
            let name = setting.name.name.as_str();
            let Some((_, kind, _)) = Settings::DESCRIPTIONS.iter().find(|(n, _, _)| *n == name)
            else {
                r.report(unknown(setting));
                continue;
            };
            if let Some((first, _)) = written.get(name) {
                r.report(
                    Diagnostic::error(
                        codes::DUPLICATE_SETTING,
                        setting.name.span,
                        format!("setting `{name}` is set twice"),
                    )
                    .with_label("set again here")
                    .with_related(first.name.span, "first set here")
                    .with_help("keep one of them"),
                );
                continue;
            }
            let value = value(r, setting, *kind).filter(|v| in_range(r, setting, *v));
            if let Some(value) = value {
                settings.set(name, value);
                written.insert(name, (setting, value));
            }
        }
    }
    for (low, high, why) in ORDERED {
        let low_value = written
            .get(low)
            .map(|(s, v)| (Some(*s), *v))
            .unwrap_or((None, default_of(low)));
        let high_value = written
            .get(high)
            .map(|(s, v)| (Some(*s), *v))
            .unwrap_or((None, default_of(high)));
        if low_value.1 <= high_value.1 {
            continue;
        }
        // Point at whichever was written; both written: at the later one.
        let (at, other) = match (low_value.0, high_value.0) {
            (Some(a), Some(b)) if a.span.start > b.span.start => (a, Some(b)),
            (Some(a), Some(b)) => (b, Some(a)),
            (Some(a), None) => (a, None),
            (None, Some(b)) => (b, None),
            (None, None) => continue,
        };
        let defaulted = if other.is_none() {
            if low_value.0.is_none() {
                format!(" (`{low}` keeps its default)")
            } else {
                format!(" (`{high}` keeps its default)")
            }
        } else {
            String::new()
        };
        let mut d = Diagnostic::error(
            codes::CONTRADICTORY_SETTINGS,
            at.span,
            format!(
                "`{low}` ({}) is larger than `{high}` ({}){defaulted}",
                low_value.1, high_value.1
            ),
        )
        .with_label("contradicts the other setting")
        .with_help(format!("{why}: make `{low}` at most `{high}`"));
        if let Some(o) = other {
            d = d.with_related(o.span, "the other setting");
        }
        r.report(d);
    }
    settings
}

/// Whether `value` of `setting` lies in its range ([`RANGES`]); reports it when not.
fn in_range(r: &mut Resolver<'_>, setting: &Setting, value: f64) -> bool {
    let name = setting.name.name.as_str();
    let Some((_, min, max, why)) = RANGES.iter().find(|(n, ..)| *n == name) else {
        return true;
    };
    if (*min..=*max).contains(&value) {
        return true;
    }
    let size = Settings::DESCRIPTIONS
        .iter()
        .any(|(n, kind, _)| *n == name && *kind == SettingKind::Size);
    let words = |v: f64| {
        if size {
            crate::prose::bytes(v as u64)
        } else {
            crate::prose::thousands(v as u64)
        }
    };
    r.report(
        Diagnostic::error(
            codes::INVALID_NUMBER,
            setting.value.span(),
            format!(
                "setting `{name}` is {}: it must be between {} and {}",
                words(value),
                words(*min),
                words(*max)
            ),
        )
        .with_label("out of range")
        .with_help(format!("{why}; remove the setting to use its default")),
    );
    false
}

fn default_of(name: &str) -> f64 {
    let d = Settings::default();
    match name {
        "embed_array_max" => d.embed_array_max as f64,
        "id_array_max" => d.id_array_max as f64,
        "doc_warn_size" => d.doc_warn_size as f64,
        "doc_max_size" => d.doc_max_size as f64,
        _ => 0.0,
    }
}

fn unknown(setting: &Setting) -> Diagnostic {
    let name = setting.name.name.as_str();
    let names = Settings::DESCRIPTIONS.iter().map(|(n, _, _)| *n);
    let close = closest(name, names.clone());
    let help = match close {
        Some(close) => format!("did you mean `{close}`?"),
        None => {
            format!("the settings are {}", all_of(names))
        }
    };
    Diagnostic::error(
        codes::UNKNOWN_SETTING,
        setting.name.span,
        format!("unknown setting `{name}`"),
    )
    .with_label("not a setting")
    .with_help(help)
    .with_fix_from(close.map(|c| (setting.name.span, c)))
}

/// The setting's value in the unit [`Settings::set`] takes.
fn value(r: &mut Resolver<'_>, setting: &Setting, kind: SettingKind) -> Option<f64> {
    let name = setting.name.name.as_str();
    let what = format!("setting `{name}`");
    match (kind, &setting.value) {
        (SettingKind::Count, Value::Quantity(q)) => units::count(r, q, &what).map(|n| n as f64),
        (SettingKind::Size, Value::Quantity(q)) => units::size(r, q, &what).map(|n| n as f64),
        (SettingKind::Ratio, Value::Quantity(q)) => {
            units::ratio(r, &RatioExpr::Plain(q.clone()), &what)
        }
        (SettingKind::Ratio, Value::Ratio(ratio)) => {
            units::ratio(r, &RatioExpr::Ratio(ratio.clone()), &what)
        }
        (kind, other) => {
            let (expected, example) = match kind {
                SettingKind::Count => ("a whole number", "200"),
                SettingKind::Ratio => ("a number of reads per update", "10 or 10:1"),
                SettingKind::Size => ("a size", "2MB"),
            };
            r.report(
                Diagnostic::error(
                    codes::INVALID_SETTING_VALUE,
                    other.span(),
                    format!("setting `{name}` takes {expected}"),
                )
                .with_label(format!("expected {expected}"))
                .with_help(format!("write `{name} = {example}`")),
            );
            None
        }
    }
}
