#!/usr/bin/env bash
# What the a2a-rs agent answers over gRPC (a2a-grpc) next to JSON-RPC, for every DEFECT:
# starts `start.sh rust 1.0 DEFECT grpc=on` and runs target/release/grpc_answers on it (the
# probe's calls on both bindings of the same agent; the request variants on `none`), the
# same on `none ending=raise` and `none cancel_impl=noop`, a never-returns stream watched
# 20 s, then the cards of grpc=only and rest=on grpc=on (~2 min). Ports and uuids masked; into
# tests/agents/rust/answers/grpc.txt (see answers/GRPC.md). Needs `tests/agents/setup.sh rust`.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/answers/grpc.txt"
tmp="$(mktemp -d)"
pid=""
trap '[[ -n "$pid" ]] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT

start() {
  rm -f "$tmp/url"
  "$here/../start.sh" rust 1.0 "$@" > "$tmp/url" & pid=$!
  until [[ -s "$tmp/url" ]]; do
    kill -0 "$pid" 2>/dev/null || { wait "$pid" || true; pid=""; return 1; }
    sleep 0.05
  done
  url="$(cat "$tmp/url")"
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""; }
mask() {
  sed -E "s/127\.0\.0\.1:[0-9]+/127.0.0.1:PORT/g; s/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/ID/g"
}

{
  echo "# tests/agents/rust/grpc_answers.sh: a2a-grpc 0.3.11 on a2a-server-lf 0.5.3, step ${A2A_AGENT_STEP_MS:-200} ms"
  for defect in none no-final late-artifact cancel-raises never-returns; do
    echo
    echo "# ===== DEFECT $defect (start.sh rust 1.0 $defect grpc=on)"
    start "$defect" grpc=on
    extras=()
    [[ "$defect" == none ]] && extras=(extras)
    "$here/target/release/grpc_answers" "$url" "${extras[@]}" 2>&1 || echo "(grpc_answers exit $?)"
    stop
  done

  # The scenario keys where the SDK has an error to deliver in the middle of a stream:
  # execute() failing after its last chunk, and a cancel() that writes nothing (the
  # executor's next event then cannot leave CANCELED).
  for keys in "ending=raise" "cancel_impl=noop"; do
    echo
    echo "# ===== none $keys (start.sh rust 1.0 none $keys grpc=on)"
    start none "$keys" grpc=on
    "$here/target/release/grpc_answers" "$url" 2>&1 || echo "(grpc_answers exit $?)"
    stop
  done

  # never-returns watched 20 s per binding: what an idle stream gets (SSE keep-alive at 15 s?)
  echo
  echo "# ===== never-returns, the stream watched 20 s (A2A_ANSWERS_IDLE_MS=20000)"
  start never-returns grpc=on
  A2A_ANSWERS_IDLE_MS=20000 "$here/target/release/grpc_answers" "$url" stream 2>&1 || echo "(grpc_answers exit $?)"
  stop

  echo
  echo "# ===== cards"
  for args in "grpc=only" "rest=on grpc=on"; do
    # shellcheck disable=SC2086
    start none $args
    echo "## $args: supportedInterfaces"
    curl -sS "$url/.well-known/agent-card.json" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["supportedInterfaces"]))'
    echo "## $args: POST URL/ (JSON-RPC GetTask)"
    curl -sS -o /dev/null -w '%{http_code}\n' -H 'Content-Type: application/json' -H 'A2A-Version: 1.0' \
      -d '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}' "$url/"
    stop
  done
  echo "## rest=on grpc=only"
  start none rest=on grpc=only 2> "$tmp/err" || echo "not started: $(tail -n 2 "$tmp/err" | tr '\n' ' ')"
  if [[ -n "$pid" ]]; then stop; fi
} > "$tmp/raw"
mask < "$tmp/raw" > "$out"
echo "answers in $out"
