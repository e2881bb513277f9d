#!/usr/bin/env bash
# Shrinks a failing schema of the model-based harness to a minimal one (docs/testing.md):
#   scripts/modelcheck-shrink.sh <seed> <index> <failure.ops.json>
# Each round builds the schema with the reductions kept so far plus every one-step reduction
# (an entity, a relation, a pattern, a fact, a field, a query dropped), keeps the first that
# still fails the same way (the same failure class as the first round's, recorded in
# target/tmp/modelcheck-shrink/class: the same check and kind of message, names and values
# aside; modelcheck/src/shrink.rs), and shrinks the operations again, keeping only shorter
# sequences of that class; it stops when no reduction keeps the failure and writes the minimal
# schema and operations in the regressions' format (SQUILLION_MODELCHECK_KEEP=1: into
# modelcheck/regressions/).
set -euo pipefail
seed="${1:?usage: modelcheck-shrink.sh <seed> <index> <ops.json>}"
index="${2:?usage: modelcheck-shrink.sh <seed> <index> <ops.json>}"
ops="${3:?usage: modelcheck-shrink.sh <seed> <index> <ops.json>}"
root="$(cd "$(dirname "$0")/.." && pwd)"
state="$root/target/tmp/modelcheck-shrink"
mkdir -p "$state"
# A new shrink: its class is the one this failure shows in the first round.
rm -f "$state/class"
cp "$ops" "$state/start.ops.json"
ops="$state/start.ops.json"
spec="$seed $index"
round=0
while :; do
  round=$((round + 1))
  echo "round $round: $spec" >&2
  SQUILLION_MODELCHECK_SHRINK="$spec" SQUILLION_MODELCHECK_SHRINK_OPS="$ops" \
    "$root/scripts/with-server.sh" cargo test -p squillion-modelcheck --test batch shrink_schema \
    -- --ignored --nocapture
  next="$(cat "$state/next")"
  if [ -z "$next" ]; then
    echo "minimal after $round rounds: $spec" >&2
    break
  fi
  spec="$next"
  cp "$state/ops.json" "$state/round.ops.json"
  ops="$state/round.ops.json"
done
