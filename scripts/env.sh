# Sourced by the scripts: the project's tools first on PATH, and `step`, which
# prints each step with the time since the command started. wasm-opt comes
# from npm's binaryen 132, never Debian's (which breaks the module).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Where `cargo install` puts trunk and wasm-bindgen-cli (CARGO_INSTALL_ROOT
# lets scripts/first-run-timing.sh start from an empty tool folder).
TOOLS_BIN="${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin"
export PATH="$ROOT/node_modules/.bin:$TOOLS_BIN:$PATH"
command -v cargo >/dev/null || export PATH="$PATH:${CARGO_HOME:-$HOME/.cargo}/bin"
# One clock for a whole command, shared with the scripts it calls.
export A2A_LAB_T0="${A2A_LAB_T0:-$(date +%s)}"
elapsed() { local s=$(( $(date +%s) - A2A_LAB_T0 )); printf '%d:%02d' $((s / 60)) $((s % 60)); }
step() { printf '\n==> [%s] %s\n' "$(elapsed)" "$*"; }
say() { printf '==> [%s] %s\n' "$(elapsed)" "$*"; }
