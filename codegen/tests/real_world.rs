//! The real-world corpus: published MongoDB designs (MongoDB's documentation and pattern
//! series, its sample datasets, open-source applications), each translated into a `.sqn` file
//! of `decisions/real_world/` from the facts its source states, with the layout the source gives
//! written as `// expect` lines before the engine was run. Where a source is weaker than the
//! rules, the file asserts the rules' answer and says why.
//!
//! Expectations, one per line:
//! - `// expect Entity.end layout`: the relationship's chosen layout (`embed`, `child_ref`, ...);
//! - `// expect held Entity.end collection`: one side of the relationship is stored in `collection`;
//! - `// expect subset|summary|outlier|bucket Entity.end`: the pattern is applied to it;
//! - `// expect copy Entity.field collection`: the field is copied into `collection`;
//! - `// expect no copy Entity.field`: the field is copied nowhere;
//! - `// expect collection name` / `// expect no collection name`;
//! - `// expect field collection.path` / `// expect no field collection.path`;
//! - `// expect index collection path`: an index of the collection has `path` as a key.

use std::path::{Path, PathBuf};

use squillion_codegen::plan::Plan;
use squillion_grammar::SourceFile;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/decisions/real_world")
}

fn files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("the corpus directory exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "sqn"))
        .collect();
    files.sort();
    files
}

/// Checks one expectation line (without `// expect `); `Err` says what the plan does instead.
fn check(plan: &Plan, line: &str) -> Result<(), String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let decision = |id: &str| {
        plan.relationship(id)
            .ok_or_else(|| format!("no relationship `{id}` in the plan"))
    };
    let collection = |name: &str| {
        plan.collection(name).ok_or_else(|| {
            let names: Vec<_> = plan.collections.iter().map(|c| c.name.as_str()).collect();
            format!("no collection `{name}` (collections: {})", names.join(", "))
        })
    };
    let field = |target: &str| -> Result<bool, String> {
        let (coll, path) = target
            .split_once('.')
            .ok_or_else(|| format!("`{target}` is not collection.path"))?;
        Ok(collection(coll)?.field_at(path).is_some())
    };
    match words.as_slice() {
        ["held", id, coll] => {
            let d = decision(id)?;
            if d.placement.iter().any(|p| p.collection == *coll) {
                Ok(())
            } else {
                let at: Vec<_> = d
                    .placement
                    .iter()
                    .map(|p| format!("{}.{}", p.collection, p.path))
                    .collect();
                Err(format!("{id} is held in {}", at.join(", ")))
            }
        }
        ["subset", id] => decision(id)?
            .subset
            .as_ref()
            .map(|_| ())
            .ok_or_else(|| format!("{id} keeps no subset")),
        ["summary", id] => {
            if decision(id)?.computed.is_empty() {
                Err(format!("{id} keeps no summary"))
            } else {
                Ok(())
            }
        }
        ["outlier", id] => decision(id)?
            .outlier
            .as_ref()
            .map(|_| ())
            .ok_or_else(|| format!("{id} has no outlier overflow")),
        ["bucket", id] => decision(id)?
            .bucket
            .as_ref()
            .map(|_| ())
            .ok_or_else(|| format!("{id} is not bucketed")),
        ["copy", source, coll] => {
            let copies: Vec<_> = plan
                .relationships
                .iter()
                .flat_map(|d| &d.denormalized)
                .filter(|c| c.source == *source)
                .collect();
            if copies.iter().any(|c| c.collection == *coll) {
                Ok(())
            } else {
                let at: Vec<_> = copies
                    .iter()
                    .map(|c| format!("{}.{}", c.collection, c.copy_path))
                    .collect();
                Err(format!(
                    "{source} is not copied into {coll} (copies: {at:?})"
                ))
            }
        }
        ["no", "copy", source] => {
            let copies: Vec<_> = plan
                .relationships
                .iter()
                .flat_map(|d| &d.denormalized)
                .filter(|c| c.source == *source)
                .map(|c| format!("{}.{}", c.collection, c.copy_path))
                .collect();
            if copies.is_empty() {
                Ok(())
            } else {
                Err(format!("{source} is copied into {copies:?}"))
            }
        }
        ["collection", name] => collection(name).map(|_| ()),
        ["no", "collection", name] => match plan.collection(name) {
            None => Ok(()),
            Some(_) => Err(format!("collection `{name}` exists")),
        },
        ["field", target] => match field(target)? {
            true => Ok(()),
            false => Err(format!("no field `{target}`")),
        },
        ["no", "field", target] => match field(target)? {
            false => Ok(()),
            true => Err(format!("field `{target}` exists")),
        },
        ["index", coll, path] => {
            let c = collection(coll)?;
            if c.indexes
                .iter()
                .any(|i| i.keys.iter().any(|k| k.path == *path))
            {
                Ok(())
            } else {
                let names: Vec<_> = c.indexes.iter().map(|i| i.name.as_str()).collect();
                Err(format!("no index of {coll} on {path} (indexes: {names:?})"))
            }
        }
        [id, layout] if id.contains('.') => {
            let d = decision(id)?;
            if d.strategy.as_str() == *layout {
                Ok(())
            } else {
                Err(format!(
                    "{id} is {}, expected {layout}: {}",
                    d.strategy.as_str(),
                    d.because
                ))
            }
        }
        _ => Err(format!("unknown expectation `{line}`")),
    }
}

struct Outcome {
    name: String,
    failures: Vec<String>,
}

fn run(path: &Path) -> Outcome {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let text = std::fs::read_to_string(path).expect("a corpus file is readable");
    let mut failures = Vec::new();
    let has_source = text
        .lines()
        .any(|l| l.starts_with("// Source: http") || l.starts_with("/// Source: http"));
    if !has_source {
        failures.push("cites no `// Source: https://...`".to_owned());
    }
    let expectations: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("// expect "))
        .collect();
    if expectations.is_empty() {
        failures.push("states no `// expect` line".to_owned());
    }
    let source = SourceFile::new(name.clone(), text.clone());
    match squillion_codegen::load(&source) {
        Err(diags) => failures.push(format!("does not check:\n{}", source.render(&diags, false))),
        Ok(checked) => {
            let plan = squillion_codegen::engine::plan(&checked.model, &source);
            for e in expectations {
                if let Err(why) = check(&plan, e) {
                    failures.push(format!("expect {e}: {why}"));
                }
            }
        }
    }
    Outcome { name, failures }
}

/// Every design of the corpus is planned as its source (or, where the source is weaker, the
/// rules) lays it out.
#[test]
fn real_world_designs_are_planned_as_published() {
    let outcomes: Vec<Outcome> = files().iter().map(|p| run(p)).collect();
    let right = outcomes.iter().filter(|o| o.failures.is_empty()).count();
    eprintln!(
        "real-world corpus: {right} of {} designs right",
        outcomes.len()
    );
    let report: Vec<String> = outcomes
        .iter()
        .filter(|o| !o.failures.is_empty())
        .map(|o| format!("{}:\n  {}", o.name, o.failures.join("\n  ")))
        .collect();
    assert!(
        outcomes.len() >= 30,
        "the corpus holds {} designs, not 30",
        outcomes.len()
    );
    assert!(
        report.is_empty(),
        "{right} of {} designs right; wrong:\n{}",
        outcomes.len(),
        report.join("\n")
    );
}

/// The checker itself: an expectation the plan does not meet fails.
#[test]
fn a_wrong_expectation_fails() {
    let source = SourceFile::new(
        "t.sqn",
        "entity Person { name: string }
         entity Address { street: string }
         relation Person.addresses: few(3) <-> Address.person: one",
    );
    let checked = squillion_codegen::load(&source).expect("checks");
    let plan = squillion_codegen::engine::plan(&checked.model, &source);
    assert!(check(&plan, "Person.addresses embed").is_ok());
    assert!(check(&plan, "Person.addresses child_ref").is_err());
    assert!(check(&plan, "no collection addresses").is_ok());
    assert!(check(&plan, "collection addresses").is_err());
    assert!(check(&plan, "field people.addresses.street").is_ok());
    assert!(check(&plan, "no field people.addresses").is_err());
    assert!(check(&plan, "subset Person.addresses").is_err());
    assert!(check(&plan, "copy Person.name addresses").is_err());
    assert!(check(&plan, "nonsense here now").is_err());
}
