#!/usr/bin/env bash
# Records small raw answers of the four real agents (DEFECT none) with curl, into raw/:
# the card, one stream, CancelTask and SubscribeToTask on the finished task.
# These curl lines are the exact requests that work (see ../ANSWERS.md).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/raw"; mkdir -p "$out"
for sdk in python js; do for wire in 1.0 0.3; do
  tmp="$(mktemp)"
  "$here/../start.sh" "$sdk" "$wire" none > "$tmp" & pid=$!
  until [[ -s "$tmp" ]]; do kill -0 "$pid" 2>/dev/null || { echo "agent failed" >&2; exit 1; }; sleep 0.05; done
  url="$(cat "$tmp")"; rm -f "$tmp"
  p="$out/$sdk-$wire"
  curl -s "$url/.well-known/agent-card.json" | sed "s#$url#http://127.0.0.1:PORT#g" > "$p-card.json"
  if [[ "$wire" == 1.0 ]]; then
    hdr=(-H 'A2A-Version: 1.0'); stream=SendStreamingMessage; cancel=CancelTask; sub=SubscribeToTask
    msg='{"messageId":"msg-1","role":"ROLE_USER","parts":[{"text":"Where is my order BBS-1042?"}]}'
  else
    hdr=(); stream=message/stream; cancel=tasks/cancel; sub=tasks/resubscribe
    msg='{"kind":"message","messageId":"msg-1","role":"user","parts":[{"kind":"text","text":"Where is my order BBS-1042?"}]}'
  fi
  curl -sN -X POST "$url/" -H 'Content-Type: application/json' -H 'Accept: text/event-stream' "${hdr[@]}" \
    -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$stream\",\"params\":{\"message\":$msg}}" > "$p-stream.sse"
  tid="$(grep -o '"id": *"[0-9a-f-]\{36\}"' "$p-stream.sse" | head -1 | grep -o '[0-9a-f-]\{36\}')"
  curl -s -D "$p-cancel-terminal.headers" -X POST "$url/" -H 'Content-Type: application/json' "${hdr[@]}" \
    -d "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"$cancel\",\"params\":{\"id\":\"$tid\"}}" > "$p-cancel-terminal.body"
  curl -sN -D "$p-subscribe-terminal.headers" -X POST "$url/" -H 'Content-Type: application/json' -H 'Accept: text/event-stream' "${hdr[@]}" \
    -d "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"$sub\",\"params\":{\"id\":\"$tid\"}}" > "$p-subscribe-terminal.body"
  sed -i '/^[Dd]ate:/d' "$p"-*.headers
  kill "$pid"; wait "$pid" || true
  echo "$p-*"
done; done
