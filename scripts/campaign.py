#!/usr/bin/env python3
"""A random-scenario campaign: generates random valid scenarios and checks every run.

Each case is a scenario drawn from its own generator, random.Random("SEED:CASE"), so the
campaign is the same for the same --seed whatever --jobs is, and one case can be rerun
alone (--only CASE). The generator covers every profile, both platforms, every event kind,
every preStop kind, every arrival and duration distribution, job classes, and stress cases:
bunched arrivals (all at one instant), zero delays, zero-length jobs, events at one time.
Scenarios are small (at most a few hundred jobs) so that a thousand run in a few minutes.

The checker, per case:
  valid     `drainsim validate` accepts it (the generator makes only valid scenarios; a
            refusal is a generator bug or a loader bug)
  run       `drainsim run` exits 0: no crash (signal), no hang (--timeout), audit ok (3 is
            a failed audit), no refusal of what validate accepted (2)
  schema    the results file matches docs/results.schema.json and passes the rules of
            scripts/check_results.py (hash recomputes, sums and identities hold, audit ok,
            summary agrees with pods[] and the timeline)
  rerun     a second run of the same scenario writes a byte-identical file
  realtime  on small cases (--realtime-every, simulated end <= --realtime-max-s), the same
            scenario on `--engine realtime --time-scale T` exits 0, passes the schema and
            the rules, and has as many arrivals (jobs_enqueued + pushes_refused) as the
            virtual run
Every third case records the timeline (--timeline), so the timeline's rules are checked too.

A failing case keeps its scenario and what went wrong in OUT/failures/KIND/case-N.json and
case-N.txt (the command to reproduce it). Prints a summary: cases, failures by kind, time;
exits 1 when any case failed, 2 on bad usage.

Usage: campaign.py DRAINSIM_BINARY REPO_ROOT [--cases N] [--seed S] [--jobs J] [--out DIR]
                   [--realtime-every K] [--realtime-max-s S] [--time-scale T] [--only CASE]
                   [--timeout S] [--inject-fault FAULT]
Needs only the standard library and python3-jsonschema (Debian 12).
"""

import argparse
import concurrent.futures
import json
import os
import pathlib
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import check_results  # noqa: E402  (the schema and the rules of a results file)

# Down to shape 0.5 (an infinite mean) and fleets of 0 slots under load: the overload
# warning leaves their unbounded figures out (tests/reliability/campaign-*.json).
PARETO_MIN_SHAPE = 0.5
MIN_REPLICAS = 0

KINDS = ("valid", "run", "crash", "hang", "audit", "refused", "schema", "rerun", "realtime")


# ---- the generator -------------------------------------------------------------------

def dur(us):
    """A duration string for a whole number of microseconds."""
    if us == 0:
        return "0s"
    if us % 1_000_000 == 0:
        return f"{us // 1_000_000}s"
    if us % 1000 == 0:
        return f"{us // 1000}ms"
    return f"{us}us"


def some_duration(r, lo_s, hi_s, zero=0.0):
    """A duration in [lo_s, hi_s] seconds, in ms steps; "0s" with probability `zero`."""
    if zero and r.random() < zero:
        return 0
    return r.randint(int(lo_s * 1000), int(hi_s * 1000)) * 1000


def distribution(r, stress):
    """A job_duration (or fetch_latency) object of any kind, short jobs."""
    kind = r.choice(["constant", "uniform", "exponential", "lognormal", "pareto", "empirical",
                     "empirical_histogram", "sequence"])
    if kind == "constant":
        return {"kind": "constant", "value": dur(some_duration(r, 0, 20, 0.3 if stress else 0.05))}
    if kind == "uniform":
        lo = some_duration(r, 0, 5, 0.2)
        return {"kind": "uniform", "min": dur(lo), "max": dur(lo + some_duration(r, 0, 15, 0.1))}
    if kind == "exponential":
        return {"kind": "exponential", "mean": dur(some_duration(r, 0.01, 10))}
    if kind == "lognormal":
        median = some_duration(r, 0.01, 5)
        return {"kind": "lognormal", "median": dur(median),
                "p99": dur(median + some_duration(r, 0.001, 30))}
    if kind == "pareto":
        return {"kind": "pareto", "scale": dur(some_duration(r, 0.01, 3)),
                "shape": round(r.uniform(PARETO_MIN_SHAPE, 4), 3)}
    if kind == "empirical":
        return {"kind": "empirical",
                "values": [dur(some_duration(r, 0, 20, 0.2)) for _ in range(r.randint(1, 5))]}
    if kind == "empirical_histogram":
        le, buckets = 0, []
        for _ in range(r.randint(1, 4)):
            le += some_duration(r, 0.001, 10)
            buckets.append({"le": dur(le), "weight": round(r.uniform(0.1, 5), 3)})
        return {"kind": "empirical", "histogram": buckets}
    return {"kind": "sequence",
            "values": [dur(some_duration(r, 0, 15, 0.2)) for _ in range(r.randint(1, 6))]}


def arrival(r, duration_us, stress):
    kind = r.choice(["poisson", "constant", "burst", "list"] + (["list", "burst"] if stress else []))
    duration_s = duration_us / 1e6
    last = duration_us - 1000  # arrivals are due before `duration`
    if kind in ("poisson", "constant"):
        # At most ~200 jobs.
        rate = round(r.uniform(0.05, max(0.06, min(20.0, 200 / duration_s))), 3)
        return {"kind": kind, "rate_per_s": rate}
    if kind == "burst":
        a = {"kind": "burst", "count": r.randint(1, 200)}
        if r.random() < 0.7:
            a["at"] = dur(r.choice([0, last, r.randint(0, last // 1000) * 1000]))
        return a
    n = r.randint(0, 60)
    if stress and r.random() < 0.5:
        at = r.randint(0, last // 1000) * 1000
        times = [at] * n  # bunched: every job at one instant
    else:
        times = sorted(r.randint(0, last // 1000) * 1000 for _ in range(n))
    return {"kind": "list", "at": [dur(t) for t in times]}


def retry(r):
    out = {}
    if r.random() < 0.5:
        out["max_attempts"] = r.randint(1, 5)
    if r.random() < 0.3:
        out["initial_interval"] = dur(some_duration(r, 0, 3, 0.3))
    if r.random() < 0.3:
        out["backoff_coefficient"] = round(r.uniform(1, 3), 2)
    if r.random() < 0.3:
        out["max_interval"] = dur(some_duration(r, 0, 60, 0.2))
    if r.random() < 0.3:
        out["jitter"] = r.random() < 0.5
    return out


def scenario(r, case, profiles, child_profiles):
    stress = r.random() < 0.2
    duration_us = some_duration(r, 0.001, 90)
    s = {"name": f"campaign-{case}", "seed": r.randint(0, 2**32), "duration": dur(duration_us),
         "settle": dur(r.choice([0, 60, 600, 1800]) * 1_000_000)}
    w = {"arrival": arrival(r, duration_us, stress), "job_duration": distribution(r, stress)}
    if r.random() < 0.3:
        w["failure_rate"] = round(r.random(), 3)
    if r.random() < 0.2:
        w["checkpointing"] = True
        w["checkpoint_interval"] = dur(some_duration(r, 0.01, 10))
    if r.random() < 0.2:
        w["cancel"] = {"cooperative_fraction": round(r.random(), 2),
                       "latency": dur(some_duration(r, 0, 2, 0.3))}
    if r.random() < 0.2:
        w["classes"] = []
        for i in range(r.randint(1, 3)):
            c = {"name": f"c{i}", "weight": round(r.uniform(0.1, 5), 2)}
            if r.random() < 0.5:
                c["job_duration"] = distribution(r, stress)
            if r.random() < 0.3:
                c["failure_rate"] = round(r.random(), 2)
            if r.random() < 0.4:
                c["retry"] = retry(r)
            if r.random() < 0.2:
                c["serial"] = True
            elif r.random() < 0.2:
                c["singleton"] = True
            w["classes"].append(c)
    s["workload"] = w
    if r.random() < 0.5:
        b = {}
        if r.random() < 0.3:
            b["visibility_timeout"] = dur(some_duration(r, 1, 600))
        if r.random() < 0.3:
            b["heartbeat_timeout"] = dur(some_duration(r, 1, 60))
        if r.random() < 0.5:
            b["retry"] = retry(r)
        s["backend"] = b
    profile = r.choice(sorted(profiles))
    worker = {"profile": profile, "concurrency": r.randint(1, 8)}
    options = {}
    for o in profiles[profile]:  # each option of the profile, of its default's type
        if r.random() < 0.5:
            continue
        default = o["default"]
        if isinstance(default, bool):
            options[o["name"]] = r.random() < 0.5
        elif isinstance(default, int):
            options[o["name"]] = r.randint(0, 6)
        elif isinstance(default, str):
            options[o["name"]] = dur(some_duration(r, 0.001, 600))
    if options:
        worker["options"] = options
    if r.random() < 0.6:
        worker["grace_period"] = dur(some_duration(r, 0, 40, 0.15))
    if r.random() < 0.3:
        worker["heartbeat_interval"] = dur(some_duration(r, 0.05, 10))
    if r.random() < 0.3:
        worker["poll_interval"] = dur(some_duration(r, 0.01, 5))
    if r.random() < 0.2:
        worker["fetch_latency"] = distribution(r, False)
    s["worker"] = worker
    kind = r.choice(["kubernetes", "kubernetes", "docker"])
    replicas = r.randint(MIN_REPLICAS, 5)
    nodes = r.randint(1, 3)
    p = {"kind": kind, "replicas": replicas, "nodes": nodes}
    zero = 0.5 if stress else 0.1
    if r.random() < 0.6:
        p["pod_start_delay"] = dur(some_duration(r, 0, 15, zero))
    if r.random() < 0.6:
        p["restart_delay"] = dur(some_duration(r, 0, 15, zero))
    if kind == "kubernetes":
        if r.random() < 0.6:
            p["termination_grace_period"] = dur(some_duration(r, 0, 45, 0.1))
        pre = r.choice(["none", "sleep", "quiet_then_sleep", "quiet_then_wait", None])
        if pre in ("sleep", "quiet_then_sleep"):
            p["pre_stop"] = {"kind": pre, "duration": dur(some_duration(r, 0, 20, 0.2))}
        elif pre == "quiet_then_wait":
            p["pre_stop"] = {"kind": pre}
            if r.random() < 0.5:
                p["pre_stop"]["poll"] = dur(some_duration(r, 0.1, 10))
            if r.random() < 0.5:
                p["pre_stop"]["timeout"] = dur(some_duration(r, 0.5, 120))
        elif pre == "none":
            p["pre_stop"] = {"kind": "none"}
    elif r.random() < 0.6:
        p["stop_grace_period"] = dur(some_duration(r, 0, 30, 0.1))
    shell = r.random()
    if shell < 0.15:
        p["pid1_shell"] = True
    elif shell < 0.35:
        p["init"] = True
    s["platform"] = p
    # Events within the arrivals' window and a little after (at most duration + settle).
    horizon = duration_us + min(int(s["settle"][:-1]) * 1_000_000, 60_000_000)
    bunched_at = r.randint(0, horizon // 1000) * 1000
    pods = max(1, replicas * 3)
    kinds = ["rolling_restart", "oom_kill", "scale_down", "scale_up", "signal", "directive",
             "delete_pod"] + (["node_drain"] if kind == "kubernetes" else []) + \
        (["oom_kill_child"] if profile in child_profiles else [])
    events = []
    for _ in range(r.choice([0, 1, 1, 2, 3, 5, 8] if not stress else [4, 8, 12])):
        at = bunched_at if stress and r.random() < 0.6 else r.randint(0, horizon // 1000) * 1000
        k = r.choice(kinds)
        e = {"at": dur(at), "kind": k}
        pod = f"pod-{r.randrange(pods)}"
        if k == "rolling_restart":
            surge = r.choice([0, 1, 2, "0%", "25%", "100%"])
            unavailable = r.choice([0, 1, "25%", "50%", "100%"])
            if surge in (0, "0%") and unavailable in (0, "0%"):
                unavailable = 1
            if r.random() < 0.7:
                e["max_surge"], e["max_unavailable"] = surge, unavailable
        elif k == "oom_kill":
            if r.random() < 0.5:
                e["pod"] = pod
            else:
                e["count"] = r.randint(1, 3)
        elif k == "scale_down":
            e["replicas"] = r.randint(0, replicas + 1)
        elif k == "scale_up":
            e["replicas"] = r.randint(1, replicas + 3)
        elif k == "signal":
            e["pod"] = pod
            e["signal"] = r.choice(["SIGTERM", "SIGINT", "SIGTSTP", "SIGCONT", "SIGKILL", "SIGQUIT",
                                    "TERM", "INT", "TSTP", "CONT", "KILL", "QUIT"])
        elif k == "directive":
            e["pod"] = pod
            e["state"] = r.choice(["quiet", "terminate"])
        elif k in ("delete_pod", "oom_kill_child"):
            e["pod"] = pod
        elif k == "node_drain":
            e["node"] = r.randrange(nodes)
        events.append(e)
    if events or r.random() < 0.3:
        s["events"] = events
    return s


# ---- the checker ---------------------------------------------------------------------

class Failure(Exception):
    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


def run(cmd, timeout):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise Failure("hang", f"no end after {timeout} s: {' '.join(cmd)}") from e


def tail(p):
    lines = (p.stderr.strip() or p.stdout.strip() or "(no output)").splitlines()
    return "\n    ".join(lines[-12:])


def run_checked(binary, path, out, timeout, validator, extra=()):
    cmd = [str(binary), "run", str(path), "--out", str(out)] + list(extra)
    p = run(cmd, timeout)
    if p.returncode < 0 or p.returncode >= 128:
        raise Failure("crash", f"{' '.join(cmd)}: exit {p.returncode}:\n    {tail(p)}")
    if p.returncode == 3:
        raise Failure("audit", f"{' '.join(cmd)}: the audit failed:\n    {tail(p)}")
    if p.returncode == 2:
        raise Failure("refused", f"{' '.join(cmd)}: refused what validate accepted:\n    {tail(p)}")
    if p.returncode != 0:
        raise Failure("run", f"{' '.join(cmd)}: exit {p.returncode}:\n    {tail(p)}")
    raw = out.read_bytes()
    try:
        doc = check_results.parse(raw)
        check_results.check_schema(validator(), doc)
        check_results.check_semantics(raw, doc)
    except (check_results.CheckError, KeyError, TypeError) as e:
        raise Failure("schema", f"{' '.join(cmd)}: {type(e).__name__}: {e}") from e
    return raw, doc


def check_case(args, validator, case, profiles, child_profiles, work):
    r = random.Random(f"{args.seed}:{case}")
    s = scenario(r, case, profiles, child_profiles)
    realtime = args.realtime_every > 0 and case % args.realtime_every == 0
    d = work / f"case-{case}"
    d.mkdir()
    path = d / "scenario.json"
    path.write_text(json.dumps(s, indent=2) + "\n")
    try:
        p = run([str(args.binary), "validate", str(path)], args.timeout)
        if p.returncode != 0:
            raise Failure("valid", f"validate refused the generated scenario:\n    {tail(p)}")
        timeline = ["--timeline"] if case % 3 == 0 else []
        if args.inject_fault:
            timeline += ["--inject-fault", args.inject_fault]
        raw, doc = run_checked(args.binary, path, d / "a.json", args.timeout, validator, timeline)
        again, _ = run_checked(args.binary, path, d / "b.json", args.timeout, validator, timeline)
        if again != raw:
            raise Failure("rerun", "a second run of the same scenario wrote a different file")
        ran_realtime = False
        if realtime and doc["run"]["ended_at_s"] <= args.realtime_max_s:
            ran_realtime = True
            _, rt = run_checked(args.binary, path, d / "rt.json", args.timeout, validator,
                                ["--engine", "realtime", "--time-scale", str(args.time_scale)])
            arrivals = [x["summary"]["jobs_enqueued"] + x["summary"].get("pushes_refused", 0)
                        for x in (doc, rt)]
            if arrivals[0] != arrivals[1]:
                raise Failure("realtime", f"arrivals (jobs_enqueued + pushes_refused): virtual "
                                          f"{arrivals[0]}, realtime {arrivals[1]}")
        return case, None, None, ran_realtime, doc["summary"]["jobs_enqueued"]
    except Failure as f:
        return case, f.kind, str(f), realtime, 0
    except Exception as e:  # a checker bug: report it as a failure of the case, keep going
        return case, "run", f"checker: {type(e).__name__}: {e}", realtime, 0
    finally:
        for name in ("a.json", "b.json", "rt.json"):
            (d / name).unlink(missing_ok=True)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary", type=pathlib.Path)
    ap.add_argument("root", type=pathlib.Path)
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path("campaign-out"))
    ap.add_argument("--realtime-every", type=int, default=10,
                    help="run every K-th case on the realtime engine too (0: never)")
    ap.add_argument("--realtime-max-s", type=float, default=120,
                    help="only cases whose virtual run ends by this simulated time")
    ap.add_argument("--time-scale", type=float, default=100)
    ap.add_argument("--only", type=int, help="run this one case")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per drainsim run")
    ap.add_argument("--inject-fault", help="pass this --inject-fault to the virtual runs "
                                           "(proof that the checker finds a broken ledger)")
    args = ap.parse_args(argv[1:])
    if not args.binary.is_file():
        print(f"error: {args.binary}: no such drainsim binary", file=sys.stderr)
        return 2
    args.binary = args.binary.resolve()
    try:
        check_results.make_validator(args.root / "docs")
    except check_results.CheckError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    # One validator per thread: jsonschema's RefResolver is not thread-safe.
    local = threading.local()

    def validator():
        if not hasattr(local, "v"):
            local.v = check_results.make_validator(args.root / "docs")
        return local.v
    listing = json.loads(subprocess.run([str(args.binary), "profiles", "--format", "json"],
                                        capture_output=True, text=True, check=True).stdout)
    profiles = {p["name"]: p.get("options", []) for p in listing}
    child_profiles = {p["name"] for p in listing
                      if p.get("shutdown", {}).get("child_lost", "none") != "none"}
    cases = [args.only] if args.only is not None else list(range(args.cases))
    started = time.monotonic()
    failures = {k: [] for k in KINDS}
    jobs = realtime_runs = 0
    shutil.rmtree(args.out / "failures", ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix="drainsim-campaign-") as tmp:
        work = pathlib.Path(tmp)
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = pool.map(lambda c: check_case(args, validator, c, profiles, child_profiles,
                                                    work), cases)
            for done, (case, kind, message, ran_realtime, enqueued) in enumerate(results, 1):
                if done % 1000 == 0 and done < len(cases):
                    print(f"... {done} cases, {sum(len(v) for v in failures.values())} failed, "
                          f"{time.monotonic() - started:.0f} s", flush=True)
                realtime_runs += ran_realtime
                jobs += enqueued
                if kind is None:
                    continue
                failures[kind].append(case)
                keep = args.out / "failures" / kind
                keep.mkdir(parents=True, exist_ok=True)
                shutil.copy(work / f"case-{case}" / "scenario.json", keep / f"case-{case}.json")
                (keep / f"case-{case}.txt").write_text(
                    f"{message}\n\nagain: scripts/campaign.py {args.binary} {args.root} "
                    f"--seed {args.seed} --only {case}\n")
                print(f"FAIL case {case} ({kind}): " + " ".join(message.split())[:300], flush=True)
    failed = sum(len(v) for v in failures.values())
    elapsed = time.monotonic() - started
    print(f"campaign seed {args.seed}: {len(cases)} cases ({realtime_runs} also on the realtime "
          f"engine at --time-scale {args.time_scale:g}), {jobs} jobs, {failed} failed, "
          f"{elapsed:.0f} s")
    for kind in KINDS:
        if failures[kind]:
            shown = ", ".join(str(c) for c in failures[kind][:10])
            more = f" (and {len(failures[kind]) - 10} more)" if len(failures[kind]) > 10 else ""
            print(f"  {kind}: {len(failures[kind])}: cases {shown}{more}")
    if failed:
        print(f"failing scenarios kept in {args.out / 'failures'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
