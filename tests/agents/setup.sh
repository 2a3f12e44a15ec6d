#!/usr/bin/env bash
# Makes the real agents runnable, idempotently, from the registries only:
#   - the Python venv with a2a-sdk 1.3.0 (PyPI), exactly as tests/fidelity/python/run.sh makes it
#   - tests/fidelity/js/node_modules with @a2a-js/sdk 1.3.0 (npm ci), exactly as tests/fidelity/js/run.sh
#   - the agents on other stacks (google-adk, fasta2a, PyPI): one venv each, tests/agents/stacks/.venv-*
#   - the a2a-rs agent and recorder (crates.io): cargo build --release --locked in tests/agents/rust
# It writes the same stamp files as the fidelity scripts, so each accepts what the other installed.
# A second run with nothing changed does nothing (and touches no network).
#
#   tests/agents/setup.sh            # all of them
#   tests/agents/setup.sh python     # only the a2a-sdk venv
#   tests/agents/setup.sh js         # only node_modules
#   tests/agents/setup.sh stacks [adk|fasta2a]   # only the other stacks' venvs (stacks/setup.sh)
#   tests/agents/setup.sh rust       # only the a2a-rs workspace (tests/agents/rust, its own target/)
#
# Environment (the same as the fidelity recorders'):
#   A2A_FIDELITY_VENV    venv path (default: tests/fidelity/python/.venv, git-ignored)
#   A2A_FIDELITY_PYTHON  interpreter to build the venv from (default: newest python3.1x >= 3.10)
#   A2A_FIDELITY_NODE    node binary (default: node on PATH; >= 20)
#   A2A_STACKS_PYTHON    interpreter for the stacks' venvs (default: newest python3.1x >= 3.11,
#                        google-adk 2.13.0 needs 3.11)
#   CARGO                cargo binary for the a2a-rs workspace (default: cargo on PATH)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
fid="$(cd "$here/../fidelity" && pwd)"
what="${1:-all}"

# The interpreter to build a venv from: $1 if set, else the newest python3.1x >= 3.$2
# on PATH or under pyenv, else python3 if it is new enough.
pick_python() {
  local py="$1" min="$2" m c root=""
  if [[ -z "$py" ]]; then
    command -v pyenv >/dev/null 2>&1 && root="$(pyenv root 2>/dev/null || true)"
    for m in 13 12 11 10; do
      (( m >= min )) || continue
      for c in "python3.$m" ${root:+$root/versions/3.$m.*/bin/python3.$m}; do
        if [[ -z "$py" && "$c" != *'*'* ]] && command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys' 2>/dev/null; then
          py="$c"
        fi
      done
    done
    if [[ -z "$py" ]] && command -v python3 >/dev/null 2>&1 &&
       python3 -c "import sys; sys.exit(0 if sys.version_info >= (3, $min) else 1)" 2>/dev/null; then
      py=python3
    fi
  fi
  [[ -n "$py" ]] || { echo "no Python >= 3.$min found (set A2A_FIDELITY_PYTHON / A2A_STACKS_PYTHON)" >&2; exit 2; }
  echo "$py"
}

# make_venv VENV REQUIREMENTS CONSTRAINTS STAMP_NAME PYTHON_ENV_VALUE MIN_MINOR:
# the venv with the pinned packages, reinstalled only when the two files change.
make_venv() {
  local venv="$1" req="$2" con="$3" stamp="$1/$4" py want
  want="$(cat "$req" "$con" | sha256sum | cut -d' ' -f1)"
  if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'import sys' 2>/dev/null; then
    py="$(pick_python "$5" "$6")"
    echo "creating venv $venv with $("$py" --version 2>&1)" >&2
    if ! "$py" -m venv --clear "$venv"; then
      if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
        apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
        "$py" -m venv --clear "$venv"
      else
        echo "python -m venv failed; install python3-venv" >&2
        exit 2
      fi
    fi
  fi
  if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
    echo "installing pinned packages into $venv" >&2
    "$venv/bin/python" -m pip install --disable-pip-version-check -q -r "$req" -c "$con"
    echo "$want" > "$stamp"
  fi
}

setup_python() {
  local pyd="$fid/python"
  make_venv "${A2A_FIDELITY_VENV:-$pyd/.venv}" "$pyd/requirements.txt" "$pyd/constraints.txt" \
    .fidelity-stamp "${A2A_FIDELITY_PYTHON:-}" 10
}

# The other stacks: one venv per stack, each from stacks/requirements-S.txt + constraints-S.txt.
setup_stacks() {
  local s stacks=("$@")
  (( ${#stacks[@]} )) || stacks=(adk fasta2a)
  for s in "${stacks[@]}"; do
    [[ "$s" == adk || "$s" == fasta2a ]] || { echo "usage: setup.sh stacks [adk|fasta2a]" >&2; exit 2; }
  done
  for s in "${stacks[@]}"; do
    make_venv "$here/stacks/.venv-$s" "$here/stacks/requirements-$s.txt" "$here/stacks/constraints-$s.txt" \
      .stack-stamp "${A2A_STACKS_PYTHON:-}" 11
  done
}

# setup_js [agents]: @a2a-js/sdk and express; with `agents` (the probe's test agents, which
# never use store=database) without the optional kysely and better-sqlite3, whose install
# tries to download a prebuilt binary and then compiles SQLite from source (minutes on 2
# cores). The recorder (tests/fidelity/js/run.sh) asks for all of them; the stamp names which
# was installed, so each reinstalls what the other left out.
setup_js() {
  local jsd="$fid/js" node="${A2A_FIDELITY_NODE:-node}" major want stamp omit=()
  [[ "${1:-}" == agents ]] && omit=(--omit=optional)
  command -v "$node" >/dev/null 2>&1 || { echo "node not found (set A2A_FIDELITY_NODE)" >&2; exit 2; }
  major="$("$node" -p 'process.versions.node.split(".")[0]')"
  (( major >= 20 )) || { echo "node >= 20 needed, found $("$node" --version)" >&2; exit 2; }
  want="$(cat "$jsd/package.json" "$jsd/package-lock.json" | sha256sum | cut -d' ' -f1)${omit[*]:+ agents}"
  stamp="$jsd/node_modules/.fidelity-stamp"
  # The recorder's full install serves the agents too.
  if [[ -f "$stamp" && "${#omit[@]}" -gt 0 && "$(cat "$stamp")" == "${want% agents}" && -d "$jsd/node_modules/@a2a-js/sdk" ]]; then
    return
  fi
  if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" || ! -d "$jsd/node_modules/@a2a-js/sdk" ]]; then
    echo "installing pinned packages into $jsd/node_modules (npm ci ${omit[*]})" >&2
    (cd "$jsd" && npm ci --no-audit --no-fund --loglevel=error "${omit[@]}")
    echo "$want" > "$stamp"
  fi
}

# Every part at once: the venvs and node_modules wait on the registries while the a2a-rs
# build keeps the cores busy. Each part's output goes to a log of its own, shown if it fails.
setup_all() {
  local logs part pids=() parts=(python js stacks rust) failed=0 i
  logs="$(mktemp -d)"
  for part in "${parts[@]}"; do
    case "$part" in
      js) (setup_js agents) >"$logs/$part.log" 2>&1 & ;;
      *) ("setup_$part") >"$logs/$part.log" 2>&1 & ;;
    esac
    pids+=("$!")
  done
  for i in "${!parts[@]}"; do
    if wait "${pids[$i]}"; then
      cat "$logs/${parts[$i]}.log" >&2
    else
      echo "setup of ${parts[$i]} failed:" >&2; cat "$logs/${parts[$i]}.log" >&2; failed=1
    fi
  done
  rm -rf "$logs"
  return "$failed"
}

# The a2a-rs workspace: built once (release, from its committed Cargo.lock, into its own
# target/), then skipped while a stamp holds the hash of its Cargo.toml, Cargo.lock and
# sources and both binaries are there (a hash, not mtimes: a checkout touches every file).
setup_rust() {
  local dir="$here/rust" cargo="${CARGO:-cargo}" rel want stamp
  rel="$dir/target/release"
  stamp="$rel/.setup-stamp"
  want="$(cd "$dir" && { cat Cargo.toml Cargo.lock; find src -type f | LC_ALL=C sort | xargs cat; } | sha256sum | cut -d' ' -f1)"
  if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" || ! -x "$rel/order-status-agent" || ! -x "$rel/recorder" ]]; then
    command -v "$cargo" >/dev/null 2>&1 || { echo "cargo not found (set CARGO)" >&2; exit 2; }
    echo "building the a2a-rs agent and recorder in $dir (cargo build --release --locked)" >&2
    (cd "$dir" && "$cargo" build --release --locked --quiet --target-dir "$dir/target")
    echo "$want" > "$stamp"
  fi
}

case "$what" in
  all) setup_all ;;
  python) setup_python ;;
  js) setup_js ;;
  stacks) shift; setup_stacks "$@" ;;
  rust) setup_rust ;;
  *) echo "usage: setup.sh [all|python|js|rust|stacks [adk|fasta2a]]" >&2; exit 2 ;;
esac
