#!/usr/bin/env python3
"""The README command test can fail: its extractor, skip rules and rewrites, and a run of a
small Markdown against a fake drainsim with a failing command
(ctest docs.readme_commands_can_fail)."""

import io
import os
import stat
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import readme_commands as rc  # noqa: E402

FAKE_DRAINSIM = """#!/bin/sh
# Logs its arguments; a few subcommands do something checkable.
set -e
echo "$@" >> "$DRAINSIM_LOG"
case "$1" in
  fail) echo "a first line" >&2; echo "boom: it broke" >&2; exit 3 ;;
  check) test -f "$2" || { echo "no such file: $2" >&2; exit 1; } ;;
  write) echo data > "$2" ;;
  sleep) sleep 30 ;;
esac
exit 0
"""


def md(text):
    return textwrap.dedent(text).lstrip("\n")


class Extract(unittest.TestCase):
    def test_shell_blocks_and_their_commands(self):
        blocks = rc.extract(md("""
            # Title

            ```sh
            # a comment line
            build/sim/drainsim run a.json   # trailing comment

            build/sim/drainsim sweep a.json --grid x=1,2 \\
                --seeds 20
            drainsim tune SCENARIO [--seeds N]
                               [--format text|json]
            ```

            ```
            output, not commands
            ```

            ```json
            {"not": "a command"}
            ```

            ```bash
            drainsim profiles
            ```

            ```console
            $ drainsim validate a.json
            a.json: ok
            $ drainsim run a.json \\
                --seed 3
            summary...
            ```
            """))
        self.assertEqual([(b.line, b.lang) for b in blocks],
                         [(3, "sh"), (21, "bash"), (25, "console")])
        self.assertEqual([(c.line, c.text) for c in blocks[0].commands], [
            (5, "build/sim/drainsim run a.json   # trailing comment"),
            (7, "build/sim/drainsim sweep a.json --grid x=1,2 \\\n    --seeds 20"),
            (9, "drainsim tune SCENARIO [--seeds N]\n                   [--format text|json]"),
        ])
        self.assertEqual([c.text for c in blocks[1].commands], ["drainsim profiles"])
        self.assertEqual([c.text for c in blocks[2].commands],
                         ["drainsim validate a.json", "drainsim run a.json \\\n    --seed 3"])

    def test_a_marker_skips_the_next_block_and_needs_a_reason(self):
        blocks = rc.extract(md("""
            <!-- not tested: needs a display -->

            ```sh
            build/viewer/drainsim-viewer a.json
            ```
            ```sh
            drainsim profiles
            ```
            """))
        self.assertEqual([b.skip_reason for b in blocks], ["needs a display", None])
        with self.assertRaisesRegex(rc.MarkdownError, "line 1: .* needs a reason"):
            rc.extract("<!-- not tested -->\n```sh\ndrainsim profiles\n```\n")
        with self.assertRaisesRegex(rc.MarkdownError, "just before a fenced block"):
            rc.extract("<!-- not tested: why -->\nsome prose\n```sh\ndrainsim profiles\n```\n")


class Rules(unittest.TestCase):
    def test_skip_rules(self):
        cases = {
            "bash scripts/setup.sh run     # installs": rc.REASON_SETUP,
            "bash scripts/package.sh     # the package": rc.REASON_PACKAGE,
            "sudo apt-get install -y foo": rc.REASON_INSTALL,
            "apt-get install -y foo": rc.REASON_INSTALL,
            "cmake --install build --prefix /usr/local": rc.REASON_BUILD,
            "cd build && ctest": rc.REASON_BUILD,
            "build/sim/drainsim real s.json --system sidekiq --repeats 5": rc.REASON_REAL,
            "drainsim fidelity s.json --engines virtual,real --system sidekiq": rc.REASON_REAL,
            "build/viewer/drainsim-viewer results/rr.json   # a window": rc.REASON_WINDOW,
            "drainsim compare SCENARIO [--profiles all|NAME,NAME...]": rc.REASON_SYNOPSIS,
            "drainsim merge PART... --out FILE": rc.REASON_SYNOPSIS,
            # Written with the build path, a placeholder is a mistake, so it runs (and fails).
            "build/sim/drainsim run SCENARIO": None,
            "build/sim/drainsim run scenarios/a.json --set worker.grace_period=10s": None,
            "build/viewer/drainsim-viewer --render a.png --view timeline r.json": None,
            "drainsim run s.json   # the real Sidekiq is elsewhere": None,
            "FOO=1 build/sim/drainsim run s.json": None,
        }
        for text, reason in cases.items():
            with self.subTest(text=text):
                self.assertEqual(rc.classify(text, have_viewer=True), reason)
        self.assertEqual(rc.classify("build/viewer/drainsim-viewer --render a.png r.json",
                                     have_viewer=False), rc.REASON_NO_VIEWER)

    def test_rewrites(self):
        cases = [
            ("build/sim/drainsim compare s.json --seeds 10 --format md",
             "build/sim/drainsim compare s.json --seeds 2 --format md", ["R1"]),
            ("drainsim compare s.json --seeds=30", "drainsim compare s.json --seeds=2", ["R1"]),
            ("drainsim compare s.json --seeds 2", "drainsim compare s.json --seeds 2", []),
            ("drainsim fidelity s.json --seeds 30 --repeats 5",
             "drainsim fidelity s.json --seeds 2 --repeats 1", ["R1", "R2"]),
            ("drainsim fidelity s.json", "drainsim fidelity --seeds 2 --repeats 1 s.json", ["R3"]),
            # tune's answer depends on its seeds (a 95 % upper bound): left as written.
            ("build/sim/drainsim tune s.json --max-job-loss 0 > t.txt",
             "build/sim/drainsim tune s.json --max-job-loss 0 > t.txt", []),
            ("drainsim tune s.json --seeds 30", "drainsim tune s.json --seeds 30", []),
            ("drainsim sweep s.json --grid worker.grace_period=5s..120s/5s \\\n"
             "    --grid platform.termination_grace_period=30s,60s,90s --seeds 20",
             "drainsim sweep s.json --grid worker.grace_period=5s,120s \\\n"
             "    --grid platform.termination_grace_period=30s,60s --seeds 2", ["R1", "R4"]),
            ("drainsim sweep s.json --grid worker.concurrency=1..10/1 --seeds 2",
             "drainsim sweep s.json --grid worker.concurrency=1,10 --seeds 2", ["R4"]),
            ("drainsim sweep s.json --grid x=0.5..2.5/0.5 --seeds 2",
             "drainsim sweep s.json --grid x=0.5,2.5 --seeds 2", ["R4"]),
            ("for i in 0 1; do drainsim sweep s.json --shard $i/2 --out p-$i.json; done",
             "for i in 0 1; do drainsim sweep --seeds 2 s.json --shard $i/2 --out p-$i.json; done",
             ["R3"]),
            # Not drainsim, or no seeds to speak of: unchanged.
            ("drainsim run s.json --seed 7", "drainsim run s.json --seed 7", []),
            ("other --seeds 10", "other --seeds 10", []),
        ]
        for before, after, rules in cases:
            with self.subTest(before=before):
                self.assertEqual(rc.rewrite(before), (after, rules))

    def test_expected_exit_from_the_trailing_comment(self):
        self.assertEqual(rc.expected_exit("drainsim conformance --profile x  # exit 1: fails"), 1)
        self.assertEqual(rc.expected_exit("drainsim run s.json   # runs"), 0)
        self.assertEqual(rc.expected_exit('drainsim run "# exit 3" s.json'), 0)


class Run(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.root = tmp.name
        self.src = os.path.join(self.root, "src")
        os.makedirs(os.path.join(self.src, "scenarios"))
        with open(os.path.join(self.src, "scenarios", "a.json"), "w") as f:
            f.write("{}\n")
        os.makedirs(os.path.join(self.src, "build", "sim"))  # a build in the tree: not copied
        self.drainsim = os.path.join(self.root, "out", "sim", "drainsim")
        os.makedirs(os.path.dirname(self.drainsim))
        with open(self.drainsim, "w") as f:
            f.write(FAKE_DRAINSIM)
        os.chmod(self.drainsim, os.stat(self.drainsim).st_mode | stat.S_IXUSR)
        self.log = os.path.join(self.root, "drainsim.log")
        open(self.log, "w").close()
        old = os.environ.get("DRAINSIM_LOG")
        os.environ["DRAINSIM_LOG"] = self.log
        self.addCleanup(lambda: os.environ.pop("DRAINSIM_LOG") if old is None
                        else os.environ.__setitem__("DRAINSIM_LOG", old))

    def run_readme(self, text, *extra):
        with open(os.path.join(self.src, "README.md"), "w") as f:
            f.write(md(text))
        out = io.StringIO()
        code = rc.main([self.drainsim, self.src, *extra], out=out)
        return code, out.getvalue()

    def logged(self):
        with open(self.log) as f:
            return f.read().splitlines()

    def test_commands_that_work_pass(self):
        code, out = self.run_readme("""
            ```sh
            build/sim/drainsim check scenarios/a.json
            drainsim write r.json          # bare: drainsim is on PATH
            build/sim/drainsim check r.json   # what the block wrote before
            build/sim/drainsim compare scenarios/a.json --seeds 10
            bash scripts/setup.sh run
            ```

            ```sh
            build/sim/drainsim check r.json   # exit 1: each block starts afresh
            ```
            """)
        self.assertEqual(code, 0, out)
        self.assertIn("5 commands ran, 0 failed, 1 not run", out)
        self.assertEqual(self.logged(), [
            "check scenarios/a.json", "write r.json", "check r.json",
            "compare scenarios/a.json --seeds 2", "check r.json"])
        self.assertIn(rc.REASON_SETUP, out)
        # Nothing was written into the source tree.
        self.assertEqual(sorted(os.listdir(self.src)), ["README.md", "build", "scenarios"])

    def test_a_failing_command_fails_the_run(self):
        code, out = self.run_readme("""
            ```sh
            build/sim/drainsim check scenarios/a.json
            build/sim/drainsim fail --seeds 30
            build/sim/drainsim check scenarios/missing.json
            ```
            """)
        self.assertEqual(code, 1, out)
        self.assertIn("run   README.md:3: build/sim/drainsim fail --seeds 2   [R1]", out)
        self.assertIn("-> FAILED: exit 3, expected 0", out)
        self.assertIn("    boom: it broke", out)
        self.assertIn("no such file: scenarios/missing.json", out)
        self.assertIn("3 commands ran, 2 failed", out)
        self.assertIn("FAILED README.md:3: build/sim/drainsim fail --seeds 30 (exit 3, expected 0)",
                      out)
        self.assertIn("FAILED README.md:4:", out)

    def test_an_unexpected_success_and_a_placeholder_fail(self):
        code, out = self.run_readme("""
            ```sh
            build/sim/drainsim check scenarios/a.json   # exit 1
            build/sim/drainsim check SCENARIO
            ```
            """)
        self.assertEqual(code, 1, out)
        self.assertIn("exit 0, expected 1", out)
        self.assertIn("no such file: SCENARIO", out)

    def test_a_hanging_command_times_out(self):
        code, out = self.run_readme("```sh\nbuild/sim/drainsim sleep\n```\n", "--timeout", "1")
        self.assertEqual(code, 1, out)
        self.assertIn("timed out after 1 s", out)

    def test_a_marker_without_reason_fails(self):
        code, out = self.run_readme("<!-- not tested -->\n```sh\nbuild/sim/drainsim fail\n```\n")
        self.assertEqual(code, 1, out)
        self.assertIn("needs a reason", out)
        self.assertEqual(self.logged(), [])

    def test_list_shows_the_plan_and_runs_nothing(self):
        code, out = self.run_readme("""
            <!-- not tested: needs a display -->
            ```sh
            build/sim/drainsim fail
            ```

            ```sh
            build/sim/drainsim fail --seeds 10
            build/sim/drainsim real s.json --system sidekiq
            drainsim sweep SCENARIO [--seeds N]
            build/sim/drainsim conformance --profile x   # exit 1
            ```
            """, "--list")
        self.assertEqual(code, 0, out)
        self.assertEqual(self.logged(), [])
        self.assertIn("(not tested: needs a display)", out)
        self.assertIn("run   README.md:7: build/sim/drainsim fail --seeds 2   [R1]", out)
        self.assertIn(rc.REASON_REAL, out)
        self.assertIn(rc.REASON_SYNOPSIS, out)
        self.assertIn("(expects exit 1)", out)


if __name__ == "__main__":
    unittest.main()
