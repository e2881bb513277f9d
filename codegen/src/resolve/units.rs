//! Numbers and units: counts, sizes, rates, durations and ratios.
//!
//! - SIZE: `B`, `KB`, `MB`, `GB` (1,024-based); a unit is required.
//! - RATE: `/s`, `/min`, `/h`, `/day`, `/week`, `/month`, `/year`; a unit is required. A month is a
//!   twelfth of a 365-day year, so `1/month` is exactly `12/year`.
//! - DURATION: `s`, `min`, `h`, `d`; a unit is required (a bare `30` read as seconds would delete
//!   data thirty days early for someone who meant days).
//!
//! Every function reports its own errors and returns `None` when the quantity is unusable. `what`
//! names the place in the file (`` `@large` ``, `the array bound`) for the messages.

use squillion_grammar::ast::{Quantity, RatioExpr};
use squillion_grammar::Diagnostic;

use super::names::one_of;
use super::Resolver;
use crate::codes;

/// Size units and their bytes.
pub(super) const SIZE_UNITS: [(&str, f64); 4] = [
    ("B", 1.0),
    ("KB", 1024.0),
    ("MB", 1024.0 * 1024.0),
    ("GB", 1024.0 * 1024.0 * 1024.0),
];

/// Rate units and how many days they last.
pub(super) const RATE_UNITS: [(&str, f64); 7] = [
    ("/s", 1.0 / 86_400.0),
    ("/min", 1.0 / 1_440.0),
    ("/h", 1.0 / 24.0),
    ("/day", 1.0),
    ("/week", 7.0),
    ("/month", 365.0 / 12.0),
    ("/year", 365.0),
];

/// Duration units and their seconds.
pub(super) const DURATION_UNITS: [(&str, f64); 4] =
    [("s", 1.0), ("min", 60.0), ("h", 3_600.0), ("d", 86_400.0)];

/// Units people write, and the unit they mean.
const UNIT_ALIASES: [(&str, &str); 28] = [
    ("/sec", "/s"),
    ("/second", "/s"),
    ("/minute", "/min"),
    ("/m", "/min"),
    ("/hr", "/h"),
    ("/hour", "/h"),
    ("/d", "/day"),
    ("/days", "/day"),
    ("/wk", "/week"),
    ("/w", "/week"),
    ("/mo", "/month"),
    ("/yr", "/year"),
    ("/y", "/year"),
    ("sec", "s"),
    ("secs", "s"),
    ("seconds", "s"),
    ("m", "min"),
    ("mins", "min"),
    ("minutes", "min"),
    ("hr", "h"),
    ("hrs", "h"),
    ("hours", "h"),
    ("day", "d"),
    ("days", "d"),
    ("KiB", "KB"),
    ("MiB", "MB"),
    ("GiB", "GB"),
    ("bytes", "B"),
];

/// Seconds in a day.
const DAY_SECONDS: f64 = 86_400.0;

/// A whole number of at least 1, without a unit: array bounds, `limit`, `page`, counts.
pub(super) fn count(r: &mut Resolver<'_>, q: &Quantity, what: &str) -> Option<u64> {
    if !no_unit(r, q, what, "a count") {
        return None;
    }
    whole_at_least_one(r, q, what)
}

/// A whole number of at least 1; the unit is not looked at.
pub(super) fn whole_at_least_one(r: &mut Resolver<'_>, q: &Quantity, what: &str) -> Option<u64> {
    match q.whole() {
        Some(0) => {
            r.report(invalid(
                q,
                format!("{what} must be at least 1, not 0"),
                "zero",
                "write a whole number of at least 1".to_owned(),
            ));
            None
        }
        Some(n) => Some(n),
        None if q.number.starts_with('-') => {
            r.report(invalid(
                q,
                format!("{what} must be at least 1, not `{}`", q.number),
                "negative",
                format!(
                    "write a whole number of at least 1, like `{}`",
                    q.number.trim_start_matches('-')
                ),
            ));
            None
        }
        None if q.number.contains('.') => {
            r.report(invalid(
                q,
                format!("{what} must be a whole number, not `{}`", q.number),
                "a fraction",
                format!(
                    "write a whole number, like `{}`",
                    q.value().map(|v| v.round().max(1.0)).unwrap_or(1.0)
                ),
            ));
            None
        }
        None => {
            r.report(invalid(
                q,
                format!("{what} is too large: `{}`", q.number),
                "too large",
                too_large_help(what),
            ));
            None
        }
    }
}

/// The help of a count beyond `u64`: its largest value, and for a relation end's bound the class
/// that has none.
fn too_large_help(what: &str) -> String {
    let largest = crate::prose::thousands(u64::MAX);
    if what.starts_with("a count of `") {
        format!(
            "write the largest number a parent really reaches (a count is at most {largest}); for children without a bound write `squillions`, without a number"
        )
    } else {
        format!("write a smaller number: a count is at most {largest}")
    }
}

/// A size in bytes, more than zero. The unit is required.
pub(super) fn size(r: &mut Resolver<'_>, q: &Quantity, what: &str) -> Option<u64> {
    let Some(unit) = &q.unit else {
        r.report(missing_unit(q, what, "a size", "bytes", "KB", &SIZE_UNITS));
        return None;
    };
    let factor = unit_factor(r, q, &unit.name, &SIZE_UNITS, what, "a size")?;
    let bytes = positive(r, q, what)? * factor;
    if bytes < 1.0 || bytes >= u64::MAX as f64 {
        r.report(invalid(
            q,
            format!("{what} must be at least 1 byte and fit in 64 bits"),
            "out of range",
            "write a size like `200B`, `20KB` or `2MB`".to_owned(),
        ));
        return None;
    }
    Some(bytes.round() as u64)
}

/// The size of one value (`@large`, `@size`): a size that fits in a document.
pub(super) fn value_size(r: &mut Resolver<'_>, q: &Quantity, what: &str) -> Option<u64> {
    let bytes = size(r, q, what)?;
    if bytes > r.doc_max_size {
        r.report(invalid(
            q,
            format!(
                "{what} says a value of {}, more than a whole document can hold ({}, `doc_max_size`)",
                crate::prose::bytes(bytes),
                crate::prose::bytes(r.doc_max_size)
            ),
            "larger than a document",
            "MongoDB stores at most 16 MB in a document: keep values this large outside it \
             (GridFS or object storage) and store a reference"
                .to_owned(),
        ));
        return None;
    }
    Some(bytes)
}

/// A rate, converted to events per day. The unit is required.
pub(super) fn rate_per_day(r: &mut Resolver<'_>, q: &Quantity, what: &str) -> Option<f64> {
    let Some(unit) = &q.unit else {
        r.report(missing_unit(
            q,
            what,
            "a rate",
            "per what",
            "/day",
            &RATE_UNITS,
        ));
        return None;
    };
    let days = unit_factor(r, q, &unit.name, &RATE_UNITS, what, "a rate")?;
    Some(positive(r, q, what)? / days)
}

/// A rate, converted to events per second. The unit is required.
pub(super) fn rate_per_second(r: &mut Resolver<'_>, q: &Quantity, what: &str) -> Option<f64> {
    rate_per_day(r, q, what).map(|per_day| per_day / DAY_SECONDS)
}

/// A duration in whole seconds: zero (`@expires(0s)`, MongoDB's `expireAfterSeconds: 0`: each
/// document expires at the date its field holds) or at least one. The unit is required.
pub(super) fn duration_seconds(r: &mut Resolver<'_>, q: &Quantity, what: &str) -> Option<u64> {
    let Some(unit) = &q.unit else {
        r.report(missing_unit(
            q,
            what,
            "a duration",
            "seconds or days",
            "d",
            &DURATION_UNITS,
        ));
        return None;
    };
    let factor = unit_factor(r, q, &unit.name, &DURATION_UNITS, what, "a duration")?;
    if q.value() == Some(0.0) {
        return Some(0);
    }
    let seconds = positive(r, q, what)? * factor;
    if seconds < 1.0 || seconds >= u64::MAX as f64 {
        r.report(invalid(
            q,
            format!("{what} must be zero or at least one second"),
            "out of range",
            "write a duration like `90s`, `15min`, `12h` or `30d`, or `0s` to expire each document \
             at the date its field holds"
                .to_owned(),
        ));
        return None;
    }
    Some(seconds.round() as u64)
}

/// Reads per update: `reads:updates`, or a plain number of reads per update. Both must be more
/// than zero.
pub(super) fn ratio(r: &mut Resolver<'_>, ratio: &RatioExpr, what: &str) -> Option<f64> {
    match ratio {
        RatioExpr::Plain(q) => {
            if !no_unit(r, q, what, "a ratio") {
                return None;
            }
            positive(r, q, what)
        }
        RatioExpr::Ratio(pair) => {
            let reads = positive(r, &pair.reads, what);
            let updates = positive(r, &pair.updates, what);
            Some(reads? / updates?)
        }
    }
}

/// A number more than zero (a unit is checked by the caller).
pub(super) fn positive(r: &mut Resolver<'_>, q: &Quantity, what: &str) -> Option<f64> {
    match q.value() {
        Some(v) if v > 0.0 => Some(v),
        Some(v) => {
            r.report(invalid(
                q,
                format!("{what} must be more than zero, not `{}`", q.number),
                if v < 0.0 { "negative" } else { "zero" },
                "write a number more than zero".to_owned(),
            ));
            None
        }
        None => {
            r.report(invalid(
                q,
                format!("{what} is too large: `{}`", q.number),
                "too large",
                "write a smaller number".to_owned(),
            ));
            None
        }
    }
}

/// Reports a unit on a quantity that takes none; `true` when there is none.
pub(super) fn no_unit(r: &mut Resolver<'_>, q: &Quantity, what: &str, kind: &str) -> bool {
    let Some(unit) = &q.unit else {
        return true;
    };
    r.report(
        Diagnostic::error(
            codes::UNKNOWN_UNIT,
            unit.span,
            format!(
                "{what} is {kind} and takes no unit, but `{}` has `{}`",
                q.number.as_str(),
                unit.name
            ),
        )
        .with_label("no unit here")
        .with_help(match thousands_meant(q, &unit.name) {
            // `many(5k)`: a thousand, not a unit.
            Some(n) => format!(
                "`k` is not a unit: write `{n}` (digits may be grouped: `{}`)",
                grouped(n)
            ),
            None => format!("write `{}`", q.number),
        }),
    );
    false
}

/// The count `5k` means, when `unit` is `k` or `K` after a whole number.
fn thousands_meant(q: &Quantity, unit: &str) -> Option<u64> {
    if !matches!(unit, "k" | "K") {
        return None;
    }
    q.number.parse::<u64>().ok()?.checked_mul(1000)
}

/// `5000000` -> `5_000_000`.
fn grouped(n: u64) -> String {
    crate::prose::thousands(n).replace(',', "_")
}

fn unit_factor(
    r: &mut Resolver<'_>,
    q: &Quantity,
    unit: &str,
    table: &[(&'static str, f64)],
    what: &str,
    kind: &str,
) -> Option<f64> {
    if let Some((_, factor)) = table.iter().find(|(u, _)| *u == unit) {
        return Some(*factor);
    }
    let names = table.iter().map(|(u, _)| *u);
    let mut help = format!("{kind} is written with {}", one_of(names.clone()));
    let meant = UNIT_ALIASES
        .iter()
        .find(|(alias, _)| *alias == unit)
        .map(|(_, meant)| *meant)
        .or_else(|| names.clone().find(|u| u.eq_ignore_ascii_case(unit)))
        .filter(|meant| table.iter().any(|(u, _)| u == meant));
    if let Some(meant) = meant {
        help = format!("did you mean `{}{meant}`? {help}", q.number);
    }
    let span = q.unit.as_ref().map(|u| u.span).unwrap_or(q.span);
    r.report(
        Diagnostic::error(
            codes::UNKNOWN_UNIT,
            span,
            format!("unknown unit `{unit}` in {what}: expected {kind}"),
        )
        .with_label("not a unit of this kind")
        .with_help(help)
        .with_fix_from(meant.zip(q.unit.as_ref()).map(|(m, u)| (u.span, m))),
    );
    None
}

/// `E0313`: a quantity of `kind` written without a unit; `question` asks what it could mean,
/// `example` is the unit of the suggested fix.
fn missing_unit(
    q: &Quantity,
    what: &str,
    kind: &str,
    question: &str,
    example: &str,
    table: &[(&'static str, f64)],
) -> Diagnostic {
    Diagnostic::error(
        codes::MISSING_UNIT,
        q.span,
        format!(
            "{what} is {kind} and needs a unit: `{}` {question}?",
            q.number
        ),
    )
    .with_label(format!("{kind} without a unit"))
    .with_help(format!(
        "write it with its unit, like `{}{example}`; the units are {}",
        q.number,
        one_of(table.iter().map(|(u, _)| *u))
    ))
}

fn invalid(q: &Quantity, message: String, label: &str, help: String) -> Diagnostic {
    Diagnostic::error(codes::INVALID_NUMBER, q.span, message)
        .with_label(label.to_owned())
        .with_help(help)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::names::Scope;
    use squillion_grammar::ast::Ident;
    use squillion_grammar::Span;

    fn resolver() -> Resolver<'static> {
        Resolver {
            scope: Scope::default(),
            diagnostics: Vec::new(),
            untyped: Default::default(),
            doc_max_size: crate::model::Settings::default().doc_max_size,
            single_ends: Default::default(),
        }
    }

    fn q(number: &str, unit: Option<&str>) -> Quantity {
        Quantity {
            number: number.to_owned(),
            unit: unit.map(|u| Ident {
                name: u.to_owned(),
                span: Span::new(0, 0),
            }),
            span: Span::new(0, 0),
        }
    }

    #[test]
    fn units_convert() {
        let mut r = resolver();
        assert_eq!(size(&mut r, &q("20", Some("KB")), "x"), Some(20 * 1024));
        assert_eq!(size(&mut r, &q("1.5", Some("MB")), "x"), Some(1_572_864));
        assert_eq!(size(&mut r, &q("200", Some("B")), "x"), Some(200));
        assert_eq!(rate_per_day(&mut r, &q("5", Some("/h")), "x"), Some(120.0));
        let year = rate_per_day(&mut r, &q("12", Some("/year")), "x").unwrap();
        let month = rate_per_day(&mut r, &q("1", Some("/month")), "x").unwrap();
        assert!((year - month).abs() < 1e-12);
        assert_eq!(
            rate_per_second(&mut r, &q("100", Some("/s")), "x"),
            Some(100.0)
        );
        assert_eq!(
            duration_seconds(&mut r, &q("30", Some("d")), "x"),
            Some(2_592_000)
        );
        assert_eq!(duration_seconds(&mut r, &q("90", Some("s")), "x"), Some(90));
        // MongoDB's expireAfterSeconds 0: expire at the date the field holds.
        assert_eq!(duration_seconds(&mut r, &q("0", Some("s")), "x"), Some(0));
        assert_eq!(duration_seconds(&mut r, &q("0", Some("d")), "x"), Some(0));
        assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    }

    #[test]
    fn bad_quantities_are_reported() {
        let mut r = resolver();
        assert_eq!(size(&mut r, &q("2", Some("kb")), "x"), None);
        assert_eq!(rate_per_day(&mut r, &q("5", None), "x"), None);
        assert_eq!(count(&mut r, &q("0", None), "x"), None);
        assert_eq!(count(&mut r, &q("1.5", None), "x"), None);
        assert_eq!(count(&mut r, &q("-3", None), "x"), None);
        assert_eq!(
            count(&mut r, &q("99999999999999999999999", None), "x"),
            None
        );
        let codes: Vec<&str> = r.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(
            codes,
            ["E0312", "E0313", "E0314", "E0314", "E0314", "E0314"]
        );
        assert_eq!(r.diagnostics[4].label.as_deref(), Some("negative"));
        assert!(r.diagnostics[0]
            .help
            .as_deref()
            .unwrap()
            .contains("did you mean `2KB`"));
        // Zero is a duration (expire at the stored date); a fraction of a second is not.
        let mut r = resolver();
        assert_eq!(duration_seconds(&mut r, &q("0.5", Some("s")), "x"), None);
        assert_eq!(r.diagnostics.len(), 1);
        assert!(r.diagnostics[0]
            .message
            .contains("zero or at least one second"));
    }

    #[test]
    fn sizes_durations_and_rates_need_a_unit_and_the_help_lists_them() {
        let mut r = resolver();
        assert_eq!(size(&mut r, &q("200", None), "`@size`"), None);
        assert_eq!(duration_seconds(&mut r, &q("30", None), "`@expires`"), None);
        assert_eq!(rate_per_day(&mut r, &q("5", None), "`@updates`"), None);
        let tables: [&[(&str, f64)]; 3] = [&SIZE_UNITS, &DURATION_UNITS, &RATE_UNITS];
        for (d, table) in r.diagnostics.iter().zip(tables) {
            assert_eq!(d.code, codes::MISSING_UNIT);
            let help = d.help.as_deref().unwrap_or_default();
            for (unit, _) in table {
                assert!(help.contains(&format!("`{unit}`")), "{unit} in {help}");
            }
        }
        assert_eq!(r.diagnostics.len(), 3);
    }
}
