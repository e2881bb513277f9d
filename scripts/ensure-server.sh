#!/usr/bin/env bash
# Installs the test server, SecantusDB's `secantusd-rs` (crate `secantus-mdb`, pinned), if it is
# not there yet. It speaks MongoDB 8's wire protocol and presents itself as a one-node replica set,
# so transactions work. It is GPL-2.0: the tests run it as a separate process, never linked.
# Idempotent: an installed binary of the pinned version is reused (about 5 minutes to build once).
set -euo pipefail

VERSION="0.5.3-beta.196"
export PATH="$HOME/.cargo/bin:$PATH"

if command -v secantusd-rs >/dev/null 2>&1 && secantusd-rs --version 2>/dev/null | grep -q "$VERSION"; then
  echo "test server: $(command -v secantusd-rs) $VERSION"
  exit 0
fi

echo "test server: installing secantus-mdb $VERSION (one time, a few minutes)"
if ! command -v cmake >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
  $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq cmake >/dev/null
fi
cargo install secantus-mdb --version "$VERSION" --ignore-rust-version --locked
secantusd-rs --version
