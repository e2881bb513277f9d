//! Compile tests of `#[derive(squillion::Document)]`: programs that must compile, and mistakes that
//! must be reported with spans, grouped by category (like serde's tests/ui).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/attributes/*.rs");
    t.compile_fail("tests/ui/id/*.rs");
    t.compile_fail("tests/ui/bounds/*.rs");
    t.compile_fail("tests/ui/layouts/*.rs");
    t.compile_fail("tests/ui/indexes/*.rs");
    t.compile_fail("tests/ui/shape/*.rs");
}
