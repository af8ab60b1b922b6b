#!/usr/bin/env python3
"""Checks (or, with --write, rewrites) the viewer's reference files against what drainsim
writes today for viewer/testdata/one-pod-rollout.json: the results with a timeline, a
sweep over worker.grace_period and a comparison of three profiles. drainsim_version and
result hashes are left out of the comparison (they change with the version, not the run).

usage: refresh.py DRAINSIM_BINARY SOURCE_DIR [--write]
"""

import json
import pathlib
import subprocess
import sys
import tempfile

COMMANDS = {
    "one-pod-rollout.results.json": ["run", "{scenario}", "--timeline", "--out", "{out}"],
    "one-pod-rollout.sweep.json": ["sweep", "{scenario}", "--grid",
                                   "worker.grace_period=10s..70s/30s", "--seeds", "2",
                                   "--threads", "1", "--out", "{out}"],
    # --keep-grace: every profile under the reference run's 20 s grace, as its tests work out.
    "one-pod-rollout.compare.json": ["compare", "{scenario}", "--profiles", "ojs,sidekiq,naive",
                                     "--keep-grace", "--seeds", "3", "--format", "json",
                                     "--out", "{out}"],
}
VOLATILE = {"drainsim_version", "result_hash", "result_hashes"}


def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in VOLATILE}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v


def main(argv):
    if len(argv) not in (3, 4) or (len(argv) == 4 and argv[3] != "--write"):
        print(__doc__.split("\n\n")[-1], file=sys.stderr)
        return 2
    binary, root = str(pathlib.Path(argv[1]).resolve()), pathlib.Path(argv[2]).resolve()
    testdata = root / "viewer" / "testdata"
    scenario = testdata / "one-pod-rollout.json"
    stale = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in COMMANDS.items():
            out = pathlib.Path(tmp) / name
            cmd = [binary] + [a.format(scenario=scenario, out=out) for a in args]
            p = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True)
            if p.returncode != 0:
                print(f"FAIL {' '.join(cmd)}: exit {p.returncode}\n{p.stderr}")
                return 1
            if len(argv) == 4:
                (testdata / name).write_bytes(out.read_bytes())
                print(f"wrote viewer/testdata/{name}")
            elif strip(json.loads(out.read_text())) != strip(json.loads((testdata / name).read_text())):
                stale.append(name)
    if stale:
        print(f"viewer/testdata is stale: {', '.join(stale)} differ from what drainsim writes "
              f"today; check the hand-worked values in viewer/*_test.cpp, then run "
              f"viewer/testdata/refresh.py build/sim/drainsim . --write")
        return 1
    print("viewer/testdata matches what drainsim writes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
