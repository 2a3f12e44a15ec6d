#!/usr/bin/env bash
# Records what the probe receives from every real test agent (both SDKs,
# both wires, healthy and with each defect) and from the endless stream of
# bad.py, as the records `cargo test` judges with no agent running
# (tests/probe_judge.rs): tests/fixtures/probe/records/SDK-WIRE-DEFECT.json.
# Needs tests/agents/setup.sh to have run once.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo test --quiet --test probe_agents -- --include-ignored
dest=tests/fixtures/probe/records
mkdir -p "$dest"
for dir in target/tmp/probe/*/; do
  name="$(basename "$dir")"
  [ -f "$dir/records.json" ] && [ "$name" != probe-json ] || continue
  # Message ids carry the run's time; everything else is as received.
  cp "$dir/records.json" "$dest/$name.json"
done
ls "$dest"
