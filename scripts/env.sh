# Sourced by the scripts: the project's tools first on PATH. wasm-opt comes
# from npm's binaryen 132, never Debian's (which breaks the module).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"
