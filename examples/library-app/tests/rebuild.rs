//! build.rs reruns only when the schema changes: a no-op rebuild of this crate leaves the build
//! script alone (it prints `cargo:rerun-if-changed` for the schema and writes its output only
//! when the content changed).

use std::process::Command;

fn cargo_build() -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    // The environment of a plain shell: the variables cargo sets for tests would be seen by
    // dependencies' build scripts (`rerun-if-env-changed`) and rebuild them.
    let mut cmd = Command::new(cargo);
    cmd.env_clear();
    for key in [
        "PATH",
        "HOME",
        "CARGO_HOME",
        "RUSTUP_HOME",
        "RUSTUP_TOOLCHAIN",
        "CARGO_TARGET_DIR",
    ] {
        if let Some(v) = std::env::var_os(key) {
            cmd.env(key, v);
        }
    }
    let out = cmd
        .args(["build", "-v", "-p", "squillion-example-library"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "cargo build failed:\n{stderr}");
    stderr
}

#[test]
fn a_no_op_rebuild_does_not_rerun_the_build_script() {
    cargo_build();
    let second = cargo_build();
    assert!(
        second.contains("Fresh squillion-example-library"),
        "the crate is up to date:\n{second}"
    );
    let reran = second.lines().any(|l| {
        l.contains("Running")
            && l.contains("squillion-example-library")
            && l.contains("build-script")
    });
    assert!(!reran, "the build script ran again:\n{second}");
}
