#!/usr/bin/env python3
"""The map check fails on what the map does not name and passes on a map that names it
all (ctest docs.architecture_map_can_fail)."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_map  # noqa: E402

MAP = """# Architecture
- `run/`: `run_scenario.h` (the entry), `models.cpp` (the wiring).
- `cli/`: `main.cpp`, `run_command.cpp` (`drainsim run`).
- `viewer/reader/`: `results_reader.h`; `viewer/`: `drainsim-viewer` (`viewer/main.cpp`).
- Programs: `drainsim`, `drainsim-viewer`.
"""


class MapCheck(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        self.addCleanup(self.tmp.cleanup)
        self.write("docs/architecture.md", MAP)
        self.write("sim/run/run_scenario.h", "")
        self.write("sim/run/run_scenario.cpp", "")
        self.write("sim/run/models.h", "")
        self.write("sim/run/models.cpp", "")
        self.write("sim/run/models_test.cpp", "")  # tests need no place on the map
        self.write("sim/cli/main.cpp", "")
        self.write("sim/cli/run_command.cpp", 'subcommand(app, "run", "Run", declare, run)\n')
        self.write("sim/cli/CMakeLists.txt", "add_executable(drainsim main.cpp)\n")
        self.write("viewer/main.cpp", "")
        self.write("viewer/reader/results_reader.h", "")
        self.write("viewer/CMakeLists.txt", "add_executable(drainsim-viewer main.cpp)\n"
                   "add_executable(${name}_test x.cpp)\n")

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def test_a_map_that_names_everything_passes(self):
        self.assertEqual(check_map.check(self.root), [])
        self.assertEqual(check_map.main(["check_map.py", self.root]), 0)

    def test_a_file_named_nowhere_fails(self):
        self.write("sim/run/paced_end.cpp", "")
        self.assertEqual(check_map.check(self.root),
                         ["sim/run/paced_end.cpp: named nowhere in docs/architecture.md (say "
                          "what it is where its folder is)"])
        self.assertEqual(check_map.main(["check_map.py", self.root]), 1)

    def test_a_folder_named_nowhere_fails(self):
        self.write("sim/engine/runtime.h", "")
        self.write("docs/architecture.md", MAP + "- `runtime.h`\n")
        self.assertEqual(check_map.check(self.root),
                         ["sim/engine/: a folder named nowhere in docs/architecture.md"])

    def test_a_program_or_a_subcommand_named_nowhere_fails(self):
        self.write("sim/process/CMakeLists.txt", "add_executable(drainsim-worker worker_main.cpp)\n")
        self.write("sim/cli/sweep_command.cpp", 'subcommand(app, "merge", "Merge", d, m)\n')
        self.write("docs/architecture.md",
                   MAP + "- `process/`: `worker_main.cpp`; `cli/`: `sweep_command.cpp`\n")
        self.assertEqual(check_map.check(self.root),
                         ["drainsim-worker: a program CMake builds, named nowhere in "
                          "docs/architecture.md",
                          "drainsim merge: a subcommand named nowhere in docs/architecture.md"])

    def test_a_path_that_is_gone_fails(self):
        self.write("docs/architecture.md", MAP + "- `run/simulation.h`\n")
        self.assertEqual(check_map.check(self.root),
                         ["docs/architecture.md: names `run/simulation.h`, which is not there"])


if __name__ == "__main__":
    unittest.main()
