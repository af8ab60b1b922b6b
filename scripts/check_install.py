#!/usr/bin/env python3
"""`cmake --install` into a temporary prefix, and the installed drainsim at work there.

  scripts/check_install.py CMAKE BUILD_DIR SOURCE_DIR [--viewer] [--man]   (ctest Install.prefix)

Installs BUILD_DIR into a fresh prefix P and checks that P has the binaries, every shipped
scenario (subfolders kept), the adapters, the docs, the completions and (--man) the man
pages, gzip-compressed roff that `man -l` reads. Then, from an unrelated empty folder, the
installed binaries: `P/bin/drainsim run P/share/drainsim/scenarios/rolling-restart.json
--out FILE` (exit 0, the results file), a process-engine run (the installed
drainsim-worker beside it), `drainsim real` finding P/share/drainsim/adapters, and
--version on every binary (the viewer without a display).
"""

import argparse
import glob
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

FAILURES = []

SMALL = {"name": "small", "duration": "10s", "settle": "1m",
         "workload": {"arrival": {"kind": "burst", "count": 4, "at": "0s"},
                      "job_duration": {"kind": "constant", "value": "20s"}},
         "worker": {"concurrency": 4},
         "platform": {"replicas": 1, "pod_start_delay": "5s"},
         "events": [{"at": "10s", "kind": "rolling_restart", "max_surge": 1,
                     "max_unavailable": 0}]}


def fail(message):
    FAILURES.append(message)
    print("FAIL", message)


def run(args, cwd, env=None, timeout=300):
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=env)


def headless():
    """The environment of a machine without a display."""
    env = dict(os.environ)
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        env.pop(name, None)
    return env


def expected_files(source, viewer, man):
    """The paths under the prefix that the install must create."""
    files = ["bin/drainsim", "bin/drainsim-worker",
             "share/doc/drainsim/README.md", "share/doc/drainsim/docs/scenario.md",
             "share/doc/drainsim/results/README.md", "share/doc/drainsim/examples/ojs_worker.py",
             "share/drainsim/adapters/README.md", "share/drainsim/adapters/sidekiq/system.json",
             "share/bash-completion/completions/drainsim",
             "share/zsh/vendor-completions/_drainsim"]
    scenarios = os.path.join(source, "scenarios")
    for path in glob.glob(os.path.join(scenarios, "**", "*.json"), recursive=True):
        files.append("share/drainsim/scenarios/" + os.path.relpath(path, scenarios))
    if viewer:
        files += ["bin/drainsim-viewer", "share/bash-completion/completions/drainsim-viewer"]
    if man:
        files += ["share/man/man1/drainsim.1.gz", "share/man/man1/drainsim-worker.1.gz"]
        if viewer:
            files.append("share/man/man1/drainsim-viewer.1.gz")
    return files


def configured_prefix(build):
    """The build's CMAKE_INSTALL_PREFIX, which its man pages name their files under."""
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith("CMAKE_INSTALL_PREFIX:"):
                return line.split("=", 1)[1].strip()
    return None


def check_man_page(path, title, sections, prefix=None):
    with open(path, "rb") as f:
        if f.read(2) != b"\x1f\x8b":
            fail(f"{path}: not gzip-compressed")
            return
    text = gzip.open(path, "rt").read()
    if prefix is not None:
        # Every file the page names is under the build's install prefix, none elsewhere.
        for named in re.findall(r"(?<![\w.])(/[\w.\-/]*share/(?:doc/)?drainsim[\w.\-/]*)", text):
            if not named.startswith(prefix + "/"):
                fail(f"{path}: names {named}, not under the install prefix {prefix}")
    if f'.TH {title} "1"' not in text:
        fail(f"{path}: no .TH {title} header: {text[:200]!r}")
    if not shutil.which("man"):
        return
    env = dict(os.environ, MANWIDTH="100", MANPAGER="cat", PAGER="cat", LC_ALL="C.UTF-8")
    p = run(["man", "-l", path], cwd="/", env=env)
    if p.returncode != 0:
        fail(f"man -l {path}: exit {p.returncode}: {p.stderr}")
    for section in sections:
        if section not in p.stdout:
            fail(f"man -l {path}: no {section!r}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmake")
    ap.add_argument("build")
    ap.add_argument("source")
    ap.add_argument("--viewer", action="store_true")
    ap.add_argument("--man", action="store_true")
    a = ap.parse_args()
    a.build, a.source = os.path.abspath(a.build), os.path.abspath(a.source)

    tmp = tempfile.mkdtemp(prefix="drainsim-install-")
    try:
        prefix = os.path.join(tmp, "prefix")
        p = run([a.cmake, "--install", a.build, "--prefix", prefix], cwd=tmp)
        if p.returncode != 0:
            fail(f"cmake --install: exit {p.returncode}\n{p.stdout}{p.stderr}")
            return 1
        for rel in expected_files(a.source, a.viewer, a.man):
            if not os.path.isfile(os.path.join(prefix, rel)):
                fail(f"not installed: {rel}")
        for rel in ("bin/drainsim", "bin/drainsim-worker"):
            if not os.access(os.path.join(prefix, rel), os.X_OK):
                fail(f"not executable: {rel}")
        if os.path.exists(os.path.join(prefix, "share/drainsim/adapters/bullmq/node_modules")):
            fail("installed node_modules")

        # The installed binaries, from a folder that has nothing of the checkout.
        cwd = os.path.join(tmp, "elsewhere")
        os.mkdir(cwd)
        drainsim = os.path.join(prefix, "bin", "drainsim")
        out = os.path.join(tmp, "r.json")
        scenario = os.path.join(prefix, "share/drainsim/scenarios/rolling-restart.json")
        p = run([drainsim, "run", scenario, "--out", out], cwd=cwd)
        if p.returncode != 0:
            fail(f"installed drainsim run: exit {p.returncode}: {p.stderr}")
        else:
            doc = json.load(open(out))
            if doc.get("scenario", {}).get("name") != "rolling-restart" or "summary" not in doc:
                fail(f"{out}: not the rolling restart's results")
            if "audit: ok" not in p.stdout:
                fail(f"installed drainsim run: no audit: ok in {p.stdout}")
        if os.listdir(cwd):
            fail(f"drainsim run --out wrote into the working folder: {os.listdir(cwd)}")

        # The process engine runs the drainsim-worker installed beside drainsim.
        small = os.path.join(tmp, "small.json")
        json.dump(SMALL, open(small, "w"))
        p = run([drainsim, "run", small, "--engine", "process", "--time-scale", "100",
                 "--out", os.path.join(tmp, "p.json")], cwd=cwd)
        if p.returncode != 0 or "enqueued 4  completed 4" not in p.stdout:
            fail(f"installed drainsim run --engine process: exit {p.returncode}: "
                 f"{p.stdout}{p.stderr}")

        # drainsim real looks for the adapters in P/share/drainsim/adapters.
        env = dict(os.environ)
        env.pop("DRAINSIM_ADAPTERS", None)
        p = run([drainsim, "real", small, "--system", "nosuch"], cwd=cwd, env=env)
        adapters = os.path.join(prefix, "share", "drainsim", "adapters")
        if p.returncode != 2 or f'no real system "nosuch" in {adapters}:' not in p.stderr:
            fail(f"installed drainsim real: not the installed adapters: {p.stderr}")

        version = run([drainsim, "--version"], cwd=cwd).stdout.split()
        if len(version) != 2 or version[0] != "drainsim":
            fail(f"drainsim --version: {version}")
        for name in ["drainsim-worker"] + (["drainsim-viewer"] if a.viewer else []):
            p = run([os.path.join(prefix, "bin", name), "--version"], cwd=cwd, env=headless())
            if p.returncode != 0 or p.stdout != f"{name} {version[1]}\n":
                fail(f"{name} --version: exit {p.returncode}: {p.stdout!r} {p.stderr!r}")

        if a.man:
            man1 = os.path.join(prefix, "share/man/man1")
            top = run([drainsim, "--help"], cwd=cwd).stdout
            # A command's line starts at column 3; its wrapped description's further lines
            # are indented to column 31.
            commands = [line.split()[0] for line in top.split("Subcommands:")[1].splitlines()
                        if line.startswith("  ") and not line.startswith("   ")]
            check_man_page(os.path.join(man1, "drainsim.1.gz"), "DRAINSIM",
                           ["NAME", "SYNOPSIS", "COMMANDS", "EXIT STATUS", "SEE ALSO", "FILES"] +
                           [f"drainsim {c} [OPTIONS]" for c in commands],
                           configured_prefix(a.build))
            check_man_page(os.path.join(man1, "drainsim-worker.1.gz"), "DRAINSIM-WORKER",
                           ["ENVIRONMENT", "OJS_URL"])
            if a.viewer:
                check_man_page(os.path.join(man1, "drainsim-viewer.1.gz"), "DRAINSIM-VIEWER",
                               ["--render", "EXIT STATUS"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    if FAILURES:
        print(f"{len(FAILURES)} failures")
        return 1
    print("install: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
