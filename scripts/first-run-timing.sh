#!/usr/bin/env bash
# Times a newcomer's runs of the README's two commands, so anyone can
# re-measure them:
#   1. a fresh clone with no tools: `bash scripts/test.sh` (first run), then again (later run);
#   2. another fresh clone with no tools: `bash scripts/serve.sh` until the
#      lab answers at http://127.0.0.1:8080 (first run), then again (later run).
# "No tools": each clone, with nothing beside it (as a user's own clone),
# gets an empty CARGO_INSTALL_ROOT (so trunk and wasm-bindgen-cli are
# compiled again), its own node_modules/ and target/, and a PATH that holds
# only the Rust toolchain and the system. With --from-scratch (as root)
# Debian's chromium and chromium-driver and the wasm32 target are removed
# first, so they are installed again too. With --cold-registry the clones
# get an empty cargo registry (a fresh CARGO_HOME; rustup's toolchains stay
# where rustup keeps them) and empty npm and pip caches, so every crate and
# package is downloaded again, as on a machine where only Rust was set up.
# Every clone is of one commit, HEAD when the script starts (or --commit REV),
# so that all the figures of one run are of the same code.
#   bash scripts/first-run-timing.sh [--from-scratch] [--cold-registry] [--commit REV] [--only test|serve] [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
scratch=0
[ "${1:-}" = --from-scratch ] && { scratch=1; shift; }
cold=0
[ "${1:-}" = --cold-registry ] && { cold=1; shift; }
commit="$(git rev-parse HEAD)"
[ "${1:-}" = --commit ] && { commit="$(git rev-parse "$2")"; shift 2; }
only=both
[ "${1:-}" = --only ] && { only="$2"; shift 2; }
out="${1:-$(mktemp -d /tmp/a2a-lab-first-run.XXXXXX)}"
mkdir -p "$out"
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
# The toolchain's proxies live in the real CARGO_HOME; the clones may use another.
proxies="$cargo_home/bin"
rustup_home="${RUSTUP_HOME:-$HOME/.rustup}"

if [ "$scratch" = 1 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq chromium chromium-driver chromium-common >/dev/null 2>&1 || true
  DEBIAN_FRONTEND=noninteractive apt-get autoremove -y -qq >/dev/null 2>&1 || true
  rustup target remove wasm32-unknown-unknown >/dev/null 2>&1 || true
fi

# A PATH with the Rust toolchain's proxies and the system, nothing else.
bin="$out/rust-bin"
mkdir -p "$bin"
for tool in cargo rustc rustup rustfmt rustdoc cargo-fmt cargo-clippy clippy-driver; do
  [ -e "$proxies/$tool" ] && ln -sf "$proxies/$tool" "$bin/$tool"
done
clean_path="$bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

fresh() { # fresh NAME: a new clone with nothing beside it, an empty tool folder, and (cold) empty caches
  rm -rf "$out/$1"
  git clone --quiet "$repo" "$out/$1/repo"
  git -C "$out/$1/repo" checkout --quiet "$commit"
  mkdir -p "$out/$1/tools"
  [ "$cold" = 1 ] && mkdir -p "$out/$1/cargo-home" "$out/$1/npm-cache" "$out/$1/pip-cache"
  return 0
}
in_clone() { # in_clone NAME CMD...: becomes CMD, in the clone with only its own tools (call it in a subshell)
  local name="$1"; shift
  local caches=(CARGO_HOME="$cargo_home")
  [ "$cold" = 1 ] && caches=(CARGO_HOME="$out/$name/cargo-home" RUSTUP_HOME="$rustup_home"
    npm_config_cache="$out/$name/npm-cache" PIP_CACHE_DIR="$out/$name/pip-cache")
  cd "$out/$name/repo" && exec env -u A2A_LAB_T0 PATH="$clean_path" "${caches[@]}" \
     CARGO_INSTALL_ROOT="$out/$name/tools" "$@"
}
report() { printf '%-34s %4d:%02d  %s\n' "$1" $(($2 / 60)) $(($2 % 60)) "$3" | tee -a "$out/times.txt"; }

time_test() { # time_test NAME LABEL
  local t0=$SECONDS status=passed
  (in_clone "$1" bash scripts/test.sh) >"$out/$2.log" 2>&1 || status="FAILED (see $out/$2.log)"
  report "$2" $((SECONDS - t0)) "$status"
}
time_serve() { # time_serve NAME LABEL: until the lab's page and module answer
  local t0=$SECONDS status="lab served"
  # Its own process group (setsid), so that stopping it stops trunk too; the
  # background job becomes setsid itself, so $! is that group's leader.
  in_clone "$1" setsid bash scripts/serve.sh >"$out/$2.log" 2>&1 &
  local pid=$!
  until curl -sf -o /dev/null http://127.0.0.1:8080/ \
        && curl -sf -o /dev/null http://127.0.0.1:8080/a2a-lifecycle-lab_bg.wasm; do
    if ! kill -0 "$pid" 2>/dev/null; then status="FAILED (see $out/$2.log)"; break; fi
    sleep 2
  done
  report "$2" $((SECONDS - t0)) "$status"
  kill -- -"$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  # The next run needs the port: wait until nothing answers there.
  while curl -sf -o /dev/null http://127.0.0.1:8080/; do sleep 1; done
}

: >"$out/times.txt"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(. /etc/os-release && echo "$PRETTY_NAME"), $(rustc --version)" | tee -a "$out/times.txt"
echo "commit: $(git rev-parse --short "$commit"); cargo registry: $([ "$cold" = 1 ] && echo "empty (a fresh CARGO_HOME, npm and pip cache per clone)" || echo "$cargo_home, as it is")" | tee -a "$out/times.txt"
if curl -sf -o /dev/null http://127.0.0.1:8080/; then
  echo "something already answers on 127.0.0.1:8080: stop it first" >&2
  exit 1
fi
if [ "$only" != serve ]; then
  fresh test-first
  time_test test-first "test.sh, first run"
  time_test test-first "test.sh, later run"
fi
if [ "$only" != test ]; then
  fresh serve-first
  time_serve serve-first "serve.sh, first run (lab answers)"
  time_serve serve-first "serve.sh, later run (lab answers)"
fi
echo "logs and times: $out"
