#!/usr/bin/env bash
# Records small raw REST (HTTP+JSON) answers of the real agents (DEFECT none, rest=on) with
# curl, into raw/rest-<sdk>-<binding>-*: the card, one stream, :cancel and :subscribe on the
# finished task, GET on an unknown task. Binding 1.0 on the 1.0 agents (URL/rest, header
# A2A-Version: 1.0); binding 0.3 on the 0.3 agents (URL/rest/v1, no header).
# These curl lines are the exact requests (see ../ANSWERS.md, "REST").
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/raw"; mkdir -p "$out"
for sdk in python js; do for wire in 1.0 0.3; do
  tmp="$(mktemp)"
  "$here/../start.sh" "$sdk" "$wire" none rest=on > "$tmp" & pid=$!
  until [[ -s "$tmp" ]]; do kill -0 "$pid" 2>/dev/null || { echo "agent failed" >&2; exit 1; }; sleep 0.05; done
  url="$(cat "$tmp")"; rm -f "$tmp"
  p="$out/rest-$sdk-$wire"
  if [[ "$wire" == 1.0 ]]; then
    base="$url/rest"; hdr=(-H 'A2A-Version: 1.0')
    msg='{"messageId":"msg-1","role":"ROLE_USER","parts":[{"text":"Where is my order BBS-1042?"}]}'
  else
    base="$url/rest/v1"; hdr=()
    msg='{"messageId":"msg-1","role":"ROLE_USER","content":[{"text":"Where is my order BBS-1042?"}]}'
  fi
  curl -s "$url/.well-known/agent-card.json" | sed "s#$url#http://127.0.0.1:PORT#g" > "$p-card.json"
  curl -sN -D "$p-stream.headers" -X POST "$base/message:stream" -H 'Content-Type: application/json' \
    -H 'Accept: text/event-stream' "${hdr[@]}" -d "{\"message\":$msg}" > "$p-stream.sse"
  tid="$(grep -o '"id": *"[0-9a-f-]\{36\}"' "$p-stream.sse" | head -1 | grep -o '[0-9a-f-]\{36\}')"
  curl -s -D "$p-cancel-terminal.headers" -X POST "$base/tasks/$tid:cancel" "${hdr[@]}" > "$p-cancel-terminal.body"
  curl -sN -D "$p-subscribe-terminal.headers" -X POST "$base/tasks/$tid:subscribe" \
    -H 'Accept: text/event-stream' "${hdr[@]}" > "$p-subscribe-terminal.body" \
    || echo "(curl exit $?: the body ended without its last chunk)" >> "$p-subscribe-terminal.headers"
  curl -s -D "$p-get-unknown.headers" "$base/tasks/no-such-task" "${hdr[@]}" > "$p-get-unknown.body"
  sed -i '/^[Dd]ate:/d; /^[Ee][Tt]ag:/d' "$p"-*.headers
  kill "$pid"; wait "$pid" || true
  echo "$p-*"
done; done
