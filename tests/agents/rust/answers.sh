#!/usr/bin/env bash
# What the a2a-rs agent answers, request by request, with curl: the probes of SPEC §10 on
# JSON-RPC and REST, plus the request variants of tests/agents/ANSWERS.md. Starts
# `start.sh rust 1.0 none rest=on` (and push=on for the push config calls), writes each
# exchange (status line, headers, body exactly as received, ports and uuids replaced) to
# tests/agents/rust/answers/NAME.txt. Needs `tests/agents/setup.sh rust` first.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/answers"
mkdir -p "$out"
tmp="$(mktemp -d)"
pid=""
trap '[[ -n "$pid" ]] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT

start() {
  rm -f "$tmp/url"
  "$here/../start.sh" rust 1.0 "$@" > "$tmp/url" & pid=$!
  until [[ -s "$tmp/url" ]]; do sleep 0.05; done
  url="$(cat "$tmp/url")"
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""; }

# The saved form: ports and ids replaced, so a re-run changes only timestamps.
mask() {
  sed -E "s/127\.0\.0\.1:[0-9]+/127.0.0.1:PORT/g; s/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/ID/g; s/^(date: ).*/\1DATE\r/I"
}
# save NAME CURL_ARGS...: the whole exchange (-i: status line and headers), as received
save() {
  local name="$1"; shift
  curl -sS -i -N "$@" > "$tmp/$name.raw" || true
  mask < "$tmp/$name.raw" > "$out/$name.txt"
}
rpc() { # rpc METHOD PARAMS_JSON -> a JSON-RPC body
  printf '{"jsonrpc":"2.0","id":1,"method":"%s","params":%s}' "$1" "$2"
}
msg='{"message":{"messageId":"msg-curl-1","role":"ROLE_USER","parts":[{"text":"Where is my order BBS-1042?"}]}}'
v10=(-H 'Content-Type: application/json' -H 'A2A-Version: 1.0')
# the task id of the first `task` event (or task answer) in an exchange
task_of() {
  python3 -c 'import json,sys
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    line = line.strip()
    if line.startswith("data:"): line = line[5:].strip()
    try: obj = json.loads(line)
    except ValueError: continue
    r = obj.get("result", obj) if isinstance(obj, dict) else {}
    t = r.get("task") if isinstance(r, dict) else None
    if isinstance(t, dict) and t.get("id"): print(t["id"]); break' "$tmp/$1.raw"
}

start none rest=on
save card "$url/.well-known/agent-card.json"
save agent-json "$url/.well-known/agent.json"

# stream, get, cancel-terminal, subscribe-terminal (JSON-RPC 1.0)
save stream "${v10[@]}" -d "$(rpc SendStreamingMessage "$msg")" "$url/"
tid="$(task_of stream)"
save get "${v10[@]}" -d "$(rpc GetTask "{\"id\":\"$tid\"}")" "$url/"
save cancel-terminal "${v10[@]}" -d "$(rpc CancelTask "{\"id\":\"$tid\"}")" "$url/"
save subscribe-terminal "${v10[@]}" -d "$(rpc SubscribeToTask "{\"id\":\"$tid\"}")" "$url/"
save get-unknown "${v10[@]}" -d "$(rpc GetTask '{"id":"no-such-task"}')" "$url/"

# cancel: a new task, CancelTask right after its first WORKING (0.1 s in; the first
# chunk comes at 0.2 s), the stream kept open
curl -sS -i -N "${v10[@]}" -d "$(rpc SendStreamingMessage "$msg")" "$url/" > "$tmp/cancel-stream.raw" & cpid=$!
sleep 0.1
ctid="$(task_of cancel-stream)"
save cancel "${v10[@]}" -d "$(rpc CancelTask "{\"id\":\"$ctid\"}")" "$url/"
wait "$cpid" || true
mask < "$tmp/cancel-stream.raw" > "$out/cancel-stream.txt"
sleep 0.5
save cancel-get "${v10[@]}" -d "$(rpc GetTask "{\"id\":\"$ctid\"}")" "$url/"

# resubscribe: a new stream dropped 0.1 s in (after WORKING), then SubscribeToTask
curl -sS -i -N --max-time 0.1 "${v10[@]}" -d "$(rpc SendStreamingMessage "$msg")" "$url/" > "$tmp/resubscribe-dropped.raw" || true
mask < "$tmp/resubscribe-dropped.raw" > "$out/resubscribe-dropped.txt"
rtid="$(task_of resubscribe-dropped)"
save resubscribe "${v10[@]}" -d "$(rpc SubscribeToTask "{\"id\":\"$rtid\"}")" "$url/"

# request variants
save no-version -H 'Content-Type: application/json' -d "$(rpc SendStreamingMessage "$msg")" "$url/"
save version-03 -H 'Content-Type: application/json' -H 'A2A-Version: 0.3' -d "$(rpc SendStreamingMessage "$msg")" "$url/"
save method-03 "${v10[@]}" -d "$(rpc message/stream '{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"hi"}]}}')" "$url/"
save send-blocking "${v10[@]}" -d "$(rpc SendMessage "$msg")" "$url/"
save not-json "${v10[@]}" -d 'not json' "$url/"
save push-config-unsupported "${v10[@]}" -d "$(rpc CreateTaskPushNotificationConfig "{\"taskId\":\"$tid\",\"url\":\"http://127.0.0.1:9/hook\"}")" "$url/"

# REST (HTTP+JSON) at URL/rest
rmsg="$msg"
save rest-stream "${v10[@]}" -d "$rmsg" "$url/rest/message:stream"
rtid2="$(task_of rest-stream)"
save rest-get -H 'A2A-Version: 1.0' "$url/rest/tasks/$rtid2"
save rest-cancel-terminal -X POST -H 'A2A-Version: 1.0' "$url/rest/tasks/$rtid2:cancel"
save rest-subscribe-terminal -H 'A2A-Version: 1.0' "$url/rest/tasks/$rtid2:subscribe"
save rest-get-unknown -H 'A2A-Version: 1.0' "$url/rest/tasks/no-such-task"
save rest-no-version -H 'Content-Type: application/json' -d "$rmsg" "$url/rest/message:stream"
save rest-send-blocking "${v10[@]}" -d "$rmsg" "$url/rest/message:send"
curl -sS -i -N "${v10[@]}" -d "$rmsg" "$url/rest/message:stream" > "$tmp/rest-cancel-stream.raw" & cpid=$!
sleep 0.1
rctid="$(task_of rest-cancel-stream)"
save rest-cancel -X POST -H 'A2A-Version: 1.0' "$url/rest/tasks/$rctid:cancel"
wait "$cpid" || true
mask < "$tmp/rest-cancel-stream.raw" > "$out/rest-cancel-stream.txt"
stop

# push=on: the card and the push config calls
start none push=on
save push-card "$url/.well-known/agent-card.json"
save push-stream "${v10[@]}" -d "$(rpc SendStreamingMessage "$msg")" "$url/"
ptid="$(task_of push-stream)"
save push-config-create "${v10[@]}" -d "$(rpc CreateTaskPushNotificationConfig "{\"taskId\":\"$ptid\",\"url\":\"http://127.0.0.1:9/hook\",\"token\":\"tok\"}")" "$url/"
save push-config-list "${v10[@]}" -d "$(rpc ListTaskPushNotificationConfigs "{\"taskId\":\"$ptid\"}")" "$url/"
stop

# card=thin
start none card=thin
save thin-card "$url/.well-known/agent-card.json"
stop
echo "answers in $out"
