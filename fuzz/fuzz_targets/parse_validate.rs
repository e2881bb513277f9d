//! Any bytes through parse, validation and, when the file is valid, the decision engine: no
//! panic, no hang, whatever the input.
//!
//! `cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run -s none parse_validate corpus/parse_validate
//! ../examples` (stable toolchain, see docs/testing.md; the examples seed the corpus, new inputs
//! go to `corpus/parse_validate`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use squillion_grammar::SourceFile;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let source = SourceFile::new("fuzz.sqn", text.as_ref());
    match squillion_codegen::load(&source) {
        Ok(checked) => {
            let plan = squillion_codegen::engine::plan(&checked.model, &source);
            let _ = plan.has_errors();
        }
        Err(diagnostics) => {
            let _ = source.render(&diagnostics, false);
        }
    }
});
