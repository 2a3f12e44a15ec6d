#!/usr/bin/env bash
# Probe speed (SPEC §11 "Speed"): `a2a-lab probe URL` and
# `a2a-lab probe URL --tasks 16` against the healthy test agents of
# tests/agents (a2a-sdk and @a2a-js/sdk, wires 1.0 and 0.3, defect none,
# default step timing), beside a2a-testbed 0.3.0a3's `conformance` sweep
# (PyPI) on the same agents. A measurement, not a test.
#
#   scripts/perf/probe-bench.sh
#
# Environment (all optional):
#   RUNS          timed runs of each a2a-lab command per agent (default 5, at least 3)
#   TESTBED_RUNS  timed runs of a2a-testbed per agent (default 3; 0 skips it)
#   AGENTS        which agents, SDK:WIRE (default "python:1.0 python:0.3 js:1.0 js:0.3")
#   TESTBED       a2a-testbed executable (default /tmp/a2a-testbed-venv/bin/a2a-testbed;
#                 when missing, that venv is made with `pip install a2a-testbed==0.3.0a3`,
#                 which needs Python >= 3.12: TESTBED_PYTHON, default the first of
#                 python3.13, python3.12 on PATH)
#   CARGO_TARGET_DIR  where cargo builds (default LAB_REPO/target)
#   LAB_REPO      the checkout whose a2a-lab is built and measured (default this repository)
#
# Each agent is started once (tests/agents/start.sh SDK WIRE none) and
# probed on its own wire (`--wire WIRE`; a2a-testbed `--protocol-version
# WIRE`). One untimed warm-up of each a2a-lab command, then per round: the
# probe, the probe with --tasks 16, and (while TESTBED_RUNS lasts) one
# a2a-testbed sweep, so a change in the machine's load touches all three.
# Wall time around each process (date +%s%N), output to a file.
#
# a2a-testbed 0.3.0a3 posts JSON-RPC to URL + "/a2a/v1/" whatever the card
# says, and these agents serve it at "/": its sweep goes through
# scripts/perf/rpc-path-proxy.py, which strips that prefix. One direct run
# per agent (no proxy) is also timed and reported, for the record.
#
# Prints a Markdown table: median (min–max) per agent and command, the exit
# codes seen and what the tool reported. Exit 0 (the 2 s / 4 s aims are
# reported, not enforced); 2 when something could not be started.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD

RUNS=${RUNS:-5}
TESTBED_RUNS=${TESTBED_RUNS:-3}
AGENTS=${AGENTS:-"python:1.0 python:0.3 js:1.0 js:0.3"}
TESTBED=${TESTBED:-/tmp/a2a-testbed-venv/bin/a2a-testbed}
LAB_REPO=$(cd "${LAB_REPO:-.}" && pwd)
LAB=${CARGO_TARGET_DIR:-$LAB_REPO/target}/release/a2a-lab
(( RUNS >= 3 )) || RUNS=3

echo "== build (once), in $LAB_REPO" >&2
(cd "$LAB_REPO" && cargo build --release --bin a2a-lab) >&2

echo "== test agents' packages (tests/agents/setup.sh)" >&2
tests/agents/setup.sh >&2

if (( TESTBED_RUNS > 0 )) && [[ ! -x $TESTBED ]]; then
  venv=$(dirname "$(dirname "$TESTBED")")
  py=${TESTBED_PYTHON:-$(command -v python3.13 || command -v python3.12 || true)}
  [[ -n $py ]] || { echo "a2a-testbed needs Python >= 3.12: set TESTBED_PYTHON" >&2; exit 2; }
  echo "== a2a-testbed 0.3.0a3 into $venv ($py)" >&2
  "$py" -m venv "$venv"
  "$venv/bin/pip" install -q a2a-testbed==0.3.0a3 >&2
fi

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# start NAME CMD...: runs CMD in the background, waits for the one URL line
# it prints on stdout, and leaves the URL in $work/NAME.url.
start() {
  local name=$1; shift
  "$@" >"$work/$name.url" 2>"$work/$name.err" &
  pids+=($!)
  local pid=$! i
  for ((i = 0; i < 600; i++)); do
    [[ -s $work/$name.url ]] && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  echo "could not start $name: $*" >&2
  tail -n 20 "$work/$name.err" >&2
  exit 2
}

# timed AGENT COMMAND RUN CMD...: one run, a row of $work/runs.tsv
# (agent, command, run, ms, exit code, output file).
timed() {
  local agent=$1 cmd=$2 run=$3; shift 3
  local out="$work/$agent.$cmd.$run.out" t0 t1 code
  t0=$(date +%s%N)
  set +e
  "$@" >"$out" 2>&1
  code=$?
  set -e
  t1=$(date +%s%N)
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$agent" "$cmd" "$run" $(( (t1 - t0) / 1000000 )) "$code" "$out" >>"$work/runs.tsv"
}

: >"$work/runs.tsv"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for spec in $AGENTS; do
  sdk=${spec%%:*} wire=${spec##*:}
  agent="$sdk-$wire"
  echo "== $agent: tests/agents/start.sh $sdk $wire none" >&2
  start "$agent" tests/agents/start.sh "$sdk" "$wire" none
  url=$(cat "$work/$agent.url")
  if (( TESTBED_RUNS > 0 )); then
    start "$agent-proxy" python3 scripts/perf/rpc-path-proxy.py "$url"
    proxy=$(cat "$work/$agent-proxy.url")
  fi

  "$LAB" probe "$url" --wire "$wire" >/dev/null 2>&1 || true
  "$LAB" probe "$url" --wire "$wire" --tasks 16 >/dev/null 2>&1 || true
  for ((r = 1; r <= RUNS; r++)); do
    echo "   round $r" >&2
    timed "$agent" probe "$r" "$LAB" probe "$url" --wire "$wire" --json
    timed "$agent" probe16 "$r" "$LAB" probe "$url" --wire "$wire" --tasks 16 --json
    if (( r <= TESTBED_RUNS )); then
      (cd "$work" && timed "$agent" testbed "$r" env COLUMNS=200 "$TESTBED" conformance "$proxy" \
        --protocol-version "$wire" --baseline none --push-receiver local --no-step-summary)
    fi
  done
  if (( TESTBED_RUNS > 0 )); then
    (cd "$work" && timed "$agent" direct 1 env COLUMNS=200 "$TESTBED" conformance "$url" \
      --protocol-version "$wire" --baseline none --push-receiver local --no-step-summary)
  fi
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$work/runs.tsv" "$AGENTS" <<'EOF'
import json, re, statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
agents = [a.replace(":", "-") for a in sys.argv[2].split()]
names = {
    "probe": "`a2a-lab probe URL`",
    "probe16": "`a2a-lab probe URL --tasks 16`",
    "testbed": "`a2a-testbed conformance` (via rpc-path-proxy)",
    "direct": "`a2a-testbed conformance` (direct)",
}
aims = {"probe": 2.0, "probe16": 4.0}

def lab_summary(path):
    try:
        r = json.load(open(path))
    except Exception:
        return (open(path, errors="replace").read().strip().splitlines()[-1:] or ["no output"])[0]
    outcomes = {}
    for p in r.get("probes", []):
        outcomes[p["outcome"]] = outcomes.get(p["outcome"], 0) + 1
    text = ", ".join(f"{n} {o}" for o, n in sorted(outcomes.items()))
    text += f"; {len(r.get('findings', []))} findings"
    for p in r.get("probes", []):
        load = p.get("load")
        if isinstance(load, dict) and load.get("tasks", 1) > 1:
            text += f"; {load['tasks']} streams, {load['clean']} clean"
    return text

def testbed_summary(path):
    text = open(path, errors="replace").read()
    m = re.findall(r"(\d+ passed[^\n]*contracts)", text)
    if not m:
        return ([l for l in text.strip().splitlines() if l.strip()][-1:] or ["no output"])[0]
    failed = re.findall(r"│\s*(transport\.[a-z0-9_]+)\s*│\s*✗", text)
    return m[-1].strip() + (f" (✗ {', '.join(failed)})" if failed and len(failed) <= 3 else "")

def runs_summary(rs, fn):
    # Each distinct report once, with how many runs gave it.
    seen = {}
    for r in rs:
        t = fn(r[5])
        seen[t] = seen.get(t, 0) + 1
    if len(seen) == 1:
        return next(iter(seen))
    return "; ".join(f"{n}× {t}" for t, n in seen.items())

print("| agent | command | runs | wall time, median (min–max) | exit codes | aim | reported (each distinct report, with its count of runs) |")
print("|---|---|---|---|---|---|---|")
for agent in agents:
    for cmd in ("probe", "probe16", "testbed", "direct"):
        rs = [r for r in rows if r[0] == agent and r[1] == cmd]
        if not rs:
            continue
        ms = [int(r[3]) / 1000 for r in rs]
        codes = sorted({r[4] for r in rs})
        med = statistics.median(ms)
        aim = aims.get(cmd)
        aim_text = "" if aim is None else f"< {aim:g} s: {'met' if max(ms) < aim else ('median met' if med < aim else 'missed')}"
        summary = runs_summary(rs, lab_summary if cmd.startswith("probe") else testbed_summary)
        slowest = []
        for r in rs if cmd == "probe16" else []:
            try:
                slowest += [p["load"]["slowest_ms"] for p in json.load(open(r[5]))["probes"] if p.get("load")]
            except Exception:
                pass
        if slowest:
            summary += f"; slowest stream {min(slowest)}–{max(slowest)} ms"
        print(f"| {agent} | {names[cmd]} | {len(rs)} | {med:.2f} s ({min(ms):.2f}–{max(ms):.2f}) "
              f"| {', '.join(codes)} | {aim_text} | {summary} |")
EOF
echo
echo "Load average (1, 5, 15 min): $load_before before, $load_after after; $(nproc) cores; $("$LAB" --version 2>/dev/null || echo a2a-lab)."
# The direct a2a-testbed runs' failures, for the record.
for f in "$work"/*.direct.1.out; do
  [[ -e $f ]] || continue
  echo
  echo "$(basename "$f" .direct.1.out), a2a-testbed conformance direct (no proxy), failed contracts:"
  grep -E '│ +✗ +│' "$f" | sed -E 's/ *│ */ | /g; s/^ //; s/ $//' | head -n 8 || true
done
exit 0
