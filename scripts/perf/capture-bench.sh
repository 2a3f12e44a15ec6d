#!/usr/bin/env bash
# Reading a capture: `a2a-lab check` against `a2a-doctor lifecycle`
# (a2a-doctor 0.4.0 from PyPI), both as whole processes on the same
# 1,000,000-event A2A 0.3 JSON Lines capture (scripts/perf/gen-capture.mjs),
# then `a2a-lab check` alone on the same events as an SSE body.
#
#   scripts/perf/capture-bench.sh
#
# Environment (all optional):
#   CAPTURE      JSON Lines capture   (default /tmp/a2a-capture-1m.jsonl, generated when missing)
#   CAPTURE_SSE  the same as SSE      (default /tmp/a2a-capture-1m.sse, generated when missing)
#   TASKS        tasks in a generated capture (default 100000, 10 events each)
#   LAB_RUNS     runs of a2a-lab per input (default 5, at least 3)
#   DOCTOR_RUNS  runs of a2a-doctor (default 3; each takes about 30 s and 2.4 GiB)
#   CARGO_TARGET_DIR  where cargo builds (default LAB_REPO/target)
#   LAB_REPO     the checkout whose a2a-lab is built and measured (default this
#                repository; e.g. an export of a commit, `git archive HEAD | tar -x -C DIR`,
#                to measure committed code while the work tree changes)
#   DOCTOR       a2a-doctor executable (default /tmp/a2a-doctor-venv/bin/a2a-doctor;
#                the venv is made with `pip install a2a-doctor==0.4.0` when missing)
#
# Wall time is taken around each process (date +%s%N), peak resident memory
# from GNU time's %M. Runs of the two tools alternate, so a change in the
# machine's load touches both. Prints a Markdown table; exit 1 when the two
# tools disagree on the verdict, else 0 (the aims are reported, not enforced).
set -euo pipefail
cd "$(dirname "$0")/../.."

CAPTURE=${CAPTURE:-/tmp/a2a-capture-1m.jsonl}
CAPTURE_SSE=${CAPTURE_SSE:-/tmp/a2a-capture-1m.sse}
TASKS=${TASKS:-100000}
LAB_RUNS=${LAB_RUNS:-5}
DOCTOR_RUNS=${DOCTOR_RUNS:-3}
DOCTOR=${DOCTOR:-/tmp/a2a-doctor-venv/bin/a2a-doctor}
LAB_REPO=$(cd "${LAB_REPO:-.}" && pwd)
# Where `cargo build` puts the binary: CARGO_TARGET_DIR when set.
LAB=${CARGO_TARGET_DIR:-$LAB_REPO/target}/release/a2a-lab
TIME=/usr/bin/time
(( LAB_RUNS >= 3 )) || LAB_RUNS=3
(( DOCTOR_RUNS >= 1 )) || DOCTOR_RUNS=1

[[ -x $TIME ]] || { echo "GNU time is missing: apt-get install time" >&2; exit 2; }

echo "== build (once), in $LAB_REPO" >&2
(cd "$LAB_REPO" && cargo build --release --bin a2a-lab) >&2

if [[ ! -x $DOCTOR ]]; then
  echo "== a2a-doctor 0.4.0 into $(dirname "$(dirname "$DOCTOR")")" >&2
  venv=$(dirname "$(dirname "$DOCTOR")")
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q a2a-doctor==0.4.0 >&2
fi

[[ -s $CAPTURE ]] || node scripts/perf/gen-capture.mjs "$TASKS" 42 "$CAPTURE" >&2
[[ -s $CAPTURE_SSE ]] || node scripts/perf/gen-capture.mjs "$TASKS" 42 "$CAPTURE_SSE" --sse >&2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --- same verdict --------------------------------------------------------
echo "== verdicts" >&2
set +e
"$LAB" check --json "$CAPTURE" >"$work/lab.json"; lab_code=$?
"$DOCTOR" lifecycle "$CAPTURE" >"$work/doctor.txt" 2>"$work/doctor.err"; doctor_code=$?
"$LAB" check --json "$CAPTURE_SSE" >"$work/lab-sse.json"; lab_sse_code=$?
"$DOCTOR" lifecycle "$CAPTURE_SSE" >/dev/null 2>"$work/doctor-sse.err"; doctor_sse_code=$?
set -e
verdicts=$(python3 - "$work" "$lab_code" "$doctor_code" "$lab_sse_code" "$doctor_sse_code" <<'EOF'
import json, re, sys
work, lab_code, doctor_code, lab_sse_code, doctor_sse_code = sys.argv[1], *map(int, sys.argv[2:])
def lab(path, code):
    r = json.load(open(path))
    events = sum(t["events"] for t in r["tasks"])
    clean = code == 0 and not r["findings"] and not r["errors"]
    return clean, len(r["tasks"]), f'exit {code}, {len(r["tasks"])} tasks, {events} events, {len(r["findings"])} findings, wire {r["wire"]}'
l_clean, l_tasks, l_text = lab(f"{work}/lab.json", lab_code)
s_clean, s_tasks, s_text = lab(f"{work}/lab-sse.json", lab_sse_code)
d = open(f"{work}/doctor.txt").read()
m = re.search(r"report — (\d+) task\(s\), (\d+) finding\(s\)", d)
d_tasks, d_findings = (int(m[1]), int(m[2])) if m else (-1, -1)
d_clean = doctor_code == 0 and d_findings == 0 and "verdict: clean" in d
d_text = f"exit {doctor_code}, {d_tasks} tasks, {d_findings} findings"
err = open(f"{work}/doctor-sse.err").read().strip().splitlines()
sse_doc = f"exit {doctor_sse_code}" + (f", {err[-1][:80]}" if err else "")
same = l_clean and d_clean and l_tasks == d_tasks and s_clean and s_tasks == l_tasks
print(f"a2a-lab check, JSON Lines: {l_text}")
print(f"a2a-doctor lifecycle, JSON Lines: {d_text}")
print(f"a2a-lab check, SSE: {s_text}")
print(f"a2a-doctor lifecycle, SSE: {sse_doc}")
print("SAME" if same else "DIFFERENT")
EOF
)
echo "$verdicts" | sed '$d' | sed 's/^/  /' >&2
if [[ $(echo "$verdicts" | tail -n1) != SAME ]]; then
  echo "the two tools do not give the same clean verdict; not timing" >&2
  exit 1
fi

# --- timing --------------------------------------------------------------
# run NAME CMD...: one timed run, appends "wall_ms rss_kib" to $work/NAME.
run() {
  local name=$1; shift
  local t0 t1
  t0=$(date +%s%N)
  "$TIME" -f '%M' -o "$work/rss" "$@" >/dev/null 2>"$work/stderr" || true
  t1=$(date +%s%N)
  echo "$(( (t1 - t0) / 1000000 )) $(tail -n1 "$work/rss")" >>"$work/$name"
}

echo "== timing: $LAB_RUNS × a2a-lab (JSON Lines), $DOCTOR_RUNS × a2a-doctor, $LAB_RUNS × a2a-lab (SSE)" >&2
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
max=$(( LAB_RUNS > DOCTOR_RUNS ? LAB_RUNS : DOCTOR_RUNS ))
for (( i = 1; i <= max; i++ )); do
  if (( i <= LAB_RUNS )); then run lab "$LAB" check "$CAPTURE"; fi
  if (( i <= DOCTOR_RUNS )); then run doctor "$DOCTOR" lifecycle "$CAPTURE"; fi
  if (( i <= LAB_RUNS )); then run lab-sse "$LAB" check "$CAPTURE_SSE"; fi
  echo "  run $i done" >&2
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$work" "$CAPTURE" "$CAPTURE_SSE" "$load_before" "$load_after" <<'EOF'
import os, statistics, sys
work, jsonl, sse, before, after = sys.argv[1:]
def rows(name):
    return [tuple(map(int, l.split())) for l in open(f"{work}/{name}")]
def stats(name):
    r = rows(name)
    wall = [w for w, _ in r]
    rss = [k / 1024 for _, k in r]
    return statistics.median(wall), min(wall), max(wall), statistics.median(rss), max(rss), len(r)
lab, doc, sse_lab = stats("lab"), stats("doctor"), stats("lab-sse")
mb = lambda p: os.path.getsize(p) / 1e6
def row(tool, inp, s, aim_t="", aim_m=""):
    med, lo, hi, rss, rss_max, n = s
    return f"| {tool} | {inp} | {n} | {med/1000:.2f} s ({lo/1000:.2f}–{hi/1000:.2f}) | {rss:.1f} MiB (max {rss_max:.1f}) |"
print(f"| tool | input | runs | wall time, median (min–max) | peak RSS, median (max) |")
print("|---|---|---|---|---|")
print(row("`a2a-lab check`", f"JSON Lines, {mb(jsonl):.0f} MB", lab))
print(row("`a2a-doctor lifecycle` 0.4.0", f"JSON Lines, {mb(jsonl):.0f} MB", doc))
print(row("`a2a-lab check`", f"SSE, {mb(sse):.0f} MB", sse_lab))
ratio = doc[0] / lab[0]
print()
print(f"speed ratio (a2a-doctor median / a2a-lab median, JSON Lines): {ratio:.1f}× — aim ≥ 20×: {'met' if ratio >= 20 else 'MISSED'}")
print(f"a2a-lab peak RSS: {lab[4]:.1f} MiB JSON Lines, {sse_lab[4]:.1f} MiB SSE (max of runs) — aim ≤ 40 MiB: {'met' if max(lab[4], sse_lab[4]) <= 40 else 'MISSED'}")
print(f"a2a-lab throughput: {1e6 / lab[0] / 1000:.2f} M events/s if the capture holds 1,000,000 events")
print(f"load average (1, 5, 15 min): {before} before, {after} after")
EOF
