#!/usr/bin/env python3
"""The real engine's fault campaign: each fault injected into a short run of each real system.

For every system (adapters/*/system.json) and fault, runs `drainsim real` on a short
scenario of the system's profile (two pods, a job every second for 24 s, each 2 s long),
injects the fault into drainsim's own child processes, and checks what a user relies on:

  kill-broker    the broker SIGKILLed at 8 s: exit 4, the message's first line names the
                 broker, run.failed.component "broker"
  stop-broker    the broker SIGSTOPped at 8 s (a hung broker): exit 4, component "broker",
                 the message says it is stopped
  kill-enqueuer  the enqueuer SIGKILLed at 8 s: exit 4, component "enqueuer"
  kill-worker    pod-0's worker SIGKILLed at 8 s: the run goes on (the platform restarts it
                 as any crash), exit 0, the warning worker_killed_outside names it
  sigint         one SIGINT right after the first completion the adapter reports: exit 130,
                 run.interrupted, and the audit balances (the broker's lagging view
                 reconciled with the adapter's reports)
  sigint2        two SIGINTs 100 ms apart right after the first completion: exit 130

and, in every case: a results file that passes docs/results.schema.json with its audit ok,
no process of the run left alive (every descendant drainsim had, sampled through the run,
and anything naming the broker's folder) and the broker's folder removed.

Usage: real_faults.py DRAINSIM REPO_ROOT [--systems all|A,B] [--faults all|A,B]
                      [--repeats N] [--out DIR] [--markdown FILE]
Prints one line per run and a table; exits 1 when a check fails, 77 when no system can run
here (a missing program: the run exits 2 naming what to install), 2 on bad usage.
"""

import argparse
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from check_results import CheckError, check_schema, make_validator  # noqa: E402

FAULTS = ["kill-broker", "stop-broker", "kill-enqueuer", "kill-worker", "sigint", "sigint2"]
FAULT_AT = 8.0  # seconds after the first worker is ready
RUN_LIMIT = 240  # seconds: a run still going then is a hang


def scenario(system, manifest):
    """The system's profile, with the options its release fixes (system.json "options")."""
    worker = {"profile": manifest["profile"]}
    if manifest.get("options"):
        worker["options"] = manifest["options"]
    return {
        "name": f"fault-{system}",
        "duration": "24s",
        "settle": "20s",
        "workload": {"arrival": {"kind": "list", "at": [f"{t}s" for t in range(24)]},
                     "job_duration": {"kind": "constant", "value": "2s"}},
        "worker": worker,
        "platform": {"replicas": 2, "pod_start_delay": "0s"},
    }


def start_time(pid):
    """The process's start time (clock ticks since boot), or None when it is gone or dead
    (a zombie waiting for whoever adopted it to reap it)."""
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    return None if fields[0] in ("Z", "X") else fields[19]


def children(pid):
    """Its children, whichever of its threads started them."""
    out = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for task in tasks:
        try:
            out += [int(p) for p in pathlib.Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
        except OSError:
            pass
    return out


def descendants(pid):
    out, todo = [], children(pid)
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children(p))
    return out


def cmdline(pid):
    try:
        return pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(
            errors="replace")
    except OSError:
        return ""


def naming(text):
    """Processes whose command line contains `text`."""
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and text in cmdline(int(p))]


def events(folder):
    try:
        lines = (pathlib.Path(folder) / "events.jsonl").read_text().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return out


def target(fault, drainsim_pid, folder, manifest):
    """The pid the fault goes to."""
    direct = children(drainsim_pid)
    if fault in ("kill-broker", "stop-broker"):
        for p in direct:
            line = cmdline(p)
            if folder in line or re.search(r"redis-server|postgres|beam\.smp", line):
                return p
    elif fault == "kill-enqueuer":
        script = pathlib.Path(manifest["enqueue"][-1]).name
        for p in direct:
            if script in cmdline(p):
                return p
    elif fault == "kill-worker":
        for e in events(folder):
            if e.get("event") == "ready" and e.get("worker") == "pod-0":
                return int(e["pid"])
    return None


def one(binary, repo, system, manifest, fault, work):
    """Runs one case; returns (ok, seconds, what went wrong)."""
    case = work / f"{system}-{fault}"
    shutil.rmtree(case, ignore_errors=True)
    case.mkdir(parents=True)
    (case / "s.json").write_text(json.dumps(scenario(system, manifest)))
    env = dict(os.environ, DRAINSIM_ADAPTERS=str(repo / "adapters"))
    err = open(case / "stderr", "w+b")
    t0 = time.monotonic()
    proc = subprocess.Popen([binary, "real", str(case / "s.json"), "--system", system,
                             "--out-dir", str(case)], stdout=subprocess.DEVNULL, stderr=err,
                            env=env)
    seen = {}  # pid -> start time: every descendant, sampled through the run
    folder, ready_at, injected, problems = None, None, None, []

    def sample():
        for p in descendants(proc.pid):
            seen.setdefault(p, start_time(p))

    while proc.poll() is None:
        sample()
        now = time.monotonic() - t0
        if now > RUN_LIMIT:
            problems.append(f"still running after {RUN_LIMIT} s: killed")
            proc.kill()
            break
        if folder is None:
            m = re.search(rb"\(folder ([^)]+)\)", pathlib.Path(case / "stderr").read_bytes())
            folder = m.group(1).decode() if m else None
        if folder and injected is None:
            evs = events(folder)
            if ready_at is None and any(e.get("event") == "ready" for e in evs):
                ready_at = now
            due = False
            if fault in ("sigint", "sigint2"):
                due = any(e.get("event") == "end" and e.get("outcome") == "completed" for e in evs)
            elif ready_at is not None:
                due = now >= ready_at + FAULT_AT
            if due:
                if fault in ("sigint", "sigint2"):
                    proc.send_signal(signal.SIGINT)
                    if fault == "sigint2":
                        time.sleep(0.1)
                        proc.send_signal(signal.SIGINT)
                    injected = now
                else:
                    pid = target(fault, proc.pid, folder, manifest)
                    if pid is None:
                        problems.append(f"{fault}: its process was not found")
                        injected = now
                    else:
                        os.kill(pid, signal.SIGSTOP if fault == "stop-broker" else signal.SIGKILL)
                        injected = now
        time.sleep(0.05)
    rc = proc.wait()
    seconds = time.monotonic() - t0
    text = (case / "stderr").read_bytes().decode(errors="replace")
    if rc == 2 and "not installed" in text:
        return None, seconds, text.strip().splitlines()[-1]
    if injected is None and not problems:
        problems.append("the fault was never injected (no worker ready, or no completion)")
    expected_rc = {"kill-worker": 0, "sigint": 130, "sigint2": 130}.get(fault, 4)
    if rc != expected_rc:
        problems.append(f"exit {rc}, expected {expected_rc}")
    first = next((line for line in text.splitlines() if line.startswith("error")), "")
    component = {"kill-broker": "broker", "stop-broker": "broker",
                 "kill-enqueuer": "enqueuer"}.get(fault)
    if component and (not first.startswith("error: the run failed at ") or
                      f"({component}): " not in first):
        problems.append(f"first error line does not name the {component}: {first[:160]!r}")
    if fault == "stop-broker" and "is stopped (SIGSTOP)" not in first:
        problems.append(f"the message does not say the broker is stopped: {first[:160]!r}")
    files = sorted(case.glob("fault-*.json"))
    if len(files) != 1:
        problems.append(f"{len(files)} results files")
    else:
        try:
            doc = json.loads(files[0].read_text())
            check_schema(VALIDATOR, doc)
            audit = doc["summary"]["audit"]
            if not audit["ok"]:
                problems.append(f"audit failed: {audit['errors'][:2]}")
            run = doc["run"]
            if component and run.get("failed", {}).get("component") != component:
                problems.append(f"run.failed is {run.get('failed')}")
            if fault in ("sigint", "sigint2") and not run.get("interrupted"):
                problems.append("no run.interrupted")
            codes = [w["code"] for w in doc["warnings"]]
            if fault == "kill-worker" and "worker_killed_outside" not in codes:
                problems.append(f"no warning worker_killed_outside: {codes}")
        except (CheckError, json.JSONDecodeError, KeyError) as e:
            problems.append(f"{files[0].name}: {e}")
    for _ in range(30):  # processes killed last may take a moment to die
        alive = [p for p, st in seen.items() if st is not None and start_time(p) == st]
        if not alive:
            break
        time.sleep(0.1)
    if alive:
        problems.append(f"left running: {[(p, cmdline(p)[:60]) for p in alive]}")
    if folder:
        if naming(folder):
            problems.append(f"processes naming {folder} left: {naming(folder)}")
        if os.path.exists(folder):
            problems.append(f"{folder} left behind")
    for p in alive:  # leave nothing behind, whatever the verdict
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
    return not problems, seconds, "; ".join(problems)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("drainsim")
    parser.add_argument("repo", type=pathlib.Path)
    parser.add_argument("--systems", default="all")
    parser.add_argument("--faults", default="all")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--out", type=pathlib.Path)
    parser.add_argument("--markdown", type=pathlib.Path)
    args = parser.parse_args(argv)
    manifests = {}
    for path in sorted((args.repo / "adapters").glob("*/system.json")):
        m = json.loads(path.read_text())
        manifests[m["system"]] = m
    systems = list(manifests) if args.systems == "all" else args.systems.split(",")
    faults = FAULTS if args.faults == "all" else args.faults.split(",")
    bad = [s for s in systems if s not in manifests] + [f for f in faults if f not in FAULTS]
    if bad or args.repeats < 1:
        print(f"error: unknown systems or faults: {bad} (systems: {', '.join(manifests)}; "
              f"faults: {', '.join(FAULTS)})", file=sys.stderr)
        return 2
    global VALIDATOR
    VALIDATOR = make_validator(args.repo / "docs")
    work = args.out or pathlib.Path(tempfile.mkdtemp(prefix="drainsim-real-faults-"))
    table, failed, skipped = {}, 0, 0
    for system in systems:
        for fault in faults:
            for r in range(args.repeats):
                ok, seconds, why = one(args.drainsim, args.repo.resolve(), system,
                                       manifests[system], fault, work)
                verdict = "skip" if ok is None else "ok" if ok else "FAIL"
                print(f"{system:16} {fault:14} #{r + 1} {verdict:4} {seconds:5.1f} s  {why}",
                      flush=True)
                cell = table.setdefault((system, fault), [0, 0, 0.0])
                cell[0] += ok is True
                cell[1] += ok is not None
                cell[2] = max(cell[2], seconds)
                failed += ok is False
                skipped += ok is None
    lines = ["| system | " + " | ".join(faults) + " |", "|---|" + "---|" * len(faults)]
    for system in systems:
        row = []
        for fault in faults:
            passed, ran, longest = table[(system, fault)]
            row.append(f"{passed}/{ran} ({longest:.0f} s)" if ran else "not run")
        lines.append(f"| {system} | " + " | ".join(row) + " |")
    print("\n" + "\n".join(lines))
    if args.markdown:
        args.markdown.write_text("\n".join(lines) + "\n")
    if not args.out:
        shutil.rmtree(work, ignore_errors=True)
    if failed:
        print(f"\n{failed} runs failed their checks", file=sys.stderr)
        return 1
    if skipped and not any(ran for _, ran, _ in table.values()):
        return 77  # nothing could run here
    return 0


VALIDATOR = None

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
