//! Stable codes of the semantic diagnostics (documented in `docs/diagnostics.md`).
