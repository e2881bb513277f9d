//! Writing several output files all or nothing (`squillion generate --scripts`, a review and its
//! diagram, `build.rs` over several schemas): the new contents are first written into a staging
//! directory created beside each target (same file system, so the final step is a rename), then
//! renamed into place. A failure while staging leaves every target as it was; a failure while
//! renaming puts back the files already replaced. The staging directory has a name of its own
//! (`.squillion-staging-<pid>-<n>`, created exclusively), so no file of the user's (a `<stem>.tmp`,
//! anything else) is ever overwritten or deleted. Files whose content is unchanged are not touched
//! (no rebuild cascades).

use std::path::{Path, PathBuf};

/// One output: where it goes and what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// The target path.
    pub path: PathBuf,
    /// Its content.
    pub content: String,
}

/// Why the outputs could not be written; no target was changed.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct WriteError {
    /// The path the failure concerns (a target, its folder or the staging folder).
    pub path: PathBuf,
    /// The failure.
    #[source]
    pub source: std::io::Error,
}

/// Writes every output or none: returns the paths whose content changed. Missing folders are
/// created (and left in place on failure: they hold nothing of the user's).
pub fn write_all(outputs: &[Output]) -> Result<Vec<PathBuf>, WriteError> {
    let changed: Vec<&Output> = outputs
        .iter()
        .filter(|o| std::fs::read(&o.path).map_or(true, |old| old != o.content.as_bytes()))
        .collect();
    if changed.is_empty() {
        return Ok(Vec::new());
    }
    let mut stages: Vec<Stage> = Vec::new();
    let mut staged = Vec::with_capacity(changed.len());
    for (i, output) in changed.iter().enumerate() {
        let dir = folder(&output.path);
        std::fs::create_dir_all(&dir).map_err(|source| WriteError {
            path: dir.clone(),
            source,
        })?;
        let stage = match stages.iter().position(|s| s.target_dir == dir) {
            Some(k) => k,
            None => {
                stages.push(Stage::create(&dir)?);
                stages.len() - 1
            }
        };
        let new = stages[stage].path.join(format!("{i}.new"));
        std::fs::write(&new, &output.content).map_err(|source| WriteError {
            path: output.path.clone(),
            source,
        })?;
        if let Ok(meta) = std::fs::metadata(&output.path) {
            // Keep the permissions of the file being replaced.
            let _ = std::fs::set_permissions(&new, meta.permissions());
        }
        staged.push(Staged {
            target: output.path.clone(),
            new,
            old: stages[stage].path.join(format!("{i}.old")),
            had_old: false,
        });
    }
    let mut done = 0;
    while done < staged.len() {
        if let Err(e) = replace(&mut staged[done]) {
            for s in staged[..done].iter().rev() {
                restore(s);
            }
            return Err(e);
        }
        done += 1;
    }
    drop(stages);
    Ok(staged.into_iter().map(|s| s.target).collect())
}

/// The folder a target is written in (`.` for a bare file name).
fn folder(path: &Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A staging folder beside the targets of one folder, removed with everything in it when dropped.
struct Stage {
    target_dir: PathBuf,
    path: PathBuf,
}

impl Stage {
    fn create(target_dir: &Path) -> Result<Stage, WriteError> {
        let pid = std::process::id();
        let mut n = 0u32;
        loop {
            let path = target_dir.join(format!(".squillion-staging-{pid}-{n}"));
            match std::fs::create_dir(&path) {
                Ok(()) => {
                    return Ok(Stage {
                        target_dir: target_dir.to_path_buf(),
                        path,
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => n += 1,
                Err(source) => return Err(WriteError { path, source }),
            }
        }
    }
}

impl Drop for Stage {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// One staged output.
struct Staged {
    target: PathBuf,
    new: PathBuf,
    old: PathBuf,
    had_old: bool,
}

/// Moves the current target aside (into the stage) and the new content into place.
fn replace(s: &mut Staged) -> Result<(), WriteError> {
    let error = |source| WriteError {
        path: s.target.clone(),
        source,
    };
    match std::fs::symlink_metadata(&s.target) {
        Ok(meta) if meta.is_dir() => {
            return Err(error(std::io::Error::new(
                std::io::ErrorKind::IsADirectory,
                "is a directory",
            )))
        }
        Ok(_) => {
            std::fs::rename(&s.target, &s.old).map_err(error)?;
            s.had_old = true;
        }
        Err(_) => {}
    }
    if let Err(source) = std::fs::rename(&s.new, &s.target) {
        if s.had_old {
            let _ = std::fs::rename(&s.old, &s.target);
        }
        return Err(error(source));
    }
    Ok(())
}

/// Puts back what [`replace`] changed.
fn restore(s: &Staged) {
    if s.had_old {
        let _ = std::fs::rename(&s.old, &s.target);
    } else {
        let _ = std::fs::remove_file(&s.target);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(path: PathBuf, content: &str) -> Output {
        Output {
            path,
            content: content.to_owned(),
        }
    }

    fn listing(dir: &Path) -> Vec<(String, String)> {
        let mut out: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                let content = std::fs::read_to_string(&p).unwrap_or_else(|_| "<dir>".into());
                (name, content)
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn writes_every_file_and_keeps_the_users_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.tmp"), "mine").unwrap();
        std::fs::write(dir.path().join("a.rs.tmp"), "mine too").unwrap();
        std::fs::write(dir.path().join("a.rs"), "old").unwrap();
        let outs = [
            output(dir.path().join("a.rs"), "new rust"),
            output(dir.path().join("a.mongosh.js"), "new js"),
        ];
        let written = write_all(&outs).unwrap();
        assert_eq!(written.len(), 2);
        assert_eq!(
            listing(dir.path()),
            vec![
                ("a.mongosh.js".into(), "new js".into()),
                ("a.rs".into(), "new rust".into()),
                ("a.rs.tmp".into(), "mine too".into()),
                ("a.tmp".into(), "mine".into()),
            ]
        );
        // Unchanged: nothing written.
        assert!(write_all(&outs).unwrap().is_empty());
    }

    #[test]
    fn a_failure_while_replacing_puts_everything_back() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.rs"), "old").unwrap();
        std::fs::write(dir.path().join("a.tmp"), "mine").unwrap();
        // The second target is a folder: it cannot be replaced by a file.
        std::fs::create_dir(dir.path().join("a.mongosh.js")).unwrap();
        let before = listing(dir.path());
        let outs = [
            output(dir.path().join("a.rs"), "new rust"),
            output(dir.path().join("new.rs"), "new file"),
            output(dir.path().join("a.mongosh.js"), "new js"),
        ];
        let e = write_all(&outs).unwrap_err();
        assert_eq!(e.path, dir.path().join("a.mongosh.js"));
        assert_eq!(listing(dir.path()), before);
    }

    #[test]
    fn a_failure_while_staging_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.rs"), "old").unwrap();
        std::fs::write(dir.path().join("blocker"), "a file").unwrap();
        let before = listing(dir.path());
        let outs = [
            output(dir.path().join("a.rs"), "new rust"),
            // Its folder cannot be created: a file is in the way.
            output(dir.path().join("blocker/b.rs"), "new"),
        ];
        let e = write_all(&outs).unwrap_err();
        assert_eq!(e.path, dir.path().join("blocker"));
        assert_eq!(listing(dir.path()), before);
    }
}
