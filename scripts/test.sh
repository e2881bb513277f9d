#!/usr/bin/env bash
# Every test: installs what the tests need (the MongoDB-compatible test server, headless
# Chromium, node and the VS Code extension's npm packages), starts the server, and runs the whole
# workspace's tests against it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
scripts/ensure-chromium.sh
scripts/ensure-node-packages.sh
scripts/with-server.sh cargo test --workspace
