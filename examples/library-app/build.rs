//! Generates `$OUT_DIR/library.rs` from `../library.sqn` (the output is named after the schema's
//! file stem): the structs of every collection, with the layout attributes the derive turns into
//! repositories. Reruns only when the schema changes.

fn main() -> Result<(), squillion_build::BuildError> {
    // A bad schema fails the build with its diagnostics (file:line:col, message, help).
    squillion_build::Builder::new()
        .schema("../library.sqn")
        .compile()?;
    Ok(())
}
