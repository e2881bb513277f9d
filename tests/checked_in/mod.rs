//! Checked-in generator output (the benchmarks' variants and migrations), kept equal to what the
//! generator writes today: compared, or rewritten under `SQUILLION_BLESS`.

use std::path::Path;

/// Whether the run rewrites the checked-in files (`SQUILLION_BLESS` set).
pub fn blessing() -> bool {
    std::env::var_os("SQUILLION_BLESS").is_some()
}

/// Writes `generated` to `path` when blessing; otherwise records in `differ` that the file is
/// missing or differs from it.
pub fn compare_or_bless(path: &Path, generated: &str, differ: &mut Vec<String>) {
    if blessing() {
        std::fs::write(path, generated).unwrap();
        return;
    }
    match std::fs::read_to_string(path) {
        Ok(checked_in) if checked_in == generated => {}
        Ok(_) => differ.push(format!("{} differs", path.display())),
        Err(e) => differ.push(format!("{}: {e}", path.display())),
    }
}
