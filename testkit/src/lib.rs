//! Test support for squillion (see scripts/test-server.sh).
