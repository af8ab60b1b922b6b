#!/usr/bin/env python3
"""The fidelity suite's check fails on a case without declared tolerances, on a row that is
not equivalent and has no note, on a stale note and on a stale summary, and passes on a
suite that has them all; a case runs on the systems that honour what it sets, with the
release options it leaves (ctest docs.fidelity_suite_can_fail)."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fidelity  # noqa: E402

TABLE = """<!-- case c1 on sk -->
#### sk

Virtual over seeds 1..30 against the real sk over {repeats} repeats (x 1); results in `r/`.

```
metric               virtual (n=30)  sk (n=5)  tolerance  sk vs virtual, same 5 seeds  sk vs virtual, Welch
jobs_enqueued                    10        10         ±1                   equivalent            equivalent
job_loss                          0         1     ±0.500      DIFFERS +1 [+0.8, +1.2]   DIFFERS +1
job_latency_s.p99             2.000     2.500     ±0.250  inconclusive +0.5 [0.1, 0.9], ~9 runs  inconclusive +0.5
```
<!-- end -->
"""


class SuiteCheck(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        case = os.path.join(self.tmp.name, "c1.json")
        with open(case, "w") as f:
            f.write('{"duration": "10s", "settle": "20s", "worker": {"profile": "sidekiq"}, '
                    '"platform": {}, "workload": {}, "events": [{"kind": "oom_kill"}]}')
        self.cases = {"c1": case}
        self.systems = {"sk": {"profile": "sidekiq"}}
        self.tolerances = {"cases": {"c1": {"reason": "r"}}}
        self.notes = {"c1": {"sk": {"about": "a", "rows": {"job_loss": "a gap"}}}}
        fidelity.KINDS_SAVED = fidelity.KINDS
        fidelity.KINDS = {"OOM kill": fidelity.KINDS["OOM kill"]}
        self.addCleanup(setattr, fidelity, "KINDS", fidelity.KINDS_SAVED)

    def page(self, repeats=5):
        body = TABLE.format(repeats=repeats)
        return fidelity.summary(body) + "\n" + body

    def problems(self, page=None):
        return fidelity.check(None, self.systems, self.cases, self.notes, self.tolerances,
                              page if page is not None else self.page())

    def test_a_whole_suite_passes(self):
        self.assertEqual(self.problems(), [])

    def test_a_case_without_tolerances_fails(self):
        self.tolerances = {"cases": {}}
        self.assertEqual(self.problems(),
                         ['c1: no tolerances declared (tolerances.json "cases")'])

    def test_a_differing_row_without_a_note_fails(self):
        self.notes["c1"]["sk"]["rows"] = {}
        self.assertEqual(self.problems(),
                         ["c1 on sk: job_loss is differs and notes.json says not why"])

    def test_an_inconclusive_row_needs_a_note_once_runs_cannot_settle_it(self):
        # At 5 repeats it asks for ~9 runs: more can be had, the page says so. At the most
        # repeats, it needs its note.
        self.assertEqual(self.problems(self.page(repeats=fidelity.MOST_REPEATS)),
                         ["c1 on sk: job_latency_s.p99 is inconclusive and notes.json says "
                          "not why"])

    def test_a_stale_note_fails(self):
        self.notes["c1"]["sk"]["rows"]["jobs_enqueued"] = "was a gap"
        self.assertEqual(self.problems(),
                         ["c1 on sk: notes.json explains jobs_enqueued, which is equivalent "
                          "(or no row): a stale note"])

    def test_a_stale_summary_fails(self):
        page = self.page().replace("| 1 | 0 | 1 | 1 | 1 |", "| 1 | 1 | 3 | 0 | 0 |")
        self.assertNotEqual(page, self.page())
        self.assertEqual(self.problems(page),
                         ["docs/fidelity.md: the summary at the top is not the tables': "
                          "regenerate it (--tables-only)"])



class Pairing(unittest.TestCase):
    """Which systems a case runs on, and which release options the suite sets for it."""

    BULLMQ = {"system": "bq", "profile": "bullmq",
              "honours": ["worker.concurrency", "backend.visibility_timeout",
                          "worker.options.stalled_interval"]}
    BULLMQ_4 = dict(BULLMQ, system="bq4", options={"renews_locks_while_closing": False})

    def test_a_case_runs_where_every_field_it_sets_is_honoured(self):
        case = {"worker": {"profile": "bullmq", "concurrency": 3,
                           "options": {"stalled_interval": "4s"}},
                "backend": {"visibility_timeout": "8s"}}
        self.assertTrue(fidelity.fits(case, self.BULLMQ))
        self.assertTrue(fidelity.fits(case, self.BULLMQ_4))
        case["backend"]["retry"] = {"max_attempts": 3}  # not honoured
        self.assertFalse(fidelity.fits(case, self.BULLMQ))
        self.assertFalse(fidelity.fits({"worker": {"profile": "sidekiq"}}, self.BULLMQ))

    def test_the_network_model_and_the_release_option_are_not_asked_of_the_adapter(self):
        case = {"worker": {"profile": "bullmq", "fetch_latency": {"kind": "constant"},
                           "options": {"renews_locks_while_closing": False}}}
        self.assertTrue(fidelity.fits(case, self.BULLMQ_4))
        self.assertFalse(fidelity.fits(case, self.BULLMQ))

    def test_a_case_that_names_a_release_runs_only_on_that_release(self):
        case = {"worker": {"profile": "bullmq",
                           "options": {"renews_locks_while_closing": True}}}
        self.assertFalse(fidelity.fits(case, self.BULLMQ_4))
        case["worker"]["options"]["renews_locks_while_closing"] = False
        self.assertTrue(fidelity.fits(case, self.BULLMQ_4))

    def test_job_classes_run_where_the_adapter_has_what_they_ask(self):
        pg9 = {"system": "pg", "profile": "pg-boss",
               "honours": ["workload.classes.retry", "workload.classes.singleton"]}
        pg10 = dict(pg9, system="pg10", honours=["workload.classes.retry"])
        case = {"worker": {"profile": "pg-boss"},
                "workload": {"classes": [{"name": "a"}, {"name": "b", "singleton": True}]}}
        self.assertTrue(fidelity.fits(case, pg9))
        self.assertFalse(fidelity.fits(case, pg10))
        case["workload"]["classes"][1]["singleton"] = False
        self.assertTrue(fidelity.fits(case, pg10))
        self.assertFalse(fidelity.fits(case, dict(pg9, honours=[])))

    def test_the_release_options_are_set_where_the_case_leaves_them(self):
        saved = fidelity.manifests
        fidelity.manifests = lambda: {"bq4": self.BULLMQ_4}
        self.addCleanup(setattr, fidelity, "manifests", saved)
        self.assertEqual(fidelity.release("bq4", {"worker": {"profile": "bullmq"}}),
                         ["--set", "worker.options.renews_locks_while_closing=false"])
        own = {"worker": {"profile": "bullmq", "options": {"renews_locks_while_closing": True}}}
        self.assertEqual(fidelity.release("bq4", own), [])


if __name__ == "__main__":
    unittest.main()
