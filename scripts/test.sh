#!/usr/bin/env bash
# Every test: installs what the tests need (the MongoDB-compatible test server, headless
# Chromium), starts the server, and runs the whole workspace's tests against it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
scripts/ensure-chromium.sh
scripts/with-server.sh cargo test --workspace
