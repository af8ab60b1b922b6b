#!/usr/bin/env python3
"""Two drainsim binaries give the same results: the A/B check for a speed-up (issue 19).

Runs every shipped scenario (scenarios/*.json, but the benchmark's hour) and N random
scenarios from the campaign's generator (scripts/campaign.py) through both binaries on the
virtual engine, every third one with --timeline, and compares the files byte for byte.

Usage: same_results.py BEFORE AFTER REPO_ROOT [--cases N] [--seed S] [--jobs J]
Exit 0 when every file is identical; 1 naming the scenarios that differ; 2 on bad usage.
"""
import argparse
import concurrent.futures
import json
import pathlib
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import campaign  # noqa: E402

SKIPPED = {"bench-reference.json", "realtime-stress.json"}


def run(binary, scenario, out, timeline):
    cmd = [str(binary), "run", str(scenario), "--out", str(out)]
    if timeline:
        cmd.append("--timeline")
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    return p.returncode, (p.stderr.strip().splitlines() or [""])[-1]


def compare(before, after, scenario, work, timeline):
    outputs = []
    for name, binary in (("before", before), ("after", after)):
        out = work / f"{scenario.stem}.{name}.json"
        outputs.append((run(binary, scenario, out, timeline), out))
    (code_a, err_a), a = outputs[0]
    (code_b, err_b), b = outputs[1]
    if code_a != code_b:
        return f"exit {code_a} before, {code_b} after ({err_a or err_b})"
    if a.exists() != b.exists() or (a.exists() and a.read_bytes() != b.read_bytes()):
        return "the results files differ"
    return None


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", type=pathlib.Path)
    ap.add_argument("after", type=pathlib.Path)
    ap.add_argument("root", type=pathlib.Path)
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv[1:])
    for b in (args.before, args.after):
        if not b.is_file():
            print(f"error: {b}: no such drainsim binary", file=sys.stderr)
            return 2
    listing = json.loads(subprocess.run([str(args.after), "profiles", "--format", "json"],
                                        capture_output=True, text=True, check=True).stdout)
    profiles = {p["name"]: p.get("options", []) for p in listing}
    child_profiles = {p["name"] for p in listing
                      if p.get("shutdown", {}).get("child_lost", "none") != "none"}
    with tempfile.TemporaryDirectory(prefix="drainsim-same-") as tmp:
        work = pathlib.Path(tmp)
        todo = [(p, i % 3 == 0) for i, p in enumerate(sorted((args.root / "scenarios").glob("*.json")))
                if p.name not in SKIPPED]
        for case in range(args.cases):
            s = campaign.scenario(random.Random(f"{args.seed}:{case}"), case, profiles,
                                  child_profiles)
            path = work / f"case-{case}.json"
            path.write_text(json.dumps(s, indent=2) + "\n")
            todo.append((path, case % 3 == 0))
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            verdicts = list(pool.map(
                lambda t: (t[0].name, compare(args.before, args.after, t[0], work, t[1])), todo))
    differ = [(name, why) for name, why in verdicts if why]
    for name, why in differ:
        print(f"DIFFER {name}: {why}")
    print(f"{len(verdicts) - len(differ)} of {len(verdicts)} scenarios give identical files")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
