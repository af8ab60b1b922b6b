#!/usr/bin/env python3
"""The layer check fails on a planted bad include and passes on a tree that keeps the rule
(ctest layers.check_fails_on_bad_includes)."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_layers  # noqa: E402


class LayerCheck(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        self.addCleanup(self.tmp.cleanup)
        # A small tree that keeps the rule, with one known exception in place.
        known = check_layers.KNOWN
        check_layers.KNOWN = {("sim/model/scenario.h", "nlohmann/json.hpp"): "a test exception"}
        self.addCleanup(setattr, check_layers, "KNOWN", known)
        self.write("sim/base/duration.h", "#include <cstdint>\n")
        self.write("sim/engine/runtime.h", '#include "base/duration.h"\n')
        self.write("sim/engine/asio_runtime.h", "#include <boost/asio/io_context.hpp>\n")
        self.write("sim/model/scenario.h", '#include <nlohmann/json.hpp>\n#include "base/duration.h"\n')
        self.write("sim/model/backend.h", '#include "engine/runtime.h"\n#include "model/scenario.h"\n')
        self.write("sim/profiles/profile.h", '#include "model/scenario.h"\n')
        self.write("sim/io/results.h", '#include "profiles/profile.h"\n#include <nlohmann/json.hpp>\n')
        self.write("sim/process/http_worker.h", '#include "model/backend.h"\n')
        self.write("sim/run/run_scenario.h", '#include "io/results.h"\n#include "process/http_worker.h"\n')
        self.write("sim/analysis/compare.h", '#include "run/run_scenario.h"\n')
        self.write("sim/cli/main.cpp", '#include "analysis/compare.h"\n')
        self.write("sim/testing/test_scenarios.h", "#include <string>\n")
        self.write("sim/model/platform_test.cpp",
                   '#include "run/run_scenario.h"\n#include "testing/test_scenarios.h"\n')
        self.write("viewer/reader/results_reader.cpp",
                   '#include "reader/results_reader.h"\n#include "base/duration.h"\n')
        self.write("viewer/widgets/timeline_view.cpp", '#include "reader/results_reader.h"\n')

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def errors(self):
        return check_layers.check(self.root)

    def assertBroken(self, rel, text, *words):
        self.write(rel, text)
        errors = self.errors()
        self.assertEqual(len(errors), 1, errors)
        self.assertTrue(errors[0].startswith(rel + ":"), errors[0])
        for w in words:
            self.assertIn(w, errors[0])

    def test_a_tree_that_keeps_the_rule_passes(self):
        self.assertEqual(self.errors(), [])
        self.assertEqual(check_layers.main(["check_layers.py", self.root]), 0)

    def test_an_upward_include_fails(self):
        self.assertBroken("sim/model/worker_core.cpp", '#include "process/http_worker.h"\n',
                          "model/ may not include process/ (upward)")
        self.assertEqual(check_layers.main(["check_layers.py", self.root]), 1)

    def test_a_sideways_include_fails(self):
        self.assertBroken("sim/io/trace_export.cpp", '#include "process/http_worker.h"\n',
                          "io/ may not include process/ (sideways)")

    def test_an_include_without_its_folder_fails(self):
        self.assertBroken("sim/model/sampler.cpp", '#include "backend.h"\n',
                          'name the folder (#include "model/backend.h")')

    def test_an_unlisted_folder_fails(self):
        self.assertBroken("sim/model/sampler.cpp", '#include "util/thing.h"\n',
                          "util/ is not a layer")
        self.write("sim/model/sampler.cpp", "")
        self.assertBroken("sim/stray.cpp", "", "not in a layer folder")

    def test_tests_use_the_run_harness_but_not_the_cli(self):
        self.assertBroken("sim/model/backend_test.cpp", '#include "analysis/compare.h"\n',
                          "model/ may not include analysis/ (upward)")

    def test_only_tests_use_testing(self):
        self.assertBroken("sim/model/platform.cpp", '#include "testing/test_scenarios.h"\n',
                          "testing/ is for tests only")

    def test_the_model_uses_no_json_asio_or_filesystem(self):
        self.assertBroken("sim/model/recorder.h", "#include <nlohmann/json.hpp>\n",
                          "the model layer uses no nlohmann")
        self.write("sim/model/recorder.h", "")
        self.assertBroken("sim/profiles/river.cpp", "#include <filesystem>\n",
                          "the profiles layer uses no filesystem")
        self.write("sim/profiles/river.cpp", "")
        self.assertBroken("sim/engine/virtual_runtime.cpp", "#include <boost/asio/post.hpp>\n",
                          "the engine layer uses no boost")

    def test_a_known_exception_that_is_gone_must_leave_the_list(self):
        self.write("sim/model/scenario.h", '#include "base/duration.h"\n')
        errors = self.errors()
        self.assertEqual(len(errors), 1, errors)
        self.assertIn("sim/model/scenario.h: no longer includes <nlohmann/json.hpp>", errors[0])

    def test_the_viewer_uses_only_base(self):
        self.assertBroken("viewer/reader/documents.cpp", '#include "model/backend.h"\n',
                          "the viewer uses only base/")
        self.write("viewer/reader/documents.cpp", "")
        self.assertBroken("viewer/reader/run_model.cpp", '#include "widgets/palette.h"\n',
                          "the reader includes no widget")

    def test_a_circle_of_files_fails(self):
        # run/run_scenario dispatches to run/real_engine, which takes its options back from
        # run/run_scenario: one folder, so only the circle check sees it.
        self.write("sim/run/real_engine.h", '#include "run/run_scenario.h"\n')
        self.write("sim/run/real_engine.cpp", '#include "run/real_engine.h"\n')
        self.write("sim/run/run_scenario.cpp",
                   '#include "run/run_scenario.h"\n#include "run/real_engine.h"\n')
        errors = self.errors()
        self.assertEqual(len(errors), 1, errors)
        self.assertIn("a circle of files: sim/run/real_engine -> sim/run/run_scenario", errors[0])
        self.assertEqual(check_layers.main(["check_layers.py", self.root]), 1)
        self.write("sim/run/real_engine.h", '#include "io/results.h"\n')
        self.assertEqual(self.errors(), [])

    def test_a_header_of_shared_internals_is_part_of_its_users(self):
        # reader_internal.h (no .cpp of its own) holds the reader's internals, on the
        # public types: the units that include it are not in a circle with it.
        self.write("viewer/reader/results_reader.h", "#include <string>\n")
        self.write("viewer/reader/reader_internal.h", '#include "reader/results_reader.h"\n')
        self.write("viewer/reader/results_reader.cpp",
                   '#include "reader/results_reader.h"\n#include "reader/reader_internal.h"\n')
        self.assertEqual(self.errors(), [])
        # Through it, a circle of compiled units is still one.
        self.write("viewer/reader/run_model.h", '#include "reader/reader_internal.h"\n')
        self.write("viewer/reader/run_model.cpp", '#include "reader/run_model.h"\n')
        self.write("viewer/reader/results_reader.h", '#include "reader/run_model.h"\n')
        errors = self.errors()
        self.assertEqual(len(errors), 1, errors)
        self.assertIn("viewer/reader/results_reader -> viewer/reader/run_model", errors[0])

if __name__ == "__main__":
    unittest.main()
