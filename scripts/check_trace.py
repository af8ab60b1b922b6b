#!/usr/bin/env python3
"""Checks `drainsim export --format chrome-trace` against the Trace Event Format's rules.

For each run (the viewer's one-pod reference scenario and some shipped scenarios, with
--timeline) it exports the trace and checks: the document shape; every event's required
fields (name, ph, pid, tid; ts for all but metadata; dur for complete events; s for
instant events; numeric args for counters; args.name for name metadata); timestamps and
durations in whole microseconds equal to the timeline's seconds x 10^6; a process_name
for every pid and a thread_name for every thread with events; no two complete events
overlapping on one thread; and one complete event per attempt, one instant event per
signal, one counter event per series row. It also checks that an export of results
without a timeline, or of a file that is not JSON, fails with exit 2 and a message.

usage: check_trace.py DRAINSIM_BINARY SOURCE_DIR
"""

import collections
import json
import pathlib
import subprocess
import sys
import tempfile

RUNS = [
    "viewer/testdata/one-pod-rollout.json",
    "scenarios/double-sigterm.json",
    "scenarios/oom-kill.json",
    "scenarios/pid1-shell.json",
    "scenarios/scale-down.json",
]
NAME_METADATA = {"process_name", "thread_name"}
SORT_METADATA = {"process_sort_index", "thread_sort_index"}


class CheckError(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise CheckError(what)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def micros(seconds):
    return round(seconds * 1e6)


def check_trace(trace, results):
    expect(isinstance(trace, dict), "the trace is not a JSON object")
    expect(trace.get("displayTimeUnit") in ("ms", "ns"), "displayTimeUnit is not ms or ns")
    events = trace.get("traceEvents")
    expect(isinstance(events, list), "no traceEvents array")

    process_names, thread_names = set(), set()
    used_pids, used_threads = set(), set()
    slices = collections.defaultdict(list)
    attempts, instants, counters = [], [], []
    for i, e in enumerate(events):
        where = f"traceEvents[{i}] {json.dumps(e)[:160]}"
        expect(isinstance(e, dict), f"{where}: not an object")
        for key in ("name", "ph", "pid", "tid"):
            expect(key in e, f"{where}: no {key}")
        expect(isinstance(e["name"], str) and e["name"], f"{where}: name is not a string")
        expect(is_int(e["pid"]) and e["pid"] >= 1, f"{where}: pid must be an integer >= 1")
        expect(is_int(e["tid"]) and e["tid"] >= 1, f"{where}: tid must be an integer >= 1")
        ph = e["ph"]
        expect(ph in ("M", "X", "i", "C"), f"{where}: unexpected phase {ph!r}")
        if ph == "M":
            expect(e["name"] in NAME_METADATA | SORT_METADATA, f"{where}: unknown metadata")
            args = e.get("args", {})
            if e["name"] in NAME_METADATA:
                expect(isinstance(args.get("name"), str) and args["name"],
                       f"{where}: metadata without args.name")
                (process_names if e["name"] == "process_name" else thread_names).add(
                    e["pid"] if e["name"] == "process_name" else (e["pid"], e["tid"]))
            else:
                expect(is_int(args.get("sort_index")), f"{where}: no integer args.sort_index")
            continue
        expect(is_int(e.get("ts")) and e["ts"] >= 0,
               f"{where}: ts must be whole microseconds >= 0")
        used_pids.add(e["pid"])
        if ph == "X":
            expect(is_int(e.get("dur")) and e["dur"] >= 0,
                   f"{where}: dur must be whole microseconds >= 0")
            used_threads.add((e["pid"], e["tid"]))
            slices[(e["pid"], e["tid"])].append((e["ts"], e["dur"], e["name"]))
            if e.get("cat") != "pod_state":
                attempts.append(e)
        elif ph == "i":
            expect(e.get("s") in ("t", "p", "g"), f"{where}: instant event without scope s")
            used_threads.add((e["pid"], e["tid"]))
            instants.append(e)
        else:
            args = e.get("args")
            expect(isinstance(args, dict) and args and
                   all(isinstance(v, (int, float)) and not isinstance(v, bool)
                       for v in args.values()),
                   f"{where}: a counter needs numeric args")
            counters.append(e)

    missing = sorted(used_pids - process_names)
    expect(not missing, f"pids without process_name: {missing}")
    missing = sorted(used_threads - thread_names)
    expect(not missing, f"threads without thread_name: {missing}")
    for (pid, tid), items in slices.items():
        items.sort()
        for (ts0, dur0, n0), (ts1, _, n1) in zip(items, items[1:]):
            expect(ts1 >= ts0 + dur0,
                   f"pid {pid} tid {tid}: {n1!r} at {ts1} starts before {n0!r} "
                   f"({ts0}+{dur0}) ends")

    tl = results["timeline"]
    cols = tl["attempts"]["columns"]
    rows = [dict(zip(cols, r)) for r in tl["attempts"]["rows"]]
    expect(len(attempts) == len(rows),
           f"{len(attempts)} attempt slices for {len(rows)} timeline attempts")
    by_key = {(r["job"], r["attempt"], r["worker"]): r for r in rows}
    for e in attempts:
        a = e.get("args", {})
        r = by_key.get((a.get("job"), a.get("attempt"), a.get("worker")))
        expect(r is not None, f"slice {e['name']} matches no timeline attempt")
        expect(e["ts"] == micros(r["start_s"]) and e["ts"] + e["dur"] == micros(r["end_s"]),
               f"slice {e['name']}: {e['ts']}+{e['dur']} us is not {r['start_s']}..{r['end_s']} s")
        expect(e["pid"] == r["pod"] + 1, f"slice {e['name']}: pid {e['pid']} for pod {r['pod']}")
        expect(a.get("outcome") == r["outcome"] == e.get("cat"),
               f"slice {e['name']}: outcome {a.get('outcome')} != {r['outcome']}")
    expect(len(instants) == len(tl["signals"]["rows"]),
           f"{len(instants)} instant events for {len(tl['signals']['rows'])} signals")
    expect(len(counters) == len(tl["series"]["rows"]),
           f"{len(counters)} counter events for {len(tl['series']['rows'])} series rows")
    for e, r in zip(counters, tl["series"]["rows"]):
        expect(e["ts"] == micros(r[0]), f"counter at {e['ts']} us for a series row at {r[0]} s")
    return len(attempts), len(instants), len(counters)


def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)


def main(argv):
    if len(argv) != 3:
        print(__doc__.split("\n\n")[-1], file=sys.stderr)
        return 2
    binary = str(pathlib.Path(argv[1]).resolve())
    root = pathlib.Path(argv[2]).resolve()
    failures = 0
    with tempfile.TemporaryDirectory(prefix="drainsim-check-trace-") as tmp:
        tmp = pathlib.Path(tmp)
        for scenario in RUNS:
            label = scenario
            try:
                results = tmp / "results.json"
                p = run([binary, "run", str(root / scenario), "--timeline", "--out", str(results)],
                        tmp)
                expect(p.returncode in (0, 3), f"drainsim run exited {p.returncode}: {p.stderr}")
                trace_path = tmp / "trace.json"
                p = run([binary, "export", "--format", "chrome-trace", str(results),
                         "--out", str(trace_path)], tmp)
                expect(p.returncode == 0, f"drainsim export exited {p.returncode}: {p.stderr}")
                trace = json.loads(trace_path.read_text())
                n = check_trace(trace, json.loads(results.read_text()))
                print(f"ok   {label}: {n[0]} attempt slices, {n[1]} signals, {n[2]} counters")
            except (CheckError, json.JSONDecodeError, subprocess.TimeoutExpired) as e:
                failures += 1
                print(f"FAIL {label}: {e}")

        # Two attempts that overlap in one slot (e.g. a body still running after its
        # process was replaced) go to two threads; and the checker itself sees overlaps.
        label = "overlapping attempts"
        try:
            doc = {"schema_version": "1.1", "pods": [{"id": "pod-0"}], "run": {"ended_at_s": 9.0},
                   "timeline": {
                       "pod_states": {"columns": ["t_s", "pod", "state"], "rows": []},
                       "signals": {"columns": ["t_s", "pod", "signal", "delivered", "source"],
                                   "rows": []},
                       "series": {"columns": ["t_s", "queued", "scheduled", "in_flight"],
                                  "rows": []},
                       "attempts": {"columns": ["job", "attempt", "pod", "worker", "slot",
                                                "start_s", "end_s", "outcome"],
                                    "rows": [[0, 1, 0, 0, 0, 1.0, 5.0, "killed"],
                                             [1, 1, 0, 1, 0, 3.0, 8.0, "completed"]]}}}
            results = tmp / "overlap.json"
            results.write_text(json.dumps(doc))
            p = run([binary, "export", "--format", "chrome-trace", str(results)], tmp)
            expect(p.returncode == 0, f"drainsim export exited {p.returncode}: {p.stderr}")
            trace = json.loads(p.stdout)
            check_trace(trace, doc)
            names = {e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"}
            expect(names == {"lifecycle", "slot 0", "slot 0 (overlap 1)"}, f"threads {names}")
            for e in trace["traceEvents"]:
                if e["ph"] == "X":
                    e["tid"] = 1001
            try:
                check_trace(trace, doc)
                raise CheckError("the checker accepted two overlapping slices on one thread")
            except CheckError as e:
                expect("starts before" in str(e), f"unexpected complaint: {e}")
            print(f"ok   {label}: two threads, and overlaps on one are caught")
        except (CheckError, json.JSONDecodeError) as e:
            failures += 1
            print(f"FAIL {label}: {e}")

        # Failures are clear messages with exit 2.
        plain = tmp / "plain.json"
        run([binary, "run", str(root / RUNS[0]), "--out", str(plain)], tmp)
        garbage = tmp / "garbage.json"
        garbage.write_text("{\"pods\": [")
        for path, message in ((plain, "no timeline: run drainsim with --timeline"),
                              (garbage, "not valid JSON: parse error at line 1, column 11"),
                              (tmp / "missing.json", "cannot read: No such file or directory")):
            p = run([binary, "export", "--format", "chrome-trace", str(path)], tmp)
            if p.returncode != 2 or message not in p.stderr or p.stdout:
                failures += 1
                print(f"FAIL export of {path.name}: exit {p.returncode}, stderr {p.stderr!r}, "
                      f"expected exit 2 and {message!r}")
            else:
                print(f"ok   export of {path.name}: exit 2, {p.stderr.strip()}")
    if failures:
        print(f"{failures} check(s) failed")
        return 1
    print("every chrome-trace export follows the format's rules")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
