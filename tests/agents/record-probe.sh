#!/usr/bin/env bash
# Records what the probe receives from every real test agent (the three
# SDKs, both wires where the SDK has them, healthy and with each defect,
# over REST, under --tasks, with a thin card) and from the stand-ins (bad.py's endless stream, hostile.py), as
# the records `cargo test` judges with no agent running
# (tests/model/probe_judge.rs): tests/fixtures/probe/records/SDK-WIRE-DEFECT.json.
# Needs tests/agents/setup.sh to have run once.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo test --quiet --test probe_agents -- --include-ignored
dest=tests/fixtures/probe/records
mkdir -p "$dest"
for dir in target/tmp/probe/*/; do
  name="$(basename "$dir")"
  [ -f "$dir/records.json" ] || continue
  # Runs whose records no test judges again.
  case "$name" in probe-json|baseline|auth-*|ci-recipe-*|bad-*|broken-*) continue ;; esac
  # Message ids carry the run's time; everything else is as received.
  # The a2a-rs agent's runs go to rust/, beside the two SDKs' the
  # scenario tests read (tests/model/probe_judge.rs reads both).
  case "$name" in
    *rust-*) mkdir -p "$dest/rust"; cp "$dir/records.json" "$dest/rust/$name.json" ;;
    *) cp "$dir/records.json" "$dest/$name.json" ;;
  esac
done
ls "$dest"
