#!/usr/bin/env python3
"""The golden-output test: every output drainsim ships, recorded and compared.

Runs the drainsim binary over a fixed set of cases (every shipped virtual-time scenario's
results and timeline and run summary, `profiles`, `conformance` for every profile,
`compare`, a small `sweep` and its sharded + merged form, `tune`, `export`, `validate`,
and the messages and exit codes of broken scenarios and bad options) and compares each
output with scripts/golden.txt: the SHA-256 of a large output, the text itself of an
error message. A change that alters an output updates the file on purpose, with the
reason in the commit message:

  scripts/golden.py BUILD/sim/drainsim SOURCE_DIR            # check (the ctest golden.outputs)
  scripts/golden.py BUILD/sim/drainsim SOURCE_DIR --update   # rewrite scripts/golden.txt

Every case runs in a fresh temporary directory that links `scenarios/` and `adapters/`, so the paths in
messages are the same wherever the checkout is. The wall-clock figure of `run`'s summary
a sweep's elapsed time and the program's path in help texts are masked;
nothing else is.
"""

import argparse
import copy
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden.txt")

# The scenarios run in virtual time (realtime-stress is a real-time scenario).
REAL_TIME_SCENARIOS = {"realtime-stress"}

PROFILES = [
    "ojs", "ojs-go-sdk", "ojs-js-sdk", "sidekiq", "sidekiq-pro", "river", "bullmq", "celery",
    "oban", "faktory", "temporal", "graphile-worker", "pg-boss", "ductwork", "naive",
]


def sha(data):
    return hashlib.sha256(data).hexdigest()


def literal(data):
    """An error message as one line: the text with its newlines escaped."""
    return data.decode("utf-8", "replace").rstrip("\n").replace("\\", "\\\\").replace("\n", "\\n")


class Cases:
    def __init__(self, drainsim, source, work):
        self.drainsim = drainsim
        self.source = source
        self.work = work
        self.lines = []

    def run(self, name, args, files=(), stdout="hash", stderr="literal", mask_wall=False):
        """Runs `drainsim ARGS` in the work directory and records its exit code, its stdout
        and stderr (hashed, literal or ignored) and the files it wrote (hashed)."""
        for f in files:
            path = os.path.join(self.work, f)
            if os.path.exists(path):
                os.remove(path)
        p = subprocess.run([self.drainsim] + args, cwd=self.work, capture_output=True,
                           timeout=600, env=dict(os.environ, LC_ALL="C"))
        # Help texts name the program as it was called.
        out = p.stdout.replace(self.drainsim.encode(), b"drainsim")
        err = p.stderr.replace(self.drainsim.encode(), b"drainsim")
        if mask_wall:
            out = re.sub(rb"\([0-9.hms]+ wall\)", b"(WALL)", out)
        # A progress report's elapsed time and ETA (sweep) depend on the machine.
        err = re.sub(rb"\d+:\d\d elapsed", b"M:SS elapsed", err)
        err = re.sub(rb"ETA \d+:\d\d", b"ETA M:SS", err)
        self.lines.append(f"{name} exit {p.returncode}")
        for label, data, how in (("stdout", out, stdout), ("stderr", err, stderr)):
            if how == "ignore" or (not data and how != "hash"):
                continue
            if how == "literal":
                self.lines.append(f"{name} {label}: {literal(data)}")
            else:
                self.lines.append(f"{name} {label} sha256 {sha(data)}")
        for f in files:
            path = os.path.join(self.work, f)
            digest = sha(open(path, "rb").read()) if os.path.exists(path) else "missing"
            self.lines.append(f"{name} file {f} sha256 {digest}")
        return p

    def write(self, relpath, text):
        path = os.path.join(self.work, relpath)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return relpath


def broken_scenarios(base):
    """Hand-broken scenario files (name -> text), each with one mistake a user makes."""
    def edit(fn):
        s = copy.deepcopy(base)
        fn(s)
        return json.dumps(s, indent=2)

    out = {}
    out["unknown-field"] = edit(lambda s: s["worker"].update({"grace_perod": "25s"}))
    out["bad-duration"] = edit(lambda s: s["worker"].update({"grace_period": -3}))
    out["bad-duration-text"] = edit(lambda s: s["worker"].update({"grace_period": "25 parsecs"}))
    out["wrong-platform-grace"] = edit(lambda s: s["platform"].update({"stop_grace_period": "10s"}))
    out["unknown-profile"] = edit(lambda s: s["worker"].update({"profile": "sidekik"}))
    out["unknown-event"] = edit(lambda s: s["events"].append({"at": "1m", "kind": "oom_kil"}))
    out["bad-type"] = edit(lambda s: s["platform"].update({"replicas": "four"}))
    out["negative-count"] = edit(lambda s: s["worker"].update({"concurrency": -1}))
    out["unknown-option"] = edit(lambda s: s["worker"].update({"options": {"acks_lte": True}}))
    out["bad-distribution"] = edit(
        lambda s: s["workload"].update({"job_duration": {"kind": "lognormal", "median": "2s"}}))
    out["missing-workload"] = edit(lambda s: s.pop("workload"))
    out["not-an-object"] = "[1, 2, 3]\n"
    out["syntax-error"] = '{"name": "x", "duration": "1m",\n  "worker": {"concurrency": 4,}\n}\n'
    out["empty"] = ""
    return out


def cases(c, source):
    scenarios = sorted(f[:-5] for f in os.listdir(os.path.join(source, "scenarios"))
                       if f.endswith(".json"))
    for n in scenarios:
        if n in REAL_TIME_SCENARIOS or n == "bench-reference":
            continue
        c.run(f"run/{n}", ["run", f"scenarios/{n}.json", "--timeline", "--out", f"{n}.json"],
              files=[f"{n}.json"], mask_wall=True)
    c.run("run/oom-kill-seed7-set", ["run", "scenarios/oom-kill.json", "--seed", "7", "--set",
                                     "worker.grace_period=10s", "--out", "oom7.json"],
          files=["oom7.json"], mask_wall=True)
    c.run("run/oom-kill-sidekiq", ["run", "scenarios/oom-kill.json", "--set",
                                   "worker.profile=sidekiq", "--out", "oom-sidekiq.json"],
          files=["oom-sidekiq.json"], mask_wall=True)
    c.run("run/bench-reference", ["run", "scenarios/bench-reference.json", "--seed", "1",
                                  "--out", "bench-reference.json"],
          files=["bench-reference.json"], mask_wall=True)
    c.run("run/audit-fault", ["run", "scenarios/rolling-restart.json", "--inject-fault",
                              "drop-acked-job=3", "--out", "fault.json"],
          files=["fault.json"], mask_wall=True)

    c.run("help", ["--help"])
    for sub in ("run", "real", "fidelity", "compare", "sweep", "merge", "tune", "import", "validate",
                "profiles", "conformance", "export"):
        c.run(f"help/{sub}", [sub, "--help"])
    c.run("help/import-k8s", ["import", "k8s", "--help"])
    c.run("version", ["--version"])
    c.run("validate/shipped", ["validate"] + [f"scenarios/{n}.json" for n in scenarios])
    c.run("profiles/table", ["profiles"])
    c.run("profiles/json", ["profiles", "--format", "json"])
    for p in ("celery", "sidekiq", "ojs"):
        c.run(f"profiles/{p}", ["profiles", p])
    for p in PROFILES:
        c.run(f"conformance/{p}", ["conformance", "--profile", p, "--format", "json"])
    c.run("conformance/naive-text", ["conformance", "--profile", "naive"])
    c.run("conformance/ojs-text", ["conformance", "--profile", "ojs"])

    for fmt in ("json", "table", "md", "csv"):
        c.run(f"compare/oom-kill-{fmt}",
              ["compare", "scenarios/oom-kill.json", "--seeds", "3", "--format", fmt])
    c.run("compare/some-profiles", ["compare", "scenarios/rolling-restart.json", "--profiles",
                                    "sidekiq,river,celery", "--seeds", "2", "--format", "csv"])

    grid = ["--grid", "worker.grace_period=5s..30s/5s", "--seeds", "2"]
    c.run("sweep/oom-kill", ["sweep", "scenarios/oom-kill.json"] + grid +
          ["--threads", "1", "--out", "sweep.json", "--csv", "sweep.csv"],
          files=["sweep.json", "sweep.csv"])
    c.run("sweep/oom-kill-2-threads", ["sweep", "scenarios/oom-kill.json"] + grid +
          ["--threads", "2", "--out", "sweep2.json"], files=["sweep2.json"])
    c.run("sweep/two-axes", ["sweep", "scenarios/rolling-restart.json", "--grid",
                             "worker.grace_period=5s,20s", "--grid",
                             "platform.termination_grace_period=10s,40s", "--seeds", "2",
                             "--threads", "1"])
    c.run("sweep/two-axes-table", ["sweep", "scenarios/rolling-restart.json", "--grid",
                                   "worker.grace_period=5s,20s", "--grid",
                                   "platform.termination_grace_period=10s,40s", "--seeds", "2",
                                   "--threads", "1", "--format", "table"])
    for i in (0, 1):
        c.run(f"sweep/shard-{i}", ["sweep", "scenarios/oom-kill.json"] + grid +
              ["--threads", "1", "--shard", f"{i}/2", "--out", f"part-{i}.json"],
              files=[f"part-{i}.json"])
    c.run("merge/oom-kill", ["merge", "part-1.json", "part-0.json", "--out", "merged.json",
                             "--csv", "merged.csv"], files=["merged.json", "merged.csv"])
    c.run("merge/oom-kill-md", ["merge", "part-0.json", "part-1.json", "--format", "md"])

    tune = ["tune", "scenarios/long-jobs-short-grace.json", "--grace-range", "0s..60s/10s",
            "--seeds", "2", "--threads", "1"]
    c.run("tune/json", tune + ["--format", "json"])
    c.run("tune/text", tune)
    c.run("tune/pre-stops", tune + ["--pre-stop", "0s,5s", "--max-interrupted", "1%"])
    c.run("tune/recommends", ["tune", "scenarios/rolling-restart.json", "--grace-range",
                              "0s..60s/10s", "--seeds", "2", "--threads", "1",
                              "--max-interrupted", "1%"])

    c.run("export/rolling-restart", ["export", "--format", "chrome-trace", "rolling-restart.json"])
    c.run("export/oom-kill", ["export", "--format", "chrome-trace", "oom-kill.json",
                              "--out", "oom.trace.json"], files=["oom.trace.json"])

    c.run("import/sidekiq-deployment", ["import", "k8s", "examples/k8s/sidekiq-deployment.yaml",
                                        "-o", "imported.json"], files=["imported.json"])
    c.run("import/stdout", ["import", "k8s", "examples/k8s/sidekiq-deployment.yaml"])
    # The fixtures shaped like real charts (docs/import.md, Examples).
    c.run("import/gitlab-sidekiq-hpa", ["import", "k8s", "examples/k8s/gitlab-sidekiq.yaml",
                                        "--profile", "sidekiq", "--hpa"])
    c.run("import/airflow-celery-worker", ["import", "k8s",
                                           "examples/k8s/airflow-celery-worker.yaml",
                                           "--container", "worker"])
    c.run("import/bullmq-worker", ["import", "k8s", "examples/k8s/bullmq-worker.yaml",
                                   "--profile", "bullmq"])
    c.run("error/import-hpa-none", ["import", "k8s", "examples/k8s/bullmq-worker.yaml",
                                    "--profile", "bullmq", "--hpa"])
    c.run("run/imported", ["run", "imported.json", "--out", "imported-run.json"],
          files=["imported-run.json"], mask_wall=True)
    c.run("import/durations", ["import", "k8s", "examples/k8s/sidekiq-deployment.yaml",
                               "--durations", "examples/k8s/sidekiq-durations.prom",
                               "--metric", "sidekiq_job_runtime_seconds",
                               "--match", 'queue="default"', "--window", "1h",
                               "-o", "imported-durations.json"],
          files=["imported-durations.json"])
    c.run("run/imported-durations", ["run", "imported-durations.json", "--out",
                                     "imported-durations-run.json"],
          files=["imported-durations-run.json"], mask_wall=True)
    # The README's: the example's durations as given, then tune's answer as a patch.
    c.run("import/durations-as-given", ["import", "k8s", "examples/k8s/sidekiq-deployment.yaml",
                                         "--durations", "examples/k8s/sidekiq-durations.prom",
                                         "-o", "ours.json"], files=["ours.json"])
    c.run("tune/patch", ["tune", "ours.json", "--grace-range", "0s..10m/5s", "--seeds", "4",
                         "--threads", "1", "--patch", "fix.yaml"], files=["fix.yaml"])
    # A smaller fleet (its --set goes to tune's search too): a tenth of the CPU, as this case
    # also runs under ASan in CI.
    c.run("run/suggest", ["run", "ours.json", "--set", "platform.replicas=3", "--set",
                          "workload.arrival.rate_per_s=10", "--out", "suggested-run.json",
                          "--suggest", "suggested.yaml"],
          files=["suggested-run.json", "suggested.yaml"], mask_wall=True)
    c.run("run/suggest-nothing", ["run", "imported.json", "--out", "unsuggested-run.json",
                                  "--suggest", "unsuggested.yaml"], mask_wall=True)

    # Bad input: the message (file, JSON path, what was expected) and exit 2.
    base = json.load(open(os.path.join(source, "scenarios", "oom-kill.json")))
    for name, text in broken_scenarios(base).items():
        path = c.write(f"broken/{name}.json", text)
        c.run(f"error/validate/{name}", ["validate", path])
    c.run("error/missing-file", ["validate", "broken/no-such-file.json"])
    bad_set = ["worker.grace_perod=10s", "worker.grace_period=soon", "events.7.at=1m",
               "platform.replicas=-2", "workload.arrival.kind=steady"]
    for i, s in enumerate(bad_set):
        c.run(f"error/set-{i}", ["validate", "scenarios/oom-kill.json", "--set", s])
    c.run("error/run-bad-scenario", ["run", "broken/bad-duration.json"])
    c.run("error/run-inject-fault", ["run", "scenarios/oom-kill.json", "--inject-fault", "x"])
    c.run("error/run-worker-cmd", ["run", "scenarios/oom-kill.json", "--worker-cmd", "true"])
    c.run("error/run-engine", ["run", "scenarios/oom-kill.json", "--engine", "quantum"])
    c.run("error/real-unknown-system", ["real", "scenarios/oom-kill.json", "--system", "resque",
                                        "--adapters", "adapters"])
    c.run("error/real-not-honoured", ["real", "scenarios/oom-kill.json", "--system", "sidekiq",
                                      "--adapters", "adapters"])
    c.run("error/real-no-system", ["run", "scenarios/oom-kill.json", "--engine", "real"])
    c.run("error/profiles-unknown", ["profiles", "sidekik"])
    c.run("error/conformance-unknown", ["conformance", "--profile", "sidekik"])
    c.run("error/compare-unknown", ["compare", "scenarios/oom-kill.json", "--profiles",
                                    "sidekiq,sidekik"])
    c.run("error/compare-format", ["compare", "scenarios/oom-kill.json", "--format", "xml"])
    c.run("error/sweep-grid", ["sweep", "scenarios/oom-kill.json", "--grid",
                               "worker.grace_period=30s..5s/5s"])
    c.run("error/sweep-path", ["sweep", "scenarios/oom-kill.json", "--grid",
                               "worker.nonsense=1,2"])
    c.run("error/sweep-shard", ["sweep", "scenarios/oom-kill.json", "--grid",
                                "worker.grace_period=5s,10s", "--shard", "2/2"])
    c.run("error/sweep-shard-csv", ["sweep", "scenarios/oom-kill.json", "--grid",
                                    "worker.grace_period=5s,10s", "--shard", "0/2", "--csv",
                                    "x.csv"])
    c.run("error/merge-one-part", ["merge", "part-0.json"])
    c.run("error/merge-missing", ["merge", "part-9.json"])
    c.run("error/merge-not-a-part", ["merge", "sweep.json"])
    c.run("error/tune-range", ["tune", "scenarios/oom-kill.json", "--grace-range", "5s"])
    c.run("error/tune-target", ["tune", "scenarios/oom-kill.json", "--max-job-loss", "-1"])
    c.run("error/tune-interrupted", ["tune", "scenarios/oom-kill.json", "--max-interrupted",
                                     "150%"])
    c.run("error/tune-patch-no-origin", ["tune", "scenarios/oom-kill.json", "--patch",
                                         "fix.yaml"])
    c.run("error/export-no-timeline", ["export", "--format", "chrome-trace", "oom7.json"])
    # drainsim import k8s: the file and the YAML path, exit 2.
    c.write("broken/service.yaml", "kind: Service\nmetadata: {name: web}\n")
    c.write("broken/not-yaml.yaml", "kind: [Deployment\n")
    c.write("broken/two-containers.yaml",
            "kind: Deployment\nmetadata: {name: w}\nspec:\n  template:\n    spec:\n"
            "      containers:\n        - {name: app, args: [sidekiq]}\n"
            "        - {name: statsd, image: statsd}\n")
    for name in ("service", "not-yaml", "two-containers"):
        c.run(f"error/import-{name}", ["import", "k8s", f"broken/{name}.yaml"])
    c.run("error/import-container", ["import", "k8s", "broken/two-containers.yaml",
                                     "--container", "web"])
    c.run("error/import-missing-file", ["import", "k8s", "broken/no-such-file.yaml"])
    c.run("error/import-no-source", ["import"])
    # --durations: the file, the line or JSON path, what was expected; exit 2.
    c.write("broken/durations.prom",
            "# TYPE t histogram\nt_bucket{le=\"1\"} 5\nt_bucket{le=\"2.5\"} 7\n"
            "t_bucket{le=\"5\"} 6\nt_bucket{le=\"+Inf\"} 7\n")
    c.write("broken/durations.json", '[0.5, 1.2, "fast"]\n')
    c.write("broken/durations.csv", "elapsed\n1.5\n-2\n")
    c.write("broken/list.csv", "elapsed\n1.5\n3\n")
    for name in ("prom", "json", "csv"):
        c.run(f"error/import-durations-{name}", ["import", "k8s",
                                                 "examples/k8s/sidekiq-deployment.yaml",
                                                 "--durations", f"broken/durations.{name}"])
    c.run("error/import-durations-series", ["import", "k8s",
                                            "examples/k8s/sidekiq-deployment.yaml",
                                            "--durations", "examples/k8s/sidekiq-durations.prom",
                                            "--metric", "sidekiq_job_runtime_seconds"])
    c.run("error/import-durations-window", ["import", "k8s",
                                            "examples/k8s/sidekiq-deployment.yaml",
                                            "--durations", "broken/list.csv",
                                            "--window", "1h"])
    c.run("error/import-window-value", ["import", "k8s", "examples/k8s/sidekiq-deployment.yaml",
                                        "--window", "soon"])
    c.run("error/export-not-json", ["export", "--format", "chrome-trace",
                                    "broken/syntax-error.json"])
    c.run("error/export-missing", ["export", "--format", "chrome-trace", "nothing.json"])
    c.run("error/out-unwritable", ["run", "scenarios/oom-kill.json", "--out",
                                   "no-such-dir/x.json"])
    c.run("error/no-subcommand", [], stdout="ignore", stderr="hash")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("drainsim")
    ap.add_argument("source")
    ap.add_argument("--update", action="store_true", help="rewrite scripts/golden.txt")
    args = ap.parse_args()
    drainsim = os.path.abspath(args.drainsim)
    source = os.path.abspath(args.source)
    with tempfile.TemporaryDirectory(prefix="drainsim-golden-") as work:
        os.symlink(os.path.join(source, "scenarios"), os.path.join(work, "scenarios"))
        os.symlink(os.path.join(source, "adapters"), os.path.join(work, "adapters"))
        os.symlink(os.path.join(source, "examples"), os.path.join(work, "examples"))
        c = Cases(drainsim, source, work)
        cases(c, source)
    got = c.lines
    if args.update:
        with open(GOLDEN, "w") as f:
            f.write("# The golden outputs of drainsim (scripts/golden.py). Rewritten only on\n"
                    "# purpose, with the reason in the commit message.\n")
            f.write("\n".join(got) + "\n")
        print(f"golden: wrote {len(got)} lines to {GOLDEN}")
        return 0
    want = [l for l in open(GOLDEN).read().splitlines() if l and not l.startswith("#")]
    if got == want:
        print(f"golden: {len(got)} outputs unchanged")
        return 0
    import difflib
    sys.stdout.writelines(difflib.unified_diff([l + "\n" for l in want], [l + "\n" for l in got],
                                               "scripts/golden.txt", "now"))
    print("golden: outputs changed. If the change is intended, run scripts/golden.py "
          "build/sim/drainsim . --update and say why in the commit message.")
    return 1


if __name__ == "__main__":
    sys.exit(main())
