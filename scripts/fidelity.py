#!/usr/bin/env python3
"""Regenerates docs/fidelity.md: every case of scenarios/fidelity/ predicted by its profile
(the virtual engine over --seeds seeds) against the real system (drainsim real over
--repeats repeats, repeat r with seed 1 + r), metric by metric, with drainsim fidelity's
intervals and verdicts.

  scripts/fidelity.py BUILD/sim/drainsim [--systems sidekiq,bullmq] [--cases PATTERN]
                      [--repeats 5] [--seeds 30]
  scripts/fidelity.py BUILD/sim/drainsim --tables-only
  scripts/fidelity.py BUILD/sim/drainsim --check

--check measures nothing: it fails unless every case is valid and at most 2 min long, every
system has a case of each kind the suite promises (KINDS), the page has a measured table for
every case and system, every table with a differing row has its note, and every note in
notes.json names a case and system that exist.

A case runs on every system whose adapter (adapters/*/system.json) has the case's profile.
The real runs' results (no timelines) are kept under results/fidelity/SYSTEM/; a case or
system not asked for keeps the rows the page had. Why a row disagrees is written by hand in
scenarios/fidelity/notes.json ({"CASE": {"SYSTEM": "why"}}), never by tuning a number.
"""
import argparse
import fnmatch
import glob
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(HERE, "docs", "fidelity.md")
BEGIN = "<!-- case {} on {} -->"
END = "<!-- end -->"


def manifests():
    out = {}
    for path in sorted(glob.glob(os.path.join(HERE, "adapters", "*", "system.json"))):
        m = json.load(open(path))
        out[m["system"]] = m
    return out


def run(cmd):
    p = subprocess.run(cmd, cwd=HERE, capture_output=True, text=True)
    if p.returncode not in (0, 3):  # 3: an audit failed; the table still says what was seen
        sys.exit(f"fidelity: {' '.join(cmd)} exited {p.returncode}:\n{p.stderr}")
    return p


# What the suite covers for every system: a name, and whether a case is of that kind.
KINDS = {
    "rolling restart": lambda d: has(d, "rolling_restart"),
    "OOM kill": lambda d: has(d, "oom_kill") == 1,
    "scale-down": lambda d: has(d, "scale_down"),
    "two kills of one long job": lambda d: has(d, "oom_kill") == 2,
    "job errors with retries": lambda d: d["workload"].get("failure_rate", 0) > 0
    and d.get("backend", {}).get("retry", {}).get("max_attempts", 1) > 1,
    # worker.options may only name the release the adapter runs (drainsim real refuses others).
    "the system's defaults": lambda d: "termination_grace_period" not in d["platform"]
    and set(d["worker"]) <= {"profile", "concurrency", "options"} and "backend" not in d,
}


def has(doc, kind):
    return sum(e["kind"] == kind for e in doc.get("events", []))


def seconds(text):
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    m = re.fullmatch(r"([0-9.]+)(ms|s|m|h)", text)
    if not m:
        sys.exit(f"fidelity: cannot read the duration {text!r}")
    return float(m.group(1)) * units[m.group(2)]


def check(drainsim, systems, cases, notes):
    """Every problem with the suite as it stands, as lines; none when it is whole."""
    problems = []
    p = subprocess.run([drainsim, "validate"] + list(cases.values()), capture_output=True,
                       text=True)
    if p.returncode != 0:
        problems.append(f"drainsim validate failed:\n{p.stdout}{p.stderr}")
    page = open(PAGE).read() if os.path.exists(PAGE) else ""
    docs = {name: json.load(open(path)) for name, path in cases.items()}
    for name, doc in docs.items():
        length = seconds(doc["duration"]) + seconds(doc.get("settle", "0s"))
        if length > 120:
            problems.append(f"{name}: duration + settle is {length:g} s, more than 2 min")
        users = [s for s, m in systems.items() if m["profile"] == doc["worker"]["profile"]]
        if not users:
            problems.append(f"{name}: no system has the profile {doc['worker']['profile']}")
        for system in users:
            block = re.search(re.escape(BEGIN.format(name, system)) + r"(.*?)" + re.escape(END),
                              page, re.S)
            if not block or "```" not in block.group(1):
                problems.append(f"{name} on {system}: no measured table in docs/fidelity.md")
            elif "DIFFERS" in block.group(1) and not notes.get(name, {}).get(system):
                problems.append(f"{name} on {system}: a row differs and notes.json says not why")
    for system, m in systems.items():
        own = [d for d in docs.values() if d["worker"]["profile"] == m["profile"]]
        for kind, is_kind in KINDS.items():
            if not any(is_kind(d) for d in own):
                problems.append(f"{system}: no case of the kind \"{kind}\"")
    for name, by_system in notes.items():
        for system in by_system:
            if name not in cases or system not in systems:
                problems.append(f"notes.json: {name} on {system} is not a case the suite has")
    return problems


# What results/fidelity/ keeps of a real run's results: what the tables, the rule check and
# `drainsim fidelity --from` read (the pods, the profile and the scenario's echo can be had
# again from the case and the drainsim of that version).
KEPT = ("schema_version", "drainsim_version", "engine", "seed", "real", "summary", "warnings")


def keep_reference(path):
    doc = json.load(open(path))
    ref = {k: doc[k] for k in KEPT if k in doc}
    ref["scenario"] = {"name": doc["scenario"]["name"]}
    with open(path, "w") as out:
        json.dump(ref, out, indent=1, sort_keys=True)
        out.write("\n")


def release(system):
    """--set arguments for the options that name the release the system's adapter runs
    (its system.json "options"): the real runs need them, and the profile predicts with them."""
    out = []
    for key, value in sorted(manifests()[system].get("options", {}).items()):
        out += ["--set", f"worker.options.{key}={json.dumps(value)}"]
    return out


def section(drainsim, case, system, args):
    name = os.path.basename(case)[:-5]
    sets = release(system)
    out_dir = os.path.join("results", "fidelity", system)
    os.makedirs(os.path.join(HERE, out_dir), exist_ok=True)
    if not args.tables_only:
        for old in glob.glob(os.path.join(HERE, out_dir, f"{name}-{system}-*.json")):
            os.remove(old)
        print(f"fidelity: {name} on {system}, {args.repeats} repeats", flush=True)
        run([drainsim, "real", case, "--system", system, "--repeats", str(args.repeats),
             "--out-dir", out_dir] + sets)
        for f in glob.glob(os.path.join(HERE, out_dir, f"{name}-{system}-*.json")):
            keep_reference(f)
    files = sorted(glob.glob(os.path.join(HERE, out_dir, f"{name}-{system}-*.json")))
    if not files:
        return None
    versions = {}
    audits = []
    checked = 0
    mismatches = []
    for f in files:
        doc = json.load(open(f))
        versions.update(doc.get("real", {}).get("versions", {}))
        rules = doc["real"]["rule_check"]
        checked += rules["checked"]
        for m in rules["mismatches"]:
            mismatches.append(f"seed {doc['seed']} job {m['job']} ({m['pod']}, "
                              f"{m['remaining_s']:.2f} s left at {m['at_s']:.2f} s: "
                              f"{m['predicted']} predicted, {m['actual']})")
        if not doc["summary"]["audit"]["ok"]:
            audits.append(os.path.relpath(f, HERE))
    table = run([drainsim, "fidelity", case, "--engines", "virtual", "--seeds", str(args.seeds),
                 "--from", f"{system}=" + ",".join(files)] + sets).stdout
    table = table[table.index("metric"):].rstrip()
    v = ", ".join(f"{k} {versions[k]}" for k in sorted(versions))
    lines = [BEGIN.format(name, system), f"#### {system}", "",
             f"Virtual over seeds 1..{args.seeds} against the real {system} over "
             f"{len(files)} repeats ({v}); results in `{out_dir}/`."
             + (f" Both with {' '.join(sets[1::2])}, the release the adapter runs." if sets else ""),
             "", "```", table, "```"]
    lines += ["", f"Per-job rule check: {checked} attempts were running at a TERM or a kill; "
              f"{checked - len(mismatches)} met the fate the profile's rule predicts"
              + (", these did not:" if mismatches else ".")]
    lines += [f"- {m}" for m in mismatches]
    if audits:
        lines += ["", "An audit failed in: " + ", ".join(audits)]
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("drainsim")
    ap.add_argument("--systems", default="")
    ap.add_argument("--cases", default="*")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--tables-only", action="store_true",
                    help="no real runs: the tables from the real results kept under "
                         "results/fidelity/ (and new virtual runs)")
    args = ap.parse_args()
    drainsim = os.path.abspath(args.drainsim)
    systems = manifests()
    if args.check:
        cases = {os.path.basename(c)[:-5]: c
                 for c in sorted(glob.glob(os.path.join(HERE, "scenarios", "fidelity", "*.json")))
                 if not c.endswith("notes.json")}
        notes = json.load(open(os.path.join(HERE, "scenarios", "fidelity", "notes.json")))
        problems = check(drainsim, systems, cases, notes)
        for line in problems:
            print(f"fidelity: {line}")
        sys.exit(1 if problems else 0)
    wanted = [s for s in args.systems.split(",") if s] or list(systems)
    unknown = [s for s in wanted if s not in systems]
    if unknown:
        sys.exit(f"fidelity: no adapter for {', '.join(unknown)}; there are {', '.join(systems)}")
    notes = json.load(open(os.path.join(HERE, "scenarios", "fidelity", "notes.json")))
    old = open(PAGE).read() if os.path.exists(PAGE) else ""
    kept = {m.group(1): m.group(0)
            for m in re.finditer(r"(<!-- case \S+ on \S+ -->).*?" + re.escape(END), old, re.S)}
    page = [
        "# Fidelity: each profile against the real system it names",
        "",
        "Generated by `scripts/fidelity.py build/sim/drainsim` (see its help for "
        "`--systems`, `--cases`, `--repeats`, `--seeds`); do not edit the tables by hand. "
        "Each case of [scenarios/fidelity/](../scenarios/fidelity/) is predicted by its "
        "profile on the virtual engine over 30 seeds and measured on the real system "
        "(`drainsim real`, [engines](engines.md#the-real-engine)) over 5 repeats, repeat r "
        "with seed 1 + r, so both sides sample the same workloads. Each cell is a mean with "
        "its 95 % Student-t interval over the runs (a range `[min..max]` for 2-4 runs); the "
        "verdict is Welch's t test at 95 % (`drainsim fidelity`), and the `same 5 seeds` "
        "column the paired t test of the real repeats against the virtual runs of the same "
        "seeds: the same work on both sides, so it tells a model's difference from the "
        "workloads' spread ([engines](engines.md#comparing-the-engines-drainsim-fidelity)). "
        "With 18 metrics per table, about one comparison in 20 differs by chance alone. "
        "Times on the real side are "
        "real seconds, and include each program's start-up (Ruby, Node, Python) on top of "
        "the scenario's `pod_start_delay`.",
        "",
        "Every system has a case of each kind the suite promises (checked by "
        "`scripts/fidelity.py --check`, a test): a rolling restart, an OOM kill, a scale-down, "
        "two kills of one long job, job errors with retries, and its own defaults. A rolling "
        "restart with the worker's grace below the platform's kill exists only where the "
        "worker has a grace of its own (Sidekiq's -t, pg-boss's stop() timeout, "
        "graphile-worker's 5 s abort); BullMQ's close() and Celery's warm shutdown wait "
        "without a deadline, so their rolling restarts are all \"grace above the kill\".",
        "",
        "Why a row disagrees is said under its table (scenarios/fidelity/notes.json) and "
        "filed with the profile-fidelity work; no number is tuned to make a row agree.",
        "",
    ]
    for case in sorted(glob.glob(os.path.join(HERE, "scenarios", "fidelity", "*.json"))):
        name = os.path.basename(case)[:-5]
        if name == "notes":
            continue
        measure = fnmatch.fnmatch(name, args.cases)
        doc = json.load(open(case))
        page += [f"### {name}", "", doc.get("description", ""), ""]
        for system, m in systems.items():
            if m["profile"] != doc["worker"]["profile"]:
                continue
            key = BEGIN.format(name, system)
            lines = None
            if system in wanted and measure:
                lines = section(drainsim, os.path.relpath(case, HERE), system, args)
            if lines:
                body = "\n".join(lines) + "\n" + END
            elif key in kept:
                body = kept[key]
            else:
                body = f"{key}\n#### {system}\n\nNot measured yet.\n{END}"
            page += [body, ""]
            why = notes.get(name, {}).get(system)
            if why:
                page += [f"Why: {why}", ""]
    open(PAGE, "w").write("\n".join(page).rstrip() + "\n")
    print(f"fidelity: wrote {os.path.relpath(PAGE, HERE)}")


if __name__ == "__main__":
    main()
