#!/usr/bin/env python3
"""Writes docs/fidelity.md from the recorded fixtures and the model.

For every fixture of every SDK profile (tests/fidelity/fixtures/<sdk>/), the
table gives the seed's or spec's claim where it makes one, what the SDK did
(stable over all recorded runs or not), what the lab's model does (run
through the `a2a-lab` CLI with the fixture's step time), and whether they
agree on order and counts. The measured matrix of SPEC §9's keys (fixtures/<sdk>/subscribe/:
resubscribe, second_client, wire=0.3) follows, both SDKs side by side; `cargo test --test
fidelity_subscribe` compares its 1.0 scenarios with the model (the 0.3 wire is not in it yet).

    python3 tests/fidelity/report.py [--cli target/release/a2a-lab]

The fixtures' `events` (the recorders' normalized form) read here are held to the lab's one
wire reader by `cargo test --test model fidelity_events::`: every event of every run that kept its
raw wire reads the same there.
"""
import argparse
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fidelity" / "fixtures"

# What the seed (004) and SPEC §4/§7 claim, by scenario.
CLAIMS = {
    "python": {
        "defaults": "6 events; COMPLETED",
        "ending=return": "stream closes; task left WORKING",
        "ending=never": "1 hung stream",
        "ending=never&client=block": "1 hung call",
        "ending=never&cancel=3": "cancel writes CANCELED and frees the stream",
        "late=0": "7 events, 1 after terminal; stored",
        "late=300": "7 events, 1 after terminal; stored",
        "late=0&client=block": "result lists 1 artifact, GetTask 2",
        "cancel=1": "CANCELED after 4 events; 0 orphaned",
        "cancel=1&work=to_thread": "2 orphaned steps",
        "cancel=1&work=flag": "1 orphaned step",
        "cancel=1&cancel_impl=raise": "task ends FAILED",
        "cancel=3": "cancel loses the race: COMPLETED, -32002",
        "restart=2&store=memory": "task lost (assumed by the seed)",
        "restart=2&store=database": "stays WORKING, nothing resumes (assumed by the seed)",
        "retry=on": "executes twice",
    },
    "js": {
        "late=0": "late changes nothing: dropped silently, GetTask 1",
        "late=300": "late changes nothing: dropped silently, GetTask 1",
        "cancel=1": "cancel never interrupts: orphaned steps",
        "cancel=1&cancel_impl=raise": "-32603 only; executor runs on; COMPLETED",
        "ending=never": "client has no timeout of its own",
    },
}

SHORT = {"task": "T", "statusUpdate": "S", "artifactUpdate": "A", "message": "M"}


def signature(kind, state, after):
    s = SHORT.get(kind, kind)
    if state:
        s += ":" + state.replace("TASK_STATE_", "")
    return s + ("!" if after else "")


def summarize(events, stream, call, blocking, get_task, cancel, orphans, executions):
    seq = " ".join(events) or "(none)"
    parts = [seq, f"stream {stream}" if stream else f"call {call}"]
    if blocking is not None:
        parts.append(f"result {blocking} art.")
    parts.append(f"GetTask {get_task}")
    if cancel:
        parts.append(f"cancel {cancel}")
    if orphans:
        parts.append(f"{orphans} orphaned")
    if executions != 1:
        parts.append(f"{executions} executions")
    return "; ".join(parts)


def from_fixture(run):
    g = run["get_task_settled"]
    get_task = g if isinstance(g, str) else f"{g['state'].replace('TASK_STATE_', '')}/{g['artifacts']}"
    events = [signature(e["kind"], e["state"], e["after_terminal"]) for e in run["events"]]
    return summarize(events, run["stream"], run["call"], run["blocking_result_artifacts"], get_task,
                     run["cancel_result"], run["orphaned_steps"], run["executions"])


def from_model(cli, scenario, step_ms, sdk):
    query = "" if scenario == "defaults" else scenario
    query = "&".join(p for p in [query, f"step_ms={step_ms}", "" if sdk == "python" else f"sdk={sdk}"] if p)
    done = subprocess.run([cli, "trace", query], capture_output=True, text=True)
    if done.returncode != 0:
        return None, done.stderr.strip().removeprefix("a2a-lab: ")
    export = json.loads(done.stdout)
    m = export["metrics"]
    events = []
    for row in export["trace"]:
        wire = row["wire"]
        if not wire:
            continue
        kind = next(iter(wire))
        state = (wire[kind].get("status") or {}).get("state")
        after = row["kind"] == "event" and row["disposition"] == "after-terminal"
        events.append(signature(kind, state, after))
    get_task = "lost" if m["final_state"] is None else f"{m['final_state'].replace('TASK_STATE_', '')}/{m['get_task_artifacts']}"
    call = None
    if m["stream"] is None:
        call = "hung" if m["hung_calls"] else ("returned" if m["blocking_result_artifacts"] is not None else "timed_out")
    return summarize(events, m["stream"], call, m["blocking_result_artifacts"], get_task,
                     m["cancel_result"], m["orphaned_steps"], m["executions"]), None


def table(sdk, cli):
    folder = FIXTURES / sdk
    if not folder.is_dir():
        return None
    lines = ["| scenario | seed / spec claim | measured | model | agree | stable |", "|---|---|---|---|---|---|"]
    agree = total = 0
    for path in sorted(folder.glob("*.json")):
        if path.name == "index.json":
            continue
        fx = json.loads(path.read_text())
        if fx.get("measurable") is False or not fx.get("runs"):
            lines.append(f"| `{fx['scenario']}` | {CLAIMS.get(sdk, {}).get(fx['scenario'], '')} | not measurable: {fx.get('notes', '')} | | | |")
            continue
        measured = {from_fixture(r) for r in fx["runs"]}
        model, error = from_model(cli, fx["scenario"], fx["step_ms"], sdk)
        ok = model in measured
        total += 1
        agree += ok
        shown = " / ".join(sorted(measured))
        lines.append(
            f"| `{fx['scenario']}` | {CLAIMS.get(sdk, {}).get(fx['scenario'], '')} | {shown} | "
            f"{model if model else 'no model: ' + error} | {'yes' if ok else '**no**'} | "
            f"{'yes' if fx.get('stable') else 'race: ' + str(len(measured)) + ' outcomes'} |"
        )
    return agree, total, lines


def differences():
    """Scenario by scenario, where the two SDKs' recorded outcomes differ."""
    py_dir, js_dir = FIXTURES / "python", FIXTURES / "js"
    if not (py_dir.is_dir() and js_dir.is_dir()):
        return []
    rows = ["## Differences between the SDKs", "",
            "Generated from the two fixture sets: every scenario whose recorded outcome differs.", "",
            "| scenario | a2a-sdk 1.3.0 (Python) | @a2a-js/sdk 1.3.0 |", "|---|---|---|"]
    same = 0
    for py_path in sorted(py_dir.glob("*.json")):
        js_path = js_dir / py_path.name
        if py_path.name == "index.json" or not js_path.exists():
            continue
        py, js = json.loads(py_path.read_text()), json.loads(js_path.read_text())
        if not py.get("runs") or not js.get("runs") or js.get("measurable") is False:
            continue
        a = " / ".join(sorted({from_fixture(r) for r in py["runs"]}))
        b = " / ".join(sorted({from_fixture(r) for r in js["runs"]}))
        if a == b:
            same += 1
            continue
        rows.append(f"| `{py['scenario']}` | {a} | {b} |")
    rows += ["", f"{same} further scenarios behave the same under both SDKs.", ""]
    return rows


SUB_ROLE = {"send": "send", "resubscribe": "resub", "second_client": "2nd", "resume": "resume", "retry": "retry"}
SUB_END = {"dropped_by_client": "dropped", "returned": "returned"}


def sub_event(e):
    s = SHORT.get(e["kind"], e["kind"])
    if e["state"]:
        s += ":" + e["state"].replace("TASK_STATE_", "")
    if e["kind"] == "task" and e.get("parts"):
        s += f"[{len(e['parts'])}]"
    if e["kind"] == "artifactUpdate" and e["artifact_id"] != "BBS-1042-tracking":
        s += "(receipt)" if e["artifact_id"] == "BBS-1042-receipt" else f"({e['artifact_id']})"
    if e.get("final") is True:
        s += "^"
    return s + ("!" if e["after_terminal"] else "")


def sub_outcome(run):
    """One subscribe-fixture run in a line: every stream of every client, GetTask, the executor."""
    parts = []
    for st in run["streams"]:
        ev = " ".join(sub_event(e) for e in st["events"]) or "(none)"
        end = SUB_END.get(st["end"], st["end"]) + (f" {st['rpc_error']['code']}" if st["rpc_error"] else "")
        parts.append(f"c{st['client']} {SUB_ROLE.get(st['role'], st['role'])}: {ev} → {end}")
    g = run["get_task_settled"]
    parts.append("GetTask " + (g if isinstance(g, str) else f"{g['state'].replace('TASK_STATE_', '')}/{g['artifacts']}"))
    ead = run.get("executor_after_drop")
    if ead:
        if ead["executor_finished_before_drop"]:
            parts.append("executor had finished")
        elif ead["kept_running"]:
            parts.append("executor ran on" + (" until cancelled" if ead["cancelled"] else ""))
        else:
            parts.append("executor cancelled" if ead["cancelled"] else "executor idle")
    return "; ".join(parts)


def same_as_v10(sdk, fx):
    """Whether a wire=0.3 fixture has the outcome of the same scenario's 1.0 fixture."""
    q = fx["scenario"].removesuffix("wire=0.3").rstrip("&") or "defaults"
    path = FIXTURES / sdk / (("defaults" if q == "defaults" else q.replace("&", "_").replace("=", "-")) + ".json")
    if not path.exists():
        return None
    v10 = json.loads(path.read_text())
    if not v10.get("runs"):
        return None
    return {from_fixture(r) for r in fx["runs"]} == {from_fixture(r) for r in v10["runs"]}


def subscribe_section():
    """The measured matrix of SPEC §9's keys (fixtures/<sdk>/subscribe/), both SDKs side by side."""
    sets = {}
    for sdk in ("python", "js"):
        index = FIXTURES / sdk / "subscribe" / "index.json"
        if index.exists():
            idx = json.loads(index.read_text())
            sets[sdk] = (idx, {e["scenario"]: json.loads((index.parent / e["file"]).read_text()) for e in idx["scenarios"]})
    if not sets:
        return []
    order = []
    for idx, fxs in sets.values():
        order += [q for q in fxs if q not in order]
    runs = " / ".join(f"{sdk} {idx['runs_per_scenario']}" for sdk, (idx, _) in sets.items())
    out = [
        "## Subscribers and the A2A 0.3 wire (measured)",
        "",
        "Generated from `tests/fidelity/fixtures/python/subscribe/` and `tests/fidelity/fixtures/js/subscribe/`",
        "(`tests/fidelity/python/run.sh --subscribe`, `tests/fidelity/js/run.sh --subscribe`), the keys of",
        "SPEC §9: `resubscribe=k` (client 1 drops its stream after delivered event k and calls SubscribeToTask;",
        "it subscribes again when the server breaks a stream, as in a restart), `second_client=k` (a second",
        "client calls SubscribeToTask after client 1's event k) and `wire=0.3` (the SDK's 0.3 compatibility",
        f"mode). Runs per scenario: {runs}. `cargo test --test model fidelity_subscribe::` compares every 1.0",
        "scenario of both SDKs with the model, stream by stream (events, parts, how each stream ended, error",
        "codes, GetTask, cancel, orphaned steps, executions); the 0.3 wire is not in the model yet.",
        "",
        "Legend: `c1`/`c2` the client; `send` its SendStreamingMessage (0.3: `message/stream`), `resub` its",
        "SubscribeToTask (0.3: `tasks/resubscribe`), `2nd` the second client's; `T:WORKING[2]` a task snapshot",
        "holding 2 artifact parts; `^` a 0.3 status update with `final: true`; after → how the stream ended:",
        "`closed` by the server, `dropped` by the client, `hung` still open at the watchdog, `broken` by the",
        "server going away, `error CODE` a JSON-RPC error instead of a stream. After client 1's drop the",
        "executor \"ran on\" (the side channel shows steps after it), \"had finished\" (`execute()` had",
        "returned before it), was \"idle\" (waiting forever) or \"cancelled\" (by the CancelTask).",
        "",
        "### Re-subscription and a second client",
        "",
        "| scenario | a2a-sdk 1.3.0 (Python) | @a2a-js/sdk 1.3.0 | same |",
        "|---|---|---|---|",
    ]
    wire03 = []
    for q in order:
        cells = []
        for sdk in ("python", "js"):
            fx = sets.get(sdk, (None, {}))[1].get(q)
            cells.append(" / ".join(sorted({sub_outcome(r) for r in fx["runs"]})) if fx else "not recorded")
        if "resubscribe=" not in q and "second_client=" not in q:
            wire03.append(q)
            continue
        out.append(f"| `{q}` | {cells[0]} | {cells[1]} | {'yes' if cells[0] == cells[1] else '**no**'} |")
    out += [
        "",
        "### Every recorded scenario on the 0.3 wire",
        "",
        "Each scenario of the 1.0 fixtures again, on the 0.3 wire. \"as 1.0\" compares with that SDK's 1.0",
        "fixture what the tables above compare with the model (kinds, states, after-terminal marks, how the",
        "stream or call ended, GetTask, cancel, orphaned steps, executions); `^` marks `final: true`.",
        "",
    ]
    totals = []
    rows = ["| scenario | a2a-sdk 1.3.0 (Python), 0.3 | as 1.0 | @a2a-js/sdk 1.3.0, 0.3 | as 1.0 |", "|---|---|---|---|---|"]
    count = {sdk: [0, 0] for sdk in sets}
    for q in wire03:
        cells = []
        for sdk in ("python", "js"):
            fx = sets.get(sdk, (None, {}))[1].get(q)
            if not fx:
                cells += ["not recorded", ""]
                continue
            evs = " / ".join(sorted({" ".join(sub_event(e) for e in r["events"]) or "(none)" for r in fx["runs"]}))
            same = same_as_v10(sdk, fx)
            count[sdk][0] += same is True
            count[sdk][1] += same is not None
            cells += [evs, {True: "yes", False: "**no**", None: ""}[same]]
        rows.append(f"| `{q}` | " + " | ".join(cells) + " |")
    for sdk, (a, b) in count.items():
        totals.append(f"{'a2a-sdk' if sdk == 'python' else '@a2a-js/sdk'}: {a} of {b} scenarios as on 1.0.")
    out += [" ".join(totals), ""] + rows + [""]
    unstable = [(sdk, e) for sdk, (idx, _) in sets.items() for e in idx.get("unstable", [])]
    out += ["### Unstable outcomes", ""]
    if unstable:
        out += [f"- {sdk}: `{e['scenario']}`: " + " / ".join(f"{v['summary']} ({v['runs']} runs)" for v in e["variants"])
                for sdk, e in unstable]
    else:
        out.append("None: every scenario of both SDKs gave the same outcome in every run (no fixture left out).")
    return out + [""]


def push_section():
    """The measured push scenarios of SPEC §12 (fixtures/<sdk>/push/), both SDKs side by side."""
    sets = {}
    for sdk in ("python", "js"):
        index = FIXTURES / sdk / "push" / "index.json"
        if index.exists():
            # SPEC §12's scenarios (the combinations of SPEC §14 have their own section)
            files = sorted(e["file"] for e in json.loads(index.read_text())["scenarios"])
            sets[sdk] = {fx["scenario"]: fx for fx in (json.loads((index.parent / f).read_text()) for f in files)}
    if not sets:
        return []
    order = []
    for fxs in sets.values():
        order += [q for q in fxs if q not in order]
    out = [
        "## Push notifications (measured)",
        "",
        "Generated from `tests/fidelity/fixtures/python/push/` and `tests/fidelity/fixtures/js/push/`",
        "(`tests/fidelity/python/run.sh --push`, `tests/fidelity/js/run.sh --push`): SPEC §12's keys, each",
        "scenario on both wires, 3 runs each, all stable. Each cell is the first run: what the client's",
        "stream received and when it ended, what the webhook was told (one POST per event), and GetTask.",
        "`cargo test --test cli push_log::` judges every recorded webhook log with `check --webhook`'s reader;",
        "why the SDKs differ, with the source line behind each difference, is in the notes below.",
        "",
        "| scenario | a2a-sdk 1.3.0 (Python) | @a2a-js/sdk 1.3.0 |",
        "|---|---|---|",
    ]
    for q in order:
        cells = []
        for sdk in ("python", "js"):
            fx = sets.get(sdk, {}).get(q)
            cells.append(fx["summary"].replace("|", "/") if fx else "not recorded")
        out.append(f"| `{q}` | {cells[0]} | {cells[1]} |")
    return out + [""]


def post_word(p):
    """One POST: its event, `[answer]` when not 200, `=dup` for a byte-for-byte repeat, `#2` for a second task."""
    e = p["event"]
    s = SHORT.get(e["kind"], e["kind"])
    if e.get("state"):
        s += ":" + e["state"].replace("TASK_STATE_", "")
    if p.get("answer") != "200":
        s += f"[{p.get('answer')}]"
    if p.get("duplicate"):
        s += "=dup"
    if (p.get("task_n") or 1) > 1:
        s += f"#{p['task_n']}"
    return s


def combo_outcome(run, push):
    """One run of a combination in a line: every stream of every client, the POSTs, tasks, executions."""
    parts = []
    for st in run.get("streams") or []:
        ev = " ".join(sub_event(e) for e in st["events"]) or "(none)"
        end = SUB_END.get(st["end"], st["end"]) + (f" {st['rpc_error']['code']}" if st["rpc_error"] else "")
        parts.append(f"c{st['client']} {SUB_ROLE.get(st['role'], st['role'])}: {ev} → {end}")
    if "streams" not in run:  # a push fixture of one call (webhook_delay_ms): the client's events and when it ended
        ev = " ".join(sub_event(e) for e in run["events"]) or "(none)"
        parts.append(f"c1 send: {ev} → {run['stream'] or run['call']} at {run['client_done_ms'] / 1000:.1f} s")
    if push:
        per = run.get("posts_per_task") or [len(run["posts"])]
        parts.append(f"{len(run['posts'])} POSTs" + (f" ({' + '.join(map(str, per))})" if len(per) > 1 else "")
                     + ": " + (" ".join(post_word(p) for p in run["posts"]) or "(none)"))
        if run.get("pushes_failed_logged"):
            parts.append(f"{run['pushes_failed_logged']} failed POSTs logged")
    g = run["get_task_settled"]
    parts.append("GetTask " + (g if isinstance(g, str) else f"{g['state'].replace('TASK_STATE_', '')}/{g['artifacts']}"))
    tasks = run.get("tasks", run.get("distinct_tasks"))
    parts.append(f"{tasks or 1} task{'s' if (tasks or 1) > 1 else ''}, {run['executions']} execution{'s' if run['executions'] != 1 else ''}")
    c = run.get("cancel")
    if c:
        parts.append(f"cancel {c.get('result')}")
    return "; ".join(parts)


def combo_cell(fx, push):
    """Every distinct outcome of a combination's runs, with how many runs gave it."""
    if fx is None:
        return "not recorded"
    lines = [combo_outcome(r, push) for r in fx["runs"]]
    distinct = list(dict.fromkeys(lines))
    if len(distinct) == 1:
        return distinct[0]
    return "**differs run to run:** " + " **/** ".join(f"({lines.count(x)} of {len(lines)}) {x}" for x in distinct)


def combinations_section():
    """SPEC §14: the combinations of fixtures/<sdk>/subscribe/ and fixtures/<sdk>/push/ (index.json's
    `combinations`), both SDKs side by side, every run."""
    groups = []
    for folder, push in (("push", True), ("subscribe", False)):
        sets = {}
        for sdk in ("python", "js"):
            index = FIXTURES / sdk / folder / "index.json"
            if index.exists():
                idx = json.loads(index.read_text())
                sets[sdk] = {e["scenario"]: json.loads((index.parent / e["file"]).read_text())
                             for e in idx.get("combinations", [])}
        order = []
        for fxs in sets.values():
            order += [q for q in fxs if q not in order]
        groups.append((folder, push, sets, order))
    if not any(order for *_, order in groups):
        return []
    out = [
        "## The lifecycle in combination (measured)",
        "",
        "Generated from the `combinations` of `tests/fidelity/fixtures/<sdk>/push/index.json` and",
        "`…/subscribe/index.json` (`run.sh --push` / `--subscribe`, the lists `COMBOS` in the recorders):",
        "SPEC §14's combinations, 3 runs each on both SDKs. A cell gives every distinct outcome of the",
        "runs (with how many runs gave it, where they differ): each stream of each client in the order",
        "they started (`send`, `resume` a follow-up turn, `retry` the identical resend, `resub` the",
        "client's SubscribeToTask, `2nd` the second client's) with how it ended, then the webhook's POSTs",
        "in order of arrival (`#2`: about the second task; `[timeout]` / `[not delivered …]`: the agent",
        "closed the connection before the webhook answered), GetTask, tasks and `execute()` calls. The",
        "fixture of a scenario is its query with `&`→`_`, `=`→`-`, `:`→`-` plus `.json`. What the SDKs do",
        "and how they differ is summed up in \"The lifecycle in combination: what was measured\" below.",
        "",
    ]
    for folder, push, sets, order in groups:
        out += [f"### `fixtures/<sdk>/{folder}/`", "",
                "| scenario | a2a-sdk 1.3.0 (Python) | @a2a-js/sdk 1.3.0 |", "|---|---|---|"]
        for q in order:
            cells = [combo_cell(sets.get(sdk, {}).get(q), push).replace("|", "/") for sdk in ("python", "js")]
            out.append(f"| `{q}` | {cells[0]} | {cells[1]} |")
        out.append("")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=str(ROOT / "target" / "release" / "a2a-lab"))
    ap.add_argument("--out", default=str(ROOT / "docs" / "fidelity.md"))
    args = ap.parse_args()
    out = [
        "# Fidelity: the model against the real SDKs",
        "",
        "Generated by `python3 tests/fidelity/report.py` from the fixtures in `tests/fidelity/fixtures/`",
        "and the lab's model (`a2a-lab trace`, run with each fixture's step time). Timing may differ;",
        "order and counts may not. `cargo test --test model fidelity::` checks the same agreement on every run",
        "of the test command.",
        "",
        "Legend: T task, S status update, A artifact update, `!` delivered after the task was already",
        "terminal; GetTask is state/artifacts after every actor has finished or hung.",
        "",
        "## Re-running on an SDK upgrade",
        "",
        "The seed says: re-run your own tests on upgrade. To re-measure (needs only PyPI and npm):",
        "",
        "```sh",
        "tests/fidelity/python/run.sh          # a2a-sdk (Python), about 4 minutes",
        "tests/fidelity/js/run.sh              # @a2a-js/sdk, if recorded",
        "tests/fidelity/rust/run.sh            # a2a-rs (a2a-server-lf), about 2½ minutes; its subscribe and push recorders: tests/fidelity/rust/README.md",
        "tests/fidelity/python/run.sh --subscribe && tests/fidelity/js/run.sh --subscribe   # SPEC §9 keys",
        "tests/fidelity/python/run.sh --push && tests/fidelity/js/run.sh --push   # SPEC §12 keys",
        "cargo build --release --bin a2a-lab && python3 tests/fidelity/report.py",
        "cargo test --test model fidelity:: --test model fidelity_subscribe::   # fails where the model no longer matches",
        "```",
        "",
        "Bump the pinned versions in `tests/fidelity/python/requirements.txt` (and the JS recorder's",
        "package.json) first. Where the SDK and the model disagree, fix the model; where the SDK and",
        "the seed disagree, the lab follows the SDK and says so below.",
        "",
    ]
    for sdk, title in [("python", "a2a-sdk 1.3.0 (Python)"), ("js", "@a2a-js/sdk 1.3.0 (JavaScript)")]:
        result = table(sdk, args.cli)
        if result is None:
            continue
        agree, total, lines = result
        out += [f"## {title}", "", f"{agree} of {total} measured scenarios agree with the model.", ""] + lines + [""]
    out += differences()
    out += subscribe_section()
    out += push_section()
    out += combinations_section()
    notes = ROOT / "tests" / "fidelity" / "NOTES.md"
    if notes.exists():
        out += [notes.read_text().rstrip(), ""]
    pathlib.Path(args.out).write_text("\n".join(out))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    sys.exit(main())
