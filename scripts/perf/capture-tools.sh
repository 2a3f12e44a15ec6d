#!/usr/bin/env bash
# Runs `a2a-lab check` and a2a-doctor 0.4.0 (`lifecycle`, and `artifacts`
# for the chunk checks it keeps apart) on every small capture in
# tests/fixtures/captures/doctor/ and prints what each reports: a Markdown
# table (docs/capture-tools.md) followed by each tool's full output.
#
#   scripts/perf/capture-tools.sh
#
# Environment: A2A_LAB (default target/release/a2a-lab, built if missing),
# DOCTOR (default /tmp/a2a-doctor-venv/bin/a2a-doctor; the venv is made
# with `pip install a2a-doctor==0.4.0` when missing).
set -euo pipefail
cd "$(dirname "$0")/../.."

A2A_LAB=${A2A_LAB:-target/release/a2a-lab}
DOCTOR=${DOCTOR:-/tmp/a2a-doctor-venv/bin/a2a-doctor}
DIR=tests/fixtures/captures/doctor

if [[ ! -x $A2A_LAB ]]; then
  cargo build --release --bin a2a-lab
fi
if [[ ! -x $DOCTOR ]]; then
  venv=$(dirname "$(dirname "$DOCTOR")")
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q a2a-doctor==0.4.0
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# One cell: exit code, then the findings in short.
lab_cell() {
  local file=$1 code
  set +e
  "$A2A_LAB" check --json "$file" >"$out/lab.json" 2>"$out/lab.err"
  code=$?
  set -e
  if [[ $code == 2 ]]; then
    echo "exit 2: $(head -c 120 "$out/lab.err" | tr '\n' ' ')"
    return
  fi
  python3 - "$out/lab.json" "$code" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
codes = {}
for f in r["findings"]:
    codes[f["code"]] = codes.get(f["code"], 0) + 1
parts = [f"{c}×{n}" if n > 1 else c for c, n in codes.items()] or ["clean"]
if r["errors"]:
    parts.append("errors: " + ", ".join(str(e["code"]) for e in r["errors"]))
tasks = ", ".join(f'{t["final_state"]}' for t in r["tasks"])
print(f"exit {sys.argv[2]}: {'; '.join(parts)} ({len(r['tasks'])} task(s): {tasks})")
EOF
}

doctor_cell() {
  local sub=$1 file=$2 code
  set +e
  "$DOCTOR" "$sub" "$file" >"$out/doc.txt" 2>"$out/doc.err"
  code=$?
  set -e
  python3 - "$out/doc.txt" "$out/doc.err" "$code" <<'EOF'
import re, sys
text, err, code = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
if "Traceback" in err:
    last = err.strip().splitlines()[-1]
    print(f"exit {code}: crash, {last.split(':')[0]}")
    sys.exit()
found = re.findall(r"\[(CRITICAL|WARNING|INFO)\s*\]\s*(.*)", text)
if not found:
    print(f"exit {code}: clean")
else:
    short = []
    for sev, msg in found:
        msg = re.sub(r"'[0-9a-f]{16}'", "T", msg)
        msg = re.sub(r"^(line|event) \d+: ", "", msg)
        short.append(f"{sev} {msg[:70]}")
    print(f"exit {code}: " + "; ".join(short))
EOF
}

echo "| capture | a2a-lab check | a2a-doctor lifecycle | a2a-doctor artifacts |"
echo "|---|---|---|---|"
for file in "$DIR"/*.jsonl "$DIR"/*.sse; do
  name=$(basename "$file")
  echo "| \`$name\` | $(lab_cell "$file") | $(doctor_cell lifecycle "$file") | $(doctor_cell artifacts "$file") |"
done

echo
for file in "$DIR"/*.jsonl "$DIR"/*.sse; do
  echo "=== $file"
  echo "--- a2a-lab check"
  "$A2A_LAB" check "$file" 2>&1 || echo "(exit $?)"
  echo "--- a2a-doctor lifecycle"
  "$DOCTOR" lifecycle "$file" 2>&1 | tail -n 12 || true
  echo "--- a2a-doctor artifacts"
  "$DOCTOR" artifacts "$file" 2>&1 | tail -n 8 || true
done
