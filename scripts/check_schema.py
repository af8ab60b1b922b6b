#!/usr/bin/env python3
"""Checks docs/scenario.schema.json: it is a valid JSON Schema (draft 2020-12), every shipped
scenario (scenarios/*.json) validates against it, a few well-formed documents are accepted and
a set of malformed ones are rejected. Exits non-zero on any failure.

Usage: check_schema.py [REPO_ROOT]   (default: the parent of this file's folder)
Needs only the standard library and python3-jsonschema (Debian 12).
"""

import copy
import json
import pathlib
import sys

import jsonschema

MINIMAL = {
    "name": "t",
    "duration": "1m",
    "workload": {
        "arrival": {"kind": "constant", "rate_per_s": 1},
        "job_duration": {"kind": "constant", "value": "1s"},
    },
    "worker": {},
    "platform": {"replicas": 2},
}


def variant(changes):
    """MINIMAL with changes applied: {"a/b/c": value}; value None deletes the key."""
    doc = copy.deepcopy(MINIMAL)
    for path, value in changes.items():
        *parents, last = path.split("/")
        node = doc
        for key in parents:
            node = node.setdefault(key, {}) if isinstance(node, dict) else node[int(key)]
        if value is None:
            del node[last]
        elif isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return doc


def event(**fields):
    return variant({"events": [dict({"at": "10s"}, **fields)]})


ACCEPTED = {
    "minimal": MINIMAL,
    "every event kind": variant({
        "platform/nodes": 2,
        "events": [
            {"at": "0s", "kind": "rolling_restart", "max_surge": 1, "max_unavailable": "0%"},
            {"at": "1m", "kind": "oom_kill", "count": 2},
            {"at": "1m", "kind": "oom_kill", "pod": "pod-3"},
            {"at": "2m", "kind": "scale_down", "replicas": 0},
            {"at": "3m", "kind": "scale_up", "replicas": 4},
            {"at": "4m", "kind": "signal", "pod": "pod-0", "signal": "TSTP"},
            {"at": "5m", "kind": "node_drain", "node": 1},
            {"at": "6m", "kind": "directive", "pod": "pod-1", "state": "terminate"},
            {"at": "1h1m", "kind": "delete_pod", "pod": "pod-17"},
        ],
    }),
    "docker": variant({"platform": {"kind": "docker", "stop_grace_period": "7s",
                                    "pre_stop": {"kind": "none"}},
                       "events": [{"at": "1s", "kind": "rolling_restart"}]}),
    "histogram": variant({"workload/job_duration": {
        "kind": "empirical", "histogram": [{"le": "1s", "weight": 1}, {"le": "1m", "weight": 0.5}]}}),
    "durations": variant({"worker/grace_period": "0", "settle": "1.5h", "duration": "1m30s",
                          "workload/cancel": {"latency": "250ms"},
                          "backend": {"heartbeat_timeout": "500us"}}),
    "at the limits": variant({"worker/concurrency": 100000, "platform/replicas": 100,
                              "platform/nodes": 100000,
                              "workload/arrival/rate_per_s": 1000000}),
    "burst at its limit": variant({"workload/arrival": {"kind": "burst", "count": 100000000}}),
    "prestop": variant({"platform/termination_grace_period": "1h5s",
                        "platform/pre_stop": {"kind": "quiet_then_wait", "poll": "10s"}}),
}

REJECTED = {
    "missing name": variant({"name": None}),
    "missing workload": variant({"workload": None}),
    "missing arrival": variant({"workload/arrival": None}),
    "bad name": variant({"name": "a/b"}),
    "unknown top-level field": variant({"duraton": "1m"}),
    "unknown worker field": variant({"worker/grace_perod": "10s"}),
    "negative duration": variant({"worker/grace_period": "-3s"}),
    "number as duration": variant({"worker/grace_period": 25}),
    "unparsable duration": variant({"duration": "ten minutes"}),
    "zero heartbeat interval": variant({"worker/heartbeat_interval": "0s"}),
    "concurrency 0": variant({"worker/concurrency": 0}),
    "fraction above 1": variant({"workload/failure_rate": 1.5}),
    "backoff below 1": variant({"backend": {"retry": {"backoff_coefficient": 0.5}}}),
    "unknown arrival kind": variant({"workload/arrival/kind": "poison"}),
    "field of another kind": variant({"workload/arrival": {"kind": "burst", "count": 3,
                                                            "rate_per_s": 1}}),
    "unknown distribution kind": variant({"workload/job_duration/kind": "normal"}),
    "empirical with both": variant({"workload/job_duration": {
        "kind": "empirical", "values": ["1s"], "histogram": [{"le": "1s", "weight": 1}]}}),
    "empirical with neither": variant({"workload/job_duration": {"kind": "empirical"}}),
    "zero weight": variant({"workload/job_duration": {
        "kind": "empirical", "histogram": [{"le": "1s", "weight": 0}]}}),
    "unknown event kind": event(kind="restart"),
    "event without at": variant({"events": [{"kind": "scale_up", "replicas": 2}]}),
    "percent over 100": event(kind="rolling_restart", max_surge="150%"),
    "both surge and unavailable 0": event(kind="rolling_restart", max_surge=0,
                                          max_unavailable="0%"),
    "bad pod id": event(kind="delete_pod", pod="pod3"),
    "unknown signal": event(kind="signal", pod="pod-0", signal="SIGHUP"),
    "directive running": event(kind="directive", pod="pod-0", state="running"),
    "scale_up to 0": event(kind="scale_up", replicas=0),
    "docker preStop": variant({"platform": {"kind": "docker",
                                            "pre_stop": {"kind": "sleep", "duration": "5s"}}}),
    "docker termination_grace_period": variant({"platform": {"kind": "docker",
                                                             "termination_grace_period": "30s"}}),
    "kubernetes stop_grace_period": variant({"platform/stop_grace_period": "10s"}),
    "docker node_drain": variant({"platform": {"kind": "docker"},
                                  "events": [{"at": "1s", "kind": "node_drain", "node": 0}]}),
    "options not an object": variant({"worker/options": []}),
    "empty queues": variant({"worker/queues": []}),
    # Limits (docs/scenario.md): the reproducers' values and the first value past each bound.
    "concurrency 2^31-1": variant({"worker/concurrency": 2147483647}),
    "concurrency 100001": variant({"worker/concurrency": 100001}),
    "replicas 100001": variant({"platform/replicas": 100001}),
    "nodes 100001": variant({"platform/nodes": 100001}),
    "rate 1e9": variant({"workload/arrival/rate_per_s": 1e9}),
    "burst 10^8+1": variant({"workload/arrival": {"kind": "burst", "count": 100000001}}),
    "scale_up to 100001": event(kind="scale_up", replicas=100001),
    "oom_kill 100001": event(kind="oom_kill", count=100001),
    "max_surge 100001": event(kind="rolling_restart", max_surge=100001),
}


def main():
    root = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent
    schema = json.loads((root / "docs" / "scenario.schema.json").read_text(encoding="utf-8"))
    failures = []
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as e:
        print(f"FAIL docs/scenario.schema.json is not a valid draft 2020-12 schema: {e.message}")
        return 1
    validator = jsonschema.Draft202012Validator(schema)

    def errors(doc):
        return sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))

    def where(error):
        return "/".join(str(p) for p in error.absolute_path) or "(top level)"

    files = sorted((root / "scenarios").glob("*.json"))
    if not files:
        failures.append("no scenarios/*.json found")
    for path in files:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            failures.append(f"{path.name}: not valid JSON: {e}")
            continue
        for e in errors(doc):
            failures.append(f"{path.name}: {where(e)}: {e.message}")
        if doc.get("name") != path.stem:
            failures.append(f"{path.name}: name {doc.get('name')!r} differs from the file name")
    for label, doc in ACCEPTED.items():
        for e in errors(doc):
            failures.append(f"should accept {label!r}: {where(e)}: {e.message}")
    for label, doc in REJECTED.items():
        if not errors(doc):
            failures.append(f"should reject {label!r}: {json.dumps(doc)}")

    for f in failures:
        print("FAIL", f)
    print(f"{len(files)} scenarios, {len(ACCEPTED)} accepted and {len(REJECTED)} rejected "
          f"documents checked: {'FAILED' if failures else 'ok'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
