#!/usr/bin/env python3
"""Checks the results format against what drainsim writes.

Runs DRAINSIM_BINARY on every REPO_ROOT/scenarios/*.json (and the random campaign's finds,
tests/reliability/campaign-*.json), with --timeline and without, into a
temporary folder, validates each results file against docs/results.schema.json (which refers
to docs/scenario.schema.json for the embedded scenario) and checks the rules a schema cannot
express: the result hash recomputes, the summary's sums and identities hold, the audit is ok,
the summary agrees with pods[] and the timeline, recording the timeline changes nothing else,
and a second run gives a byte-identical file. Then scenarios/double-sigterm.json once on
each real engine (realtime, process), and one run stopped by --max-events (a partial file,
exit 130, marked run.interrupted), checked against the schema and the rules. Prints one
line per checked file; exits 1 on any failure, 2 on bad usage.

Usage: check_results.py DRAINSIM_BINARY REPO_ROOT
Needs only the standard library and python3-jsonschema (Debian 12).

About the hash: result_hash is FNV-1a 64 over nlohmann::json::dump() of the document without
result_hash (compact, keys sorted). Re-serialising the parsed document with Python's
json.dumps(doc, separators=(",", ":"), ensure_ascii=False) gives the same key order and
escaping but not always the same numbers: nlohmann prints doubles with Grisu2, which now and
then gives 17 digits where a shorter form round-trips (105.79951199999999 where Python
prints 105.799512, the same double), so a few timeline files would fail for no fault of
theirs. The check therefore works on the bytes drainsim wrote: it drops the whitespace
outside strings (all that separates dump(2) from dump()) and cuts out the top-level
"result_hash" member, which gives dump() of the document without it, byte for byte.
"""

import json
import math
import pathlib
import subprocess
import sys
import tempfile
import warnings

import jsonschema

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
RUN_TIMEOUT_S = 600
TOO_BIG_TO_CHECK = {"bench-reference"}  # scenarios not run here (see main)


class CheckError(Exception):
    """A results file breaks a rule; the message says which."""


def fnv1a64(data: bytes) -> int:
    h = FNV_OFFSET
    for byte in data:
        h ^= byte
        h = (h * FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


def compact(raw: bytes) -> bytes:
    """raw without the JSON whitespace outside strings (bytes inside strings kept as is)."""
    out = bytearray()
    in_string = escaped = False
    for byte in raw:
        if in_string:
            out.append(byte)
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte in b" \t\r\n":
            continue
        else:
            if byte == 0x22:
                in_string = True
            out.append(byte)
    return bytes(out)


def top_level_members(text: bytes):
    """(key, start, end) of each member of the top-level object in compact JSON text; the
    member is text[start:end] (key, colon, value, no comma)."""
    if not text.startswith(b"{"):
        raise CheckError("the document is not a JSON object")
    members = []
    depth = 0
    in_string = escaped = False
    start = None
    key_end = None
    for i, byte in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:
                escaped = True
            elif byte == 0x22:
                in_string = False
                if depth == 1 and key_end is None and start is not None:
                    key_end = i + 1
            continue
        if byte == 0x22:
            in_string = True
            if depth == 1 and start is None:
                start = i
        elif byte in b"{[":
            depth += 1
        elif byte in b"}]":
            depth -= 1
            if depth == 0 and start is not None:
                members.append((json.loads(text[start:key_end]), start, i))
        elif byte == 0x2C and depth == 1:  # comma between members
            members.append((json.loads(text[start:key_end]), start, i))
            start = key_end = None
    return members


def hashed_bytes(raw: bytes) -> bytes:
    """The bytes drainsim hashed: the compact dump without the result_hash member."""
    text = compact(raw)
    found = [m for m in top_level_members(text) if m[0] == "result_hash"]
    if len(found) != 1:
        raise CheckError(f"expected one top-level result_hash member, found {len(found)}")
    _, start, end = found[0]
    if text[start - 1 : start] == b",":
        return text[: start - 1] + text[end:]
    if text[end : end + 1] == b",":
        return text[:start] + text[end + 1 :]
    return text[:start] + text[end:]


def parse(raw: bytes):
    def no_duplicates(pairs):
        obj = {}
        for key, value in pairs:
            if key in obj:
                raise CheckError(f"duplicate key {key!r}")
            obj[key] = value
        return obj

    def no_constant(name):
        raise CheckError(f"non-JSON number {name}")

    try:
        return json.loads(raw.decode("utf-8"), object_pairs_hook=no_duplicates,
                          parse_constant=no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CheckError(f"not valid JSON: {e}") from e


def make_validator(docs: pathlib.Path):
    """A draft 2020-12 validator for results.schema.json whose relative $ref
    "scenario.schema.json" resolves to the file beside it. Uses RefResolver, which
    Debian 12's python3-jsonschema (4.10) has; newer versions deprecate it but keep it."""
    schemas = {}
    for name in ("results.schema.json", "scenario.schema.json"):
        path = docs / name
        if not path.is_file():
            raise CheckError(f"{path}: missing")
        try:
            schema = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise CheckError(f"{path}: not valid JSON: {e}") from e
        try:
            jsonschema.Draft202012Validator.check_schema(schema)
        except jsonschema.SchemaError as e:
            raise CheckError(f"{path}: not a valid JSON Schema: {e.message}") from e
        schemas[path.resolve().as_uri()] = schema
    base = (docs / "results.schema.json").resolve().as_uri()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        resolver = jsonschema.RefResolver(base_uri=base, referrer=schemas[base], store=schemas)
        return jsonschema.Draft202012Validator(schemas[base], resolver=resolver)


def short(value, limit=120):
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_schema(validator, doc):
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        lines = [f"{e.json_path}: {short(e.instance, 60)}: {e.message[:200]}" for e in errors[:10]]
        more = f" (and {len(errors) - 10} more)" if len(errors) > 10 else ""
        raise CheckError("does not match docs/results.schema.json" + more + ":\n    " +
                         "\n    ".join(lines))


def expect(condition, message):
    if not condition:
        raise CheckError(message)


def check_semantics(raw: bytes, doc):
    want = doc["result_hash"]
    got = f"{fnv1a64(hashed_bytes(raw)):016x}"
    expect(got == want, f"result_hash {want} does not recompute (FNV-1a 64 of the compact dump "
                        f"without result_hash gives {got})")
    stripped = dict(doc)
    del stripped["result_hash"]
    expect(parse(hashed_bytes(raw)) == stripped, "the hashed bytes do not parse back to the document")

    expect(doc["seed"] == doc["scenario"]["seed"],
           f"seed {doc['seed']} != scenario.seed {doc['scenario']['seed']}")

    s = doc["summary"]
    exits = s["exits"]
    expect(s["job_loss"] == s["jobs_lost"] + s["jobs_discarded_by_shutdown"],
           f"job_loss {s['job_loss']} != jobs_lost {s['jobs_lost']} + "
           f"jobs_discarded_by_shutdown {s['jobs_discarded_by_shutdown']}")
    expect(s["forced_kills"] == exits["killed_at_deadline"] + exits["oom_killed"]
           + exits["killed_by_signal"],
           f"forced_kills {s['forced_kills']} != exits.killed_at_deadline + killed_by_signal "
           f"{exits['killed_at_deadline']} + exits.oom_killed {exits['oom_killed']}")
    expect(s["graceful_exits"] == exits["clean"],
           f"graceful_exits {s['graceful_exits']} != exits.clean {exits['clean']}")
    total = s["jobs_completed"] + s["jobs_lost"] + s["jobs_discarded"] + s["jobs_pending"]
    expect(s["jobs_enqueued"] == total,
           f"jobs_enqueued {s['jobs_enqueued']} != completed {s['jobs_completed']} + lost "
           f"{s['jobs_lost']} + discarded {s['jobs_discarded']} + pending {s['jobs_pending']}")
    audit = s["audit"]
    expect(audit["ok"] is True,
           f"audit.ok is false ({audit['error_count']} errors): " + "; ".join(audit["errors"][:3]))
    expect(audit["error_count"] == 0 and not audit["errors"], "audit.ok but errors are listed")
    balance = (f"enqueued {s['jobs_enqueued']} = completed {s['jobs_completed']} + lost "
               f"{s['jobs_lost']} + discarded {s['jobs_discarded']} + pending {s['jobs_pending']}")
    expect(audit["balance"] == balance, f"audit.balance {audit['balance']!r} != {balance!r}")
    expect(s["jobs_discarded_by_shutdown"] <= s["jobs_discarded"],
           "jobs_discarded_by_shutdown > jobs_discarded")
    expect(s["stuck_at_end"] <= s["jobs_pending"], "stuck_at_end > jobs_pending")
    singletons = [c["name"] for c in doc["scenario"]["workload"]["classes"] if c["singleton"]]
    expect("pushes_refused" in s, "summary.pushes_refused missing (written since 2.1)")
    expect(s["pushes_refused"] == 0 or singletons,
           f"pushes_refused {s['pushes_refused']} but no class is a singleton")
    expect(s["interrupted_jobs"] <= s["jobs_enqueued"], "interrupted_jobs > jobs_enqueued")
    fraction = s["interrupted_jobs"] / s["jobs_enqueued"] if s["jobs_enqueued"] else 0.0
    expect(s["interrupted_fraction"] == fraction,
           f"interrupted_fraction {s['interrupted_fraction']} != interrupted_jobs / jobs_enqueued "
           f"= {fraction}")

    # Loss by cause (3.3): each figure's rows add up to its total, and the classes to the
    # rows.
    expect("by_cause" in s, "summary.by_cause missing (written since 3.3)")
    rows = s["by_cause"]
    expect(rows and rows[-1]["cause"] == "none", "summary.by_cause does not end with \"none\"")
    for figure, total in (("interrupted", "interrupted_jobs"), ("lost", "jobs_lost"),
                          ("discarded_by_shutdown", "jobs_discarded_by_shutdown"),
                          ("job_loss", "job_loss"),
                          ("duplicate_executions", "duplicate_executions"),
                          ("shutdown_retries", "shutdown_retries")):
        added = sum(r[figure] for r in rows)
        expect(added == s[total],
               f"summary.by_cause[].{figure} add up to {added}, not {total} {s[total]}")
    for r in rows:
        expect(r["job_loss"] == r["lost"] + r["discarded_by_shutdown"],
               f"by_cause {r['cause']}: job_loss {r['job_loss']} != lost + discarded_by_shutdown")
    for group, figure in (("job_loss_by_cause", "job_loss"), ("interrupted_by_cause", "interrupted")):
        for cls, value in s[group].items():
            added = sum(r[figure] for r in rows if r["class"] == cls)
            expect(value == added, f"summary.{group}.{cls} {value} != the {cls} rows' {added}")

    # Returns after a shutdown (3.3): the worker's hand-backs and the backend's recoveries
    # are the orphan-recovery samples, split.
    def count(group):
        return 0 if s[group] is None else s[group]["count"]
    expect(count("requeue_delay_s") + count("backend_recovery_delay_s")
           == count("orphan_recovery_delay_s"),
           f"requeue_delay_s.count {count('requeue_delay_s')} + backend_recovery_delay_s.count "
           f"{count('backend_recovery_delay_s')} != orphan_recovery_delay_s.count "
           f"{count('orphan_recovery_delay_s')}")

    # The summary against pods[].
    for i, pod in enumerate(doc["pods"]):
        expect(pod["id"] == f"pod-{i}", f"pods[{i}].id is {pod['id']!r}, expected 'pod-{i}'")
    processes = [p for pod in doc["pods"] for p in pod["processes"]]
    by_exit = {key: 0 for key in exits}
    running = 0
    for p in processes:
        if p["exit"] == "running_at_end":
            running += 1
        else:
            by_exit[p["exit"]] += 1
    expect(by_exit == exits, f"summary.exits {exits} != the exits of pods[].processes[] {by_exit}")
    expect(running == s["processes_running_at_end"],
           f"processes_running_at_end {s['processes_running_at_end']} != {running} in pods[]")
    drains = []
    for p in processes:
        d = p["drain_latency_s"]
        counted = (p["termination_s"] is not None and p["ended_s"] is not None and
                   p["exit"] != "oom_killed")
        expect((d is not None) == counted,
               f"process of worker {p['worker']}: drain_latency_s {d} but termination_s "
               f"{p['termination_s']}, ended_s {p['ended_s']}, exit {p['exit']}")
        if d is not None:
            expect(math.isclose(d, p["ended_s"] - p["termination_s"], abs_tol=2e-6),
                   f"process of worker {p['worker']}: drain_latency_s {d} != ended_s - "
                   f"termination_s")
            drains.append(d)
    dist = s["drain_latency_s"]
    if drains:
        expect(dist is not None and dist["count"] == len(drains) and dist["max"] == max(drains),
               f"summary.drain_latency_s {dist} does not match the {len(drains)} per-process "
               f"drain latencies (max {max(drains)})")
    else:
        expect(dist is None, f"summary.drain_latency_s is {dist} but no process has a drain latency")

    # The summary against the timeline.
    timeline = doc.get("timeline")
    if timeline is not None:
        outcomes = {key: 0 for key in s["attempts"]}
        duplicates = 0
        for row in timeline["attempts"]["rows"]:
            if row[7] == "duplicate":
                duplicates += 1
                outcomes["completed"] += 1
            else:
                outcomes[row[7]] += 1
        expect(outcomes == s["attempts"],
               f"summary.attempts {s['attempts']} != the timeline's attempts {outcomes}")
        expect(duplicates == s["duplicate_executions"],
               f"duplicate_executions {s['duplicate_executions']} != {duplicates} duplicate "
               f"attempts in the timeline")
        npods = len(doc["pods"])
        workers = {p["worker"] for p in processes}
        for table in ("pod_states", "signals", "attempts", "drain_remaining"):
            col = timeline[table]["columns"].index("pod")
            bad = [r for r in timeline[table]["rows"] if r[col] >= npods]
            expect(not bad, f"timeline.{table}: pod {bad[0][col] if bad else ''} not in pods[]")
        for table in ("attempts", "drain_remaining"):
            col = timeline[table]["columns"].index("worker")
            bad = [r for r in timeline[table]["rows"] if r[col] not in workers]
            expect(not bad, f"timeline.{table}: worker {bad[0][col] if bad else ''} is no process "
                            f"in pods[]")


def without(doc, *keys):
    return {k: v for k, v in doc.items() if k not in keys}


def run(binary, scenario, out, timeline, extra=(), status=0):
    cmd = [str(binary), "run", str(scenario), "--out", str(out)] + (["--timeline"] if timeline else [])
    cmd += list(extra)
    try:
        proc = subprocess.run(cmd, cwd=out.parent, capture_output=True, text=True,
                              timeout=RUN_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise CheckError(f"could not run {' '.join(cmd)}: {e}") from e
    if proc.returncode != status:
        what = {2: " (bad input)", 3: " (the audit failed)"}.get(proc.returncode, "")
        output = (proc.stderr.strip() or proc.stdout.strip() or "(no output)").splitlines()
        raise CheckError(f"{' '.join(cmd)} exited with status {proc.returncode}{what}:\n    " +
                         "\n    ".join(output[-20:]))
    try:
        return out.read_bytes()
    except OSError as e:
        raise CheckError(f"{' '.join(cmd)} wrote no results file: {e}") from e


def main(argv):
    if len(argv) != 3:
        print(__doc__.split("\n\n")[2], file=sys.stderr)
        return 2
    binary = pathlib.Path(argv[1]).resolve()
    root = pathlib.Path(argv[2]).resolve()
    if not binary.is_file():
        print(f"error: {binary}: no such drainsim binary", file=sys.stderr)
        return 2
    # The benchmarks' reference load (5 million jobs; its timeline would take gigabytes) is
    # checked by the loader's tests and run, audited, by the bench.end_to_end test.
    scenarios = sorted(s for s in (root / "scenarios").glob("*.json")
                       if s.stem not in TOO_BIG_TO_CHECK)
    if not scenarios:
        print(f"error: {root / 'scenarios'}: no scenario files", file=sys.stderr)
        return 2
    # What the random-scenario campaign found (docs/reliability.md), e.g. an overload
    # warning whose unbounded figures were written as null.
    scenarios += sorted((root / "tests" / "reliability").glob("campaign-*.json"))
    try:
        validator = make_validator(root / "docs")
    except CheckError as e:
        print(f"FAIL {e}")
        return 1

    failures = checked = 0
    with tempfile.TemporaryDirectory(prefix="drainsim-check-results-") as tmp:
        tmp = pathlib.Path(tmp)
        for scenario in scenarios:
            docs = {}
            for timeline in (True, False):
                label = (f"{scenario.relative_to(root)}" +
                         (" --timeline" if timeline else ""))
                out = tmp / (scenario.stem + ("-timeline" if timeline else "") + ".json")
                checked += 1
                try:
                    raw = run(binary, scenario, out, timeline)
                    doc = parse(raw)
                    check_schema(validator, doc)
                    check_semantics(raw, doc)
                    expect(("timeline" in doc) == timeline,
                           "timeline present without --timeline" if not timeline
                           else "no timeline with --timeline")
                    if not timeline:
                        again = run(binary, scenario, tmp / (scenario.stem + "-again.json"), False)
                        expect(again == raw, "a second run with the same scenario and seed wrote "
                                             "a different file")
                        if "with" in docs:
                            expect(without(docs["with"], "timeline", "result_hash") ==
                                   without(doc, "result_hash"),
                                   "the run with --timeline differs from this one in more than "
                                   "the timeline")
                    docs["with" if timeline else "without"] = doc
                except CheckError as e:
                    failures += 1
                    print(f"FAIL {label}: {e}")
                    continue
                s = doc["summary"]
                print(f"ok   {label}: hash {doc['result_hash']}, {s['jobs_enqueued']} jobs, "
                      f"{len(doc['pods'])} pods, {len(raw)} bytes")
        # The real engines write the same format (their times are not reproducible, so
        # only the schema and the rules are checked).
        for engine in ("realtime", "process"):
            scenario = root / "scenarios" / "double-sigterm.json"
            label = f"scenarios/{scenario.name} --timeline --engine {engine}"
            checked += 1
            try:
                raw = run(binary, scenario, tmp / f"{engine}.json", True,
                          ["--engine", engine, "--time-scale", "200"])
                doc = parse(raw)
                check_schema(validator, doc)
                check_semantics(raw, doc)
                expect(doc["engine"] == engine, f"engine is {doc['engine']!r}")
            except CheckError as e:
                failures += 1
                print(f"FAIL {label}: {e}")
                continue
            print(f"ok   {label}: {doc['summary']['jobs_enqueued']} jobs, {len(raw)} bytes")
        # A run stopped by its limit of events writes a partial file (exit 130) that follows
        # the same schema and rules, marked run.interrupted.
        scenario = root / "scenarios" / "rolling-restart.json"
        label = f"scenarios/{scenario.name} --timeline --max-events 5000"
        checked += 1
        try:
            raw = run(binary, scenario, tmp / "interrupted.json", True,
                      ["--max-events", "5000"], status=130)
            doc = parse(raw)
            check_schema(validator, doc)
            check_semantics(raw, doc)
            expect(doc["run"].get("interrupted") is True, "run.interrupted is not true")
            expect(doc["warnings"][-1]["code"] == "interrupted", "no interrupted warning last")
            print(f"ok   {label}: {doc['summary']['jobs_enqueued']} jobs, {len(raw)} bytes")
        except CheckError as e:
            failures += 1
            print(f"FAIL {label}: {e}")
    if failures:
        print(f"{failures} of {checked} results files failed the checks")
        return 1
    print(f"all {checked} results files match docs/results.schema.json and the rules")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
