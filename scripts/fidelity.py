#!/usr/bin/env python3
"""Regenerates docs/fidelity.md: every case of scenarios/fidelity/ predicted by its profile
(the virtual engine over --seeds seeds) against the real system (drainsim real over
--repeats repeats, repeat r with seed 1 + r), metric by metric, with drainsim fidelity's
equivalence verdicts against the tolerances declared in scenarios/fidelity/tolerances.json.

  scripts/fidelity.py BUILD/sim/drainsim [--systems sidekiq,bullmq] [--cases PATTERN]
                      [--repeats auto:10] [--seeds 30] [--jobs 2]
  scripts/fidelity.py BUILD/sim/drainsim --tables-only
  scripts/fidelity.py BUILD/sim/drainsim --check

--repeats auto[:MAX] (the default, auto:10) adds repeats until every verdict of the table is
conclusive or MAX is reached (drainsim real --repeats auto). --jobs 2 measures two systems
at once (each on a throwaway broker of its own; they share nothing but the cores).

--check measures nothing: it fails unless every case is valid and at most 2 min long, every
system has a case of each kind the suite promises (KINDS), every case has its tolerances
declared (tolerances.json "cases", with a reason), the page has a measured table for every
case and system, every row that differs, and every inconclusive row that more runs cannot
settle (none are asked for, or MOST_REPEATS were run), has its note (notes.json "rows"),
every row note belongs to a row that is not equivalent, the summary at the top is the
tables', and every note names a case and system that exist. An inconclusive row whose runs
were too few says so on the page, with the runs it asks for.

A case runs on every system whose adapter (adapters/*/system.json) has the case's profile and
honours every worker and backend field the case sets (`fits`); the options that name the
adapter's release are set for it (`release`) unless the case sets them.
The real runs' results (no timelines) are kept under results/fidelity/SYSTEM/; a case or
system not asked for keeps the rows the page had. Why a row is not equivalent is written by
hand in scenarios/fidelity/notes.json ({"CASE": {"SYSTEM": {"about": "the table in prose",
"rows": {"METRIC": "why"}}}}), never by tuning a number.
"""
import argparse
import concurrent.futures
import fnmatch
import glob
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(HERE, "docs", "fidelity.md")
SUITE = os.path.join(HERE, "scenarios", "fidelity")
TOLERANCES = os.path.join(SUITE, "tolerances.json")
NOTES = os.path.join(SUITE, "notes.json")
SUMMARY_BEGIN = "<!-- summary -->"
BEGIN = "<!-- case {} on {} -->"
END = "<!-- end -->"


def read(path):
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        return f.read()


def load(path):
    with open(path) as f:
        return json.load(f)


def manifests():
    out = {}
    for path in sorted(glob.glob(os.path.join(HERE, "adapters", "*", "system.json"))):
        m = load(path)
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


def table_rows(block):
    """The rows of the measured table in a page block: (metric, verdict, cell) for each, the
    verdict that stands (the first verdict column): equivalent, differs, inconclusive or
    not measured (the real system cannot tell)."""
    m = re.search(r"```\n(.*?)```", block, re.S)
    if not m:
        return []
    lines = m.group(1).rstrip().split("\n")
    header = re.split(r"\s{2,}", lines[0].strip())
    if "tolerance" not in header:
        return []
    at = header.index("tolerance") + 1
    rows = []
    for line in lines[1:]:
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) <= at:
            continue
        verdict = "not measured" if cells[at].startswith("not measured") else \
            cells[at].split(" ")[0].lower()
        rows.append((cells[0], verdict, cells[at]))
    return rows


def blocks(page):
    """Each measured block of the page: {(case, system): text}."""
    out = {}
    for m in re.finditer(r"<!-- case (\S+) on (\S+) -->(.*?)" + re.escape(END), page, re.S):
        out[(m.group(1), m.group(2))] = m.group(3)
    return out


def summary(page):
    """The summary table of the page's measured blocks, by system: its tables, those
    equivalent on every row, and its rows by verdict."""
    by = {}
    for (case, system), text in sorted(blocks(page).items()):
        rows = table_rows(text)
        if not rows:
            continue
        s = by.setdefault(system, {"tables": 0, "whole": 0, "equivalent": 0, "differs": 0,
                                   "inconclusive": 0, "not measured": 0})
        s["tables"] += 1
        s["whole"] += all(v in ("equivalent", "not measured") for _, v, _ in rows)
        for _, v, _ in rows:
            s[v] = s.get(v, 0) + 1
    total = {k: sum(s[k] for s in by.values()) for k in
             ("tables", "whole", "equivalent", "differs", "inconclusive", "not measured")}
    lines = [SUMMARY_BEGIN,
             "| system | tables | equivalent on every row measured | rows equivalent "
             "| rows that differ | rows inconclusive | rows not measured |",
             "|---|---|---|---|---|---|---|"]
    for system, s in list(sorted(by.items())) + [("**all**", total)]:
        lines.append(f"| {system} | {s['tables']} | {s['whole']} | {s['equivalent']} | "
                     f"{s['differs']} | {s['inconclusive']} | {s['not measured']} |")
    lines.append(END)
    return "\n".join(lines)


MOST_REPEATS = 10  # the suite's --repeats auto:MAX (the default): below it, more runs can be had


def repeats_of(block):
    m = re.search(r"over (\d+) repeats", block)
    return int(m.group(1)) if m else 0


def asks_for_runs(cell, block):
    """The runs an inconclusive row asks for, when more can still be had (fewer repeats than
    MOST_REPEATS so far); None otherwise."""
    m = re.search(r"~(\d+) runs", cell)
    if not m or repeats_of(block) >= MOST_REPEATS:
        return None
    return int(m.group(1))


def needs_note(verdict, cell, block):
    """Whether a row must say why: every row that differs, and every inconclusive one that
    more runs cannot settle (none are asked for, or MOST_REPEATS were run)."""
    return verdict == "differs" or (verdict == "inconclusive" and asks_for_runs(cell, block) is None)


def row_notes(notes, name, system):
    entry = notes.get(name, {}).get(system, {})
    return entry.get("rows", {}) if isinstance(entry, dict) else {}


def check(drainsim, systems, cases, notes, tolerances, page):
    """Every problem with the suite as it stands, as lines; none when it is whole.
    `drainsim` None: the cases are not validated (for the check's own test)."""
    problems = []
    if drainsim:
        p = subprocess.run([drainsim, "validate"] + list(cases.values()), capture_output=True,
                           text=True)
        if p.returncode != 0:
            problems.append(f"drainsim validate failed:\n{p.stdout}{p.stderr}")
    docs = {name: load(path) for name, path in cases.items()}
    declared = tolerances.get("cases", {})
    found = blocks(page)
    for name, doc in docs.items():
        length = seconds(doc["duration"]) + seconds(doc.get("settle", "0s"))
        if length > 120:
            problems.append(f"{name}: duration + settle is {length:g} s, more than 2 min")
        if name not in declared:
            problems.append(f"{name}: no tolerances declared (tolerances.json \"cases\")")
        users = [s for s, m in systems.items() if fits(doc, m)]
        if not users:
            problems.append(f"{name}: no system has the profile {doc['worker']['profile']} "
                            "and honours every field the case sets")
        for system in users:
            block = found.get((name, system))
            if block is None or "```" not in block:
                problems.append(f"{name} on {system}: no measured table in docs/fidelity.md")
                continue
            rows = table_rows(block)
            if not rows:
                problems.append(f"{name} on {system}: the table has no equivalence verdicts: "
                                "regenerate it (--tables-only)")
            noted = row_notes(notes, name, system)
            open_rows = {metric for metric, verdict, _ in rows
                         if verdict not in ("equivalent", "not measured")}
            for metric, verdict, cell in rows:
                if needs_note(verdict, cell, block) and not noted.get(metric):
                    problems.append(f"{name} on {system}: {metric} is {verdict} and notes.json "
                                    "says not why")
            for metric in sorted(set(noted) - open_rows):
                problems.append(f"{name} on {system}: notes.json explains {metric}, which is "
                                "equivalent (or no row): a stale note")
    for name in declared:
        if name not in cases:
            problems.append(f"tolerances.json: {name} is not a case the suite has")
    for system, m in systems.items():
        own = [d for d in docs.values() if fits(d, m)]
        for kind, is_kind in KINDS.items():
            if not any(is_kind(d) for d in own):
                problems.append(f"{system}: no case of the kind \"{kind}\"")
    for name, by_system in notes.items():
        for system in by_system:
            if name not in cases or system not in systems:
                problems.append(f"notes.json: {name} on {system} is not a case the suite has")
    have = re.search(re.escape(SUMMARY_BEGIN) + ".*?" + re.escape(END), page, re.S)
    if not have or have.group(0) != summary(page):
        problems.append("docs/fidelity.md: the summary at the top is not the tables': "
                        "regenerate it (--tables-only)")
    return problems


# What results/fidelity/ keeps of a real run's results: what the tables, the rule check and
# `drainsim fidelity --from` read (the pods, the profile and the scenario's echo can be had
# again from the case and the drainsim of that version).
KEPT = ("schema_version", "drainsim_version", "engine", "seed", "real", "summary", "warnings")


def keep_reference(path):
    doc = load(path)
    ref = {k: doc[k] for k in KEPT if k in doc}
    ref["scenario"] = {"name": doc["scenario"]["name"]}
    with open(path, "w") as out:
        json.dump(ref, out, indent=1, sort_keys=True)
        out.write("\n")


def release(system, doc):
    """--set arguments for the options that name the release the system's adapter runs
    (its system.json "options") and the case leaves to it: the real runs need them, and the
    profile predicts with them."""
    out = []
    own = doc["worker"].get("options", {})
    for key, value in sorted(manifests()[system].get("options", {}).items()):
        if key not in own:
            out += ["--set", f"worker.options.{key}={json.dumps(value)}"]
    return out


def leaves(value, path):
    if isinstance(value, dict):
        for key, v in value.items():
            yield from leaves(v, f"{path}.{key}")
    else:
        yield path


def fits(doc, m):
    """Whether the case runs on the system: its profile, every worker and backend field the
    case sets is one the adapter honours (system.json "honours"; drainsim real refuses the
    others unless they keep the profile's default, which a case has no reason to set), and
    an option that names a release, where the case sets it, names the adapter's; a case
    with job classes needs an adapter that gives each job its class's attempts
    (workload.classes.retry) and has the serial or singleton classes it uses."""
    if m["profile"] != doc["worker"]["profile"]:
        return False
    honours = m.get("honours", [])
    for section in ("worker", "backend"):
        for path in leaves(doc.get(section, {}), section):
            if path == "worker.profile" or path.startswith(("worker.fetch_latency",
                                                             "worker.startup")):
                continue  # the model's own (drainsim real: its network, its programs)
            option = path.removeprefix("worker.options.")
            if option in m.get("options", {}):
                if doc["worker"]["options"][option] != m["options"][option]:
                    return False  # written for another release
                continue
            if not any(path == h or path.startswith(h + ".") for h in honours):
                return False
    # Job classes: each job's attempts, and a serial or singleton class, are the adapter's.
    for c in doc.get("workload", {}).get("classes", []):
        needs = ["retry"] + [f for f in ("serial", "singleton") if c.get(f)]
        if any(f"workload.classes.{f}" not in honours for f in needs):
            return False
    return True


def section(drainsim, case, system, args, notes):
    """The page block of `case` on `system`: measured anew, or from the results kept."""
    name = os.path.basename(case)[:-5]
    sets = release(system, load(os.path.join(HERE, case)))
    out_dir = os.path.join("results", "fidelity", system)
    os.makedirs(os.path.join(HERE, out_dir), exist_ok=True)
    judge = ["--tolerances", os.path.relpath(TOLERANCES, HERE), "--case", name]
    if not args.tables_only:
        for old in glob.glob(os.path.join(HERE, out_dir, f"{name}-{system}-*.json")):
            os.remove(old)
        print(f"fidelity: {name} on {system}, {args.repeats} repeats", flush=True)
        extra = judge + ["--seeds", str(args.seeds)] if args.repeats.startswith("auto") else []
        run([drainsim, "real", case, "--system", system, "--repeats", args.repeats,
             "--out-dir", out_dir] + extra + sets)
        for f in glob.glob(os.path.join(HERE, out_dir, f"{name}-{system}-*.json")):
            keep_reference(f)
    files = sorted(glob.glob(os.path.join(HERE, out_dir, f"{name}-{system}-*.json")),
                   key=lambda f: int(re.search(r"-(\d+)\.json$", f).group(1)))
    if not files:
        return None
    versions = {}
    audits = []
    checked = 0
    mismatches = []
    for f in files:
        doc = load(f)
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
                 "--from", f"{system}=" + ",".join(files)] + judge + sets).stdout
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


def notes_text(block, notes, name, system):
    """What the page says under a table: each row not equivalent with its note, then the
    table's note in prose."""
    out = []
    noted = row_notes(notes, name, system)
    rows = [(m, v, cell) for m, v, cell in table_rows(block)
            if v not in ("equivalent", "not measured")]
    if rows:
        out += ["Rows not equivalent:", ""]
        for m, v, cell in rows:
            runs = asks_for_runs(cell, block)
            why = noted.get(m) or (
                f"runs too few so far ({repeats_of(block)}): about {runs} would decide, and the "
                f"suite runs up to {MOST_REPEATS}" if runs else "**no note yet**")
            out.append(f"- `{m}`, {cell}: {why}")
        out += [""]
    entry = notes.get(name, {}).get(system)
    about = entry.get("about") if isinstance(entry, dict) else entry
    if about:
        out += [f"About this table: {about}", ""]
    return out


INTRO = [
    "# Fidelity: each profile against the real system it names",
    "",
    "Generated by `scripts/fidelity.py build/sim/drainsim` (see its help for `--systems`, "
    "`--cases`, `--repeats`, `--seeds`, `--jobs`); do not edit the tables by hand. Each case "
    "of [scenarios/fidelity/](../scenarios/fidelity/) is predicted by its profile on the "
    "virtual engine over 30 seeds and measured on the real system (`drainsim real`, "
    "[engines](engines.md#the-real-engine)), repeat r with seed 1 + r, so both sides sample "
    "the same workloads. Each cell is a mean with its 95 % Student-t interval over the runs "
    "(a range `[min..max]` for 2-4 runs). Each row is judged by an equivalence test (TOST at "
    "95 %, `drainsim fidelity`, [engines](engines.md#comparing-the-engines-drainsim-fidelity)): "
    "**equivalent** when the difference's 90 % interval lies inside the row's tolerance, "
    "**DIFFERS** when it lies wholly outside, **inconclusive** when the runs cannot tell "
    "(with the runs that would). The verdict that stands is the paired one over the seeds "
    "both sides ran (`same N seeds`): the same work on both sides, so the workloads' spread "
    "drops out; Welch's unpaired verdict is printed beside it as detail. The tolerances are "
    "declared, each with its reason, in "
    "[scenarios/fidelity/tolerances.json](../scenarios/fidelity/tolerances.json) before the "
    "tables are made, and never tuned to make a row equivalent: counts ±max(1 job, 10 %), "
    "jobs lost or run twice and forced kills ±max(0.5, 10 %), times ±max(0.25 s, 5 %). Times "
    "on the real side are real seconds, and include each program's own start-up (Ruby, Node, "
    "Python) on top of the scenario's `pod_start_delay`; the model's include the profile's "
    "`worker.startup`, measured on these systems ([profiles](profiles.md#program-start-up)).",
    "",
    "Every system has a case of each kind the suite promises (checked by "
    "`scripts/fidelity.py --check`, a test): a rolling restart, an OOM kill, a scale-down, "
    "two kills of one long job, job errors with retries, and its own defaults. A rolling "
    "restart with the worker's grace below the platform's kill exists only where the "
    "worker has a grace of its own (Sidekiq's -t, pg-boss's stop() timeout, "
    "graphile-worker's 5 s abort); BullMQ's close() and Celery's warm shutdown wait "
    "without a deadline, so their rolling restarts are all \"grace above the kill\".",
    "",
    "A case runs on each system whose adapter is given every field it sets (its "
    "`system.json` `honours`), with the options that name the adapter's release: so every "
    "BullMQ case runs on BullMQ 6.7 and on 4.12.7 (`bullmq-4`, `renews_locks_while_closing` "
    "false), and every pg-boss case on pg-boss 9.0.3 and 10.4.2 (`pg-boss-10`, "
    "`fails_active_at_stop` true: `stop()` fails the jobs still active at its timeout); a case "
    "that sets such an option runs only on its release. Celery's pool children, which the "
    "OOM killer can take one at a time, have two cases on both brokers: "
    "celery-oom-kill-child (the task fails for good) and celery-oom-kill-child-requeue "
    "(`acks_late` with `task_reject_on_worker_lost`: it runs again). Job classes have a case "
    "each where a system has them: graphile-worker-serial-queue (a serial class, "
    "graphile-worker's named job queue) and pg-boss-singleton (a singleton class, pg-boss 9's "
    "`singletonKey`, whose refused pushes the page counts in `jobs_enqueued`). Four cases run "
    "jobs twice on purpose, each by its own mechanism: bullmq-close-outlasts-the-lock "
    "(BullMQ 4's `close()` stops extending the locks of the jobs it waits for; 6.7 runs them "
    "once), bullmq-lock-shorter-than-renewal (a lock that lapses between two extensions is "
    "never extended again, on both releases), celery-restart-restores-running-tasks (kombu "
    "restores the running tasks older than the visibility timeout at a new worker's start) "
    "and pg-boss-expire-in-shorter-than-jobs (`work()` fails a job still running at its "
    "`expireIn` and runs it again while the first run goes on, on both releases: "
    "[adapters/pg-boss](../adapters/pg-boss/README.md)). Others set what users change: "
    "BullMQ's lock, lock renewal and stalled interval, Sidekiq's -t one second inside the "
    "platform's grace, Celery's prefetch multiplier 1.",
    "",
    "Regenerating the whole page takes hours: each case/system pair runs up to 10 repeats "
    "of at most 2 minutes of real time (`--repeats auto:10` stops as soon as every row is "
    "conclusive), 30-60 s a repeat with start-ups and the inspection. Measured on this "
    "project's 2-core machine (2026-11-27): 5-9 minutes a pair (bullmq-close-outlasts-the-"
    "lock on BullMQ 6.7, 10 repeats: 6.7 min; three pairs in a row: 28 min; 2026-11-28, "
    "pg-boss-expire-in-shorter-than-jobs on both pg-boss releases with `--jobs 2`, 30 "
    "repeats each: 29 min), so the 65 pairs take about 7 hours one at a time and about 3.5 "
    "with `--jobs 2`, which measures two systems at once. `--tables-only` remakes the page "
    "from the kept results in seconds.",
    "",
    "Every row that is not equivalent is listed under its table with why "
    "(scenarios/fidelity/notes.json, checked by `--check`): a model gap (filed with the "
    "profile work), a limit of the real engine, or runs too few to tell. A row the real "
    "system cannot measure says **not measured** instead of a verdict: orphan recovery is "
    "measured to the moment the system makes a job available again, as the model counts "
    "it, only where the adapter can say when that is "
    "([adapters](../adapters/README.md)).",
    "",
    "## Summary",
    "",
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("drainsim")
    ap.add_argument("--systems", default="")
    ap.add_argument("--cases", default="*")
    ap.add_argument("--repeats", default=f"auto:{MOST_REPEATS}",
                    help="N, or auto[:MAX]: until every verdict is conclusive (default "
                         f"auto:{MOST_REPEATS})")
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--jobs", type=int, default=1,
                    help="systems measured at once (each on its own throwaway broker)")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--tables-only", action="store_true",
                    help="no real runs: the tables from the real results kept under "
                         "results/fidelity/ (and new virtual runs)")
    args = ap.parse_args()
    drainsim = os.path.abspath(args.drainsim)
    systems = manifests()
    cases = {os.path.basename(c)[:-5]: c
             for c in sorted(glob.glob(os.path.join(SUITE, "*.json")))
             if c not in (NOTES, TOLERANCES)}
    notes = load(NOTES)
    tolerances = load(TOLERANCES)
    if args.check:
        page = read(PAGE)
        problems = check(drainsim, systems, cases, notes, tolerances, page)
        for line in problems:
            print(f"fidelity: {line}")
        sys.exit(1 if problems else 0)
    wanted = [s for s in args.systems.split(",") if s] or list(systems)
    unknown = [s for s in wanted if s not in systems]
    if unknown:
        sys.exit(f"fidelity: no adapter for {', '.join(unknown)}; there are {', '.join(systems)}")
    old = read(PAGE)
    kept = {m.group(1): m.group(0)
            for m in re.finditer(r"(<!-- case \S+ on \S+ -->).*?" + re.escape(END), old, re.S)}
    # What to measure, by system: each system's cases in turn, --jobs systems at once.
    todo = {}
    for name, case in cases.items():
        doc = load(case)
        if not fnmatch.fnmatch(name, args.cases):
            continue
        for system in wanted:
            if fits(doc, systems[system]):
                todo.setdefault(system, []).append(name)
    measured = {}

    def measure(system):
        for name in todo[system]:
            measured[(name, system)] = section(drainsim, os.path.relpath(cases[name], HERE),
                                               system, args, notes)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for f in [pool.submit(measure, system) for system in todo]:
            f.result()
    body = []
    for name, case in cases.items():
        doc = load(case)
        body += [f"### {name}", "", doc.get("description", ""), ""]
        for system, m in systems.items():
            if not fits(doc, m):
                continue
            key = BEGIN.format(name, system)
            lines = measured.get((name, system))
            if lines:
                block = "\n".join(lines) + "\n" + END
            elif key in kept:
                block = kept[key]
            else:
                block = f"{key}\n#### {system}\n\nNot measured yet.\n{END}"
            body += [block, ""]
            body += notes_text(block, notes, name, system)
    text = "\n".join(body)
    page = INTRO + [summary(text), ""] + body
    with open(PAGE, "w") as out:
        out.write("\n".join(page).rstrip() + "\n")
    print(f"fidelity: wrote {os.path.relpath(PAGE, HERE)}")


if __name__ == "__main__":
    main()
