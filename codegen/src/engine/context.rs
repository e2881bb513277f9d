//! What every engine module reads: the model, the thresholds, and facts derived once.

use std::collections::BTreeSet;

use squillion_grammar::{SourceFile, Span};

use crate::model::{Entity, Model, Settings};
use crate::plan::{SourcePosition, Warning};

/// The engine's view of one model.
pub(crate) struct Ctx<'a> {
    pub model: &'a Model,
    pub settings: &'a Settings,
    pub source: &'a SourceFile,
    /// Entities read on their own: declared `standalone`, queried, or carrying a pattern that
    /// needs a collection (tree, queue, versioning).
    pub standalone: BTreeSet<String>,
}

impl<'a> Ctx<'a> {
    pub fn new(model: &'a Model, source: &'a SourceFile) -> Self {
        let mut standalone = BTreeSet::new();
        for r in &model.relations {
            standalone.extend(r.facts.standalone.iter().cloned());
        }
        for q in &model.queries {
            standalone.insert(q.entity.clone());
        }
        for e in &model.entities {
            let p = &e.patterns;
            if p.tree || p.queue.is_some() || p.versioned.is_some() {
                standalone.insert(e.name.clone());
            }
        }
        Ctx {
            model,
            settings: &model.settings,
            source,
            standalone,
        }
    }

    pub fn entity(&self, name: &str) -> Option<&'a Entity> {
        self.model.entity(name)
    }

    pub fn is_standalone(&self, entity: &str) -> bool {
        self.standalone.contains(entity)
    }

    /// Why `entity` counts as standalone, for the decision's facts.
    pub fn standalone_reason(&self, entity: &str) -> Option<String> {
        if self.model.relations.iter().any(|r| r.is_standalone(entity)) {
            return Some(format!("{entity} is read on its own (declared standalone)"));
        }
        if let Some(q) = self.model.queries.iter().find(|q| q.entity == entity) {
            return Some(format!(
                "{entity} is read on its own (query `{}` reads it directly)",
                q.name
            ));
        }
        if self.standalone.contains(entity) {
            return Some(format!(
                "{entity} is read on its own (its pattern needs a collection)"
            ));
        }
        None
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
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A maximum for prose: "up to 1,000" or "unbounded".
pub(crate) fn max_words(max: Option<u64>) -> String {
    match max {
        Some(n) => format!("up to {}", count(n)),
        None => "an unbounded number of".to_owned(),
    }
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
