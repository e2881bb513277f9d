#!/usr/bin/env bash
# Runs a command against a real MongoDB-compatible server:
#   scripts/with-server.sh cargo test --workspace
# With SQUILLION_MONGODB_URI already set (a real MongoDB replica set, say), it only runs the
# command. Otherwise it installs the test server if needed, starts it on a free loopback port with
# a temporary data directory, waits until it answers, exports SQUILLION_MONGODB_URI, runs the
# command, then stops the server by its PID and removes the data, whatever happened.
set -euo pipefail

if [ -n "${SQUILLION_MONGODB_URI:-}" ]; then
  "$@"
  exit $?
fi

here="$(cd "$(dirname "$0")" && pwd)"
"$here/ensure-server.sh"
export PATH="$HOME/.cargo/bin:$PATH"

data="$(mktemp -d "${TMPDIR:-/tmp}/squillion-server.XXXXXX")"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
secantusd-rs --host 127.0.0.1 --port "$port" --storage-path "$data/db" --cache-size 1G \
  --log-file-max 16MB >"$data/server.log" 2>&1 &
pid=$!

cleanup() {
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -rf "$data"
}
trap cleanup EXIT INT TERM

ready=0
for _ in $(seq 1 300); do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "test server exited before answering; its log:" >&2
    cat "$data/server.log" >&2
    exit 1
  fi
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    ready=1
    break
  fi
  sleep 0.1
done
if [ "$ready" -ne 1 ]; then
  echo "test server did not answer on 127.0.0.1:$port within 30 s; its log:" >&2
  cat "$data/server.log" >&2
  exit 1
fi

export SQUILLION_MONGODB_URI="mongodb://127.0.0.1:$port/?directConnection=true"
echo "test server: $SQUILLION_MONGODB_URI (pid $pid)"
set +e
"$@"
status=$?
set -e
exit "$status"
