#!/usr/bin/env python3
"""`cpack -G DEB` builds a Debian package of drainsim that works once unpacked.

  scripts/check_package.py CPACK BUILD_DIR SOURCE_DIR [--viewer] [--man]   (ctest Package.deb)

Builds the package into a temporary folder and checks it with dpkg-deb: its control
fields (package drainsim, the project's version, a maintainer, and the library
dependencies dpkg-shlibdeps found: libc6, libstdc++6, libfmt9 and, with the viewer, Qt 6),
its file list (/usr/bin/drainsim, every shipped scenario under
/usr/share/drainsim/scenarios, the man pages, the completions), and, extracted with
`dpkg-deb -x`, that its drainsim says its version and runs a shipped scenario. Exit 77
(skipped) when cpack, dpkg-deb or dpkg-shlibdeps is missing.
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

FAILURES = []


def fail(message):
    FAILURES.append(message)
    print("FAIL", message)


def run(args, cwd=None, timeout=600):
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cpack")
    ap.add_argument("build")
    ap.add_argument("source")
    ap.add_argument("--viewer", action="store_true")
    ap.add_argument("--man", action="store_true")
    a = ap.parse_args()
    build, source = os.path.abspath(a.build), os.path.abspath(a.source)
    missing = [t for t in (a.cpack, "dpkg-deb", "dpkg-shlibdeps") if not shutil.which(t)]
    if missing:
        print(f"skipped: {', '.join(missing)} not found (Debian: apt-get install dpkg-dev)")
        return 77

    version = re.search(r"project\(drainsim VERSION ([0-9.]+)",
                        open(os.path.join(source, "CMakeLists.txt")).read()).group(1)
    tmp = tempfile.mkdtemp(prefix="drainsim-deb-")
    try:
        p = run([a.cpack, "-G", "DEB", "--config", os.path.join(build, "CPackConfig.cmake"),
                 "-B", tmp], cwd=tmp)
        debs = glob.glob(os.path.join(tmp, "drainsim_*.deb"))
        if p.returncode != 0 or len(debs) != 1:
            fail(f"cpack -G DEB: exit {p.returncode}, packages {debs}\n{p.stdout}{p.stderr}")
            return 1
        deb = debs[0]
        if os.path.basename(deb) != f"drainsim_{version}_{run(['dpkg', '--print-architecture']).stdout.strip()}.deb":
            fail(f"package file name: {os.path.basename(deb)}")

        info = run(["dpkg-deb", "--info", deb]).stdout
        fields = dict(re.findall(r"^ ([A-Za-z-]+): (.*)$", info, re.M))
        if fields.get("Package") != "drainsim":
            fail(f"Package: {fields.get('Package')}")
        if fields.get("Version") != version:
            fail(f"Version: {fields.get('Version')}, expected {version}")
        if "@" not in fields.get("Maintainer", ""):
            fail(f"Maintainer: {fields.get('Maintainer')}")
        depends = fields.get("Depends", "")
        needed = ["libc6", "libstdc++6", "libfmt9"]
        if a.viewer:
            needed += ["libqt6core6", "libqt6gui6", "libqt6widgets6", "libqt6charts6"]
        for lib in needed:
            if not re.search(rf"(^|, ){re.escape(lib)}\b", depends):
                fail(f"Depends has no {lib}: {depends}")

        listing = run(["dpkg-deb", "-c", deb]).stdout
        files = {line.split()[-1].lstrip(".") for line in listing.splitlines() if line.strip()}
        wanted = ["/usr/bin/drainsim", "/usr/bin/drainsim-worker",
                  "/usr/share/drainsim/scenarios/rolling-restart.json",
                  "/usr/share/drainsim/adapters/sidekiq/system.json",
                  "/usr/share/doc/drainsim/README.md",
                  "/usr/share/bash-completion/completions/drainsim",
                  "/usr/share/zsh/vendor-completions/_drainsim"]
        scenarios = os.path.join(source, "scenarios")
        for path in glob.glob(os.path.join(scenarios, "**", "*.json"), recursive=True):
            wanted.append("/usr/share/drainsim/scenarios/" + os.path.relpath(path, scenarios))
        if a.viewer:
            wanted.append("/usr/bin/drainsim-viewer")
        if a.man:
            wanted += ["/usr/share/man/man1/drainsim.1.gz",
                       "/usr/share/man/man1/drainsim-worker.1.gz"]
            if a.viewer:
                wanted.append("/usr/share/man/man1/drainsim-viewer.1.gz")
        for path in wanted:
            if path not in files:
                fail(f"not in the package: {path}")

        root = os.path.join(tmp, "root")
        p = run(["dpkg-deb", "-x", deb, root])
        if p.returncode != 0:
            fail(f"dpkg-deb -x: {p.stderr}")
            return 1
        drainsim = os.path.join(root, "usr", "bin", "drainsim")
        p = run([drainsim, "--version"], cwd=tmp)
        if p.returncode != 0 or p.stdout != f"drainsim {version}\n":
            fail(f"the packaged drainsim --version: exit {p.returncode}: {p.stdout!r}")
        out = os.path.join(tmp, "r.json")
        p = run([drainsim, "run",
                 os.path.join(root, "usr/share/drainsim/scenarios/rolling-restart.json"),
                 "--out", out], cwd=tmp)
        if p.returncode != 0 or json.load(open(out))["scenario"]["name"] != "rolling-restart":
            fail(f"the packaged drainsim run: exit {p.returncode}: {p.stderr}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    if FAILURES:
        print(f"{len(FAILURES)} failures")
        return 1
    print(f"package: ok ({os.path.basename(deb)}; Depends: {depends})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
