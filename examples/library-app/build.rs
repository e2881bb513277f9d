//! Generates `$OUT_DIR/library.rs` from the schema: the structs of every collection, with the
//! layout attributes the derive turns into repositories. Reruns only when the schema changes.

fn main() {
    if let Err(e) = squillion::build::Builder::new()
        .schema("../library.sqn")
        .compile()
    {
        // The diagnostics, rendered with file:line:col, fail the build.
        eprintln!("{e}");
        std::process::exit(1);
    }
}
