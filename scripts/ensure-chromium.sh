#!/usr/bin/env bash
# Installs headless Chromium (Debian package `chromium`) if no Chromium is on PATH.
# The review browser test (codegen/tests/review_browser.rs) renders every example's HTML review
# with it to PNG and PDF; it fails, saying to run this script, when Chromium is missing.
set -euo pipefail

for candidate in "${CHROMIUM:-}" chromium chromium-browser google-chrome; do
  if [ -n "$candidate" ] && command -v "$candidate" >/dev/null 2>&1; then
    echo "chromium: $(command -v "$candidate") ($("$candidate" --version 2>/dev/null || echo 'version unknown'))"
    exit 0
  fi
done

if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
else
  SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq chromium >/dev/null
echo "chromium: $(command -v chromium) ($(chromium --version 2>/dev/null || echo 'version unknown'))"
