#!/usr/bin/env bash
# Installs node and npm (Debian packages `nodejs` and `npm`) if missing, then the npm packages of
# the VS Code extension (editors/vscode) and mongosh (tools/mongosh), each exactly as its
# package-lock.json pins them, unless they are already installed from this very lock file. The
# TextMate grammar test (lsp/tests/textmate.rs) tokenizes every example with the first; the
# migration tests run the generated mongosh scripts with the second. Both fail, saying to run
# this script, when their packages are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
  else
    SUDO=
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
  $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq nodejs npm >/dev/null
fi

# Each directory's packages exactly as its package-lock.json pins them, unless already installed
# from that very lock file.
install() {
  local dir="$1"
  local stamp="$dir/node_modules/.squillion-lock.sha256"
  local want
  want="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    echo "npm packages: up to date with $dir/package-lock.json (node $(node --version))"
    return
  fi
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" >"$stamp"
  echo "npm packages: installed from $dir/package-lock.json (node $(node --version))"
}

install editors/vscode
# mongosh, which the migration tests run the generated mongosh scripts with
# (cli/tests/database/mongosh.rs); they fail, saying to run this script, when it is missing.
install tools/mongosh
