//! Where the cursor is (filled in later).
