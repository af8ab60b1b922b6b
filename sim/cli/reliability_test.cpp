// Hostile input (issue 20): every reader fails cleanly, exit 2 with the file, the JSON path
// and what was expected, never a signal, an uncaught exception or a hang; every output is
// checked before the work. One test per reproducer (../shared/reliability-repro/); their
// inputs are in tests/reliability/, the big and deep ones are made here.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "testing/sanitizers.h"
#include "testing/test_cli.h"

namespace {

namespace fs = std::filesystem;

class Reliability : public drainsim::test::CliTest {
 protected:
  static std::string input(const std::string& name) {
    return std::string(DRAINSIM_SOURCE_DIR) + "/tests/reliability/" + name;
  }
  static std::string scenario(const std::string& name) {
    return std::string(DRAINSIM_SOURCE_DIR) + "/scenarios/" + name;
  }
};

const char* kValid = R"({"name": "ok", "duration": "10s", "settle": "1m",
  "workload": {"arrival": {"kind": "burst", "count": 4, "at": "0s"},
               "job_duration": {"kind": "constant", "value": "20s"}},
  "worker": {"concurrency": 4},
  "platform": {"replicas": 1, "pod_start_delay": "5s"}})";

// "seed": 1e400 is no double: every reader of scenarios said out_of_range and aborted.
TEST_F(Reliability, HugeNumberLiteral) {
  const std::string file = input("huge-number-literal.json");
  // The literal starts at byte 198 of the file's one line: column 199.
  const std::string message =
      "error: " + file + ": not valid JSON: number overflow at line 1, column 199\n";
  for (const char* cmd : {"validate", "run", "compare", "tune"}) {
    const drainsim::test::CliResult r = drainsim(std::string(cmd) + " '" + file + "'");
    EXPECT_EQ(r.code, 2) << cmd;
    EXPECT_EQ(r.err, message) << cmd;
  }
  const drainsim::test::CliResult sweep =
      drainsim("sweep '" + file + "' --grid worker.concurrency=1,2");
  EXPECT_EQ(sweep.code, 2);
  EXPECT_NE(sweep.err.find(file + ": not valid JSON: number overflow at line 1, column 199\n"),
            std::string::npos)
      << sweep.err;
  // Through --set, the same literal is a string: the field says what it expected.
  const drainsim::test::CliResult set =
      drainsim("validate '" + write("ok.json", kValid) + "' --set seed=1e400");
  EXPECT_EQ(set.code, 2);
  EXPECT_NE(set.err.find("(--set seed=1e400): seed: expected"), std::string::npos) << set.err;
}

// 100,000 levels of [ ]: the loader printed the whole value into its message, recursively,
// and overflowed the stack (SIGSEGV). Now refused at 101 levels, wherever the value is.
TEST_F(Reliability, DeepNesting) {
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const drainsim::test::CliResult top = drainsim("validate '" + write("deep.json", deep) + "'");
  EXPECT_EQ(top.code, 2);
  EXPECT_EQ(top.err, "error: " + (dir_ / "deep.json").string() +
                         ": not valid JSON: nested more than 100 levels deep at line 1, column "
                         "101\n");
  std::string text = kValid;
  text.replace(text.find("\"replicas\": 1"), 13, "\"replicas\": " + deep);
  const drainsim::test::CliResult field = drainsim("run '" + write("field.json", text) + "'");
  EXPECT_EQ(field.code, 2);
  EXPECT_NE(field.err.find("not valid JSON: nested more than 100 levels deep at line 5, column "),
            std::string::npos)
      << field.err.substr(0, 300);
  // 100 levels are fine (the top object, platform and 98 arrays): the message shows a
  // bounded prefix of the value.
  const std::string hundred = std::string(98, '[') + std::string(98, ']');
  text = kValid;
  text.replace(text.find("\"replicas\": 1"), 13, "\"replicas\": " + hundred);
  const drainsim::test::CliResult shown = drainsim("validate '" + write("ok100.json", text) + "'");
  EXPECT_EQ(shown.code, 2);
  EXPECT_NE(shown.err.find("platform.replicas: expected an integer from 0 to 100000, got " +
                           std::string(57, '[') + "...\n"),
            std::string::npos)
      << shown.err;
  // --set and --grid values too (20,000 deep: one argument may not pass 128 KB).
  const std::string file = write("ok.json", kValid);
  deep = std::string(20000, '[') + std::string(20000, ']');
  const drainsim::test::CliResult set =
      drainsim("validate '" + file + "' --set 'platform.replicas=" + deep + "'");
  EXPECT_EQ(set.code, 2);
  EXPECT_NE(set.err.find("...: nested more than 100 levels deep at line 1, column 101\n"),
            std::string::npos)
      << set.err.substr(0, 300);
  EXPECT_LT(set.err.size(), 300u);
  const drainsim::test::CliResult grid =
      drainsim("sweep '" + file + "' --grid 'platform.replicas=" + deep + "'");
  EXPECT_EQ(grid.code, 2);
  EXPECT_NE(grid.err.find("nested more than 100 levels deep"), std::string::npos)
      << grid.err.substr(0, 300);
  EXPECT_LT(grid.err.size(), 300u);
}

// A NUL byte ended the file: what followed it was never read.
TEST_F(Reliability, TrailingNul) {
  const std::string file = input("trailing-nul.json");
  const drainsim::test::CliResult r = drainsim("validate '" + file + "'");
  EXPECT_EQ(r.code, 2);
  // The NUL is byte 181, after the object and its newline: line 2, column 1.
  EXPECT_EQ(r.err, "error: " + file + ": not valid JSON: a NUL byte at line 2, column 1\n");
}

// Devices, FIFOs and directories are refused by their type, before anything is read
// (/dev/zero aborted after 8 s, a FIFO blocked for ever); a file over the size limit too.
TEST_F(Reliability, NonRegularFilesAndSizeLimits) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo.json").c_str(), 0600), 0);
  const std::pair<std::string, std::string> cases[] = {
      {"/dev/zero", "not a regular file (a character device)"},
      {(dir_ / "fifo.json").string(), "not a regular file (a FIFO)"},
      {dir_.string(), "is a directory"},
      {(dir_ / "missing.json").string(), "No such file or directory"},
  };
  for (const auto& [path, why] : cases) {
    const std::string p = "'" + path + "'";
    for (const std::string& args :
         {"validate " + p, "run " + p, "export --format chrome-trace " + p, "merge " + p,
          "fidelity --from 'a=" + path + "' --from 'b=" + path + "'"}) {
      const drainsim::test::CliResult r = drainsim(args);
      EXPECT_EQ(r.code, 2) << args;
      EXPECT_NE(r.err.find(path + ": cannot read: " + why + "\n"), std::string::npos)
          << args << ": " << r.err;
    }
  }
  // 4 MiB + 1 byte of spaces: over the scenario limit, refused before it is parsed.
  {
    std::ofstream big(dir_ / "big.json");
    big << std::string((4 << 20) + 1, ' ');
  }
  const drainsim::test::CliResult big = drainsim("validate big.json");
  EXPECT_EQ(big.code, 2);
  EXPECT_EQ(big.err,
            "error: big.json: cannot read: 4.0 MiB, more than the 4 MiB a scenario file may be\n");
}

// export read past the end of short timeline.series rows (heap overflow, SIGSEGV).
TEST_F(Reliability, ExportShortSeriesRows) {
  const std::string file = input("export-short-series-rows.results.json");
  const drainsim::test::CliResult r = drainsim("export --format chrome-trace '" + file + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "error: " + file + ": timeline.series.rows[0]: expected 4 values, got [4.400451]\n");
  EXPECT_EQ(r.out, "");
}

// A 3.0 file whose warnings are 2.x strings exported (and loaded in the viewer) as if
// fine: exit 2 naming warnings[0] and what a 3.0 warning is.
TEST_F(Reliability, ReaderWarningsAsStrings) {
  const std::string file = input("reader-3.0-warnings-as-strings.results.json");
  const drainsim::test::CliResult r =
      drainsim("export --format chrome-trace '" + file + "' --out t.json");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "error: " + file +
                       ": warnings[0]: expected a warning object {\"code\": string, "
                       "\"message\": string, \"figures\": object}, got \"a 2.x-style "
                       "warning\"\n");
  EXPECT_FALSE(fs::exists(dir_ / "t.json"));
}

// export ignored schema_version. MAJOR 2 is one this drainsim reads (results/README.md,
// Versioning: 1.x to 3.x), so the reproducer's 2.0 file exports; an unknown MAJOR, a
// malformed, empty, non-string or missing version is refused.
TEST_F(Reliability, ExportSchemaVersion) {
  const std::string file = input("export-schema-version-2.0.results.json");
  const drainsim::test::CliResult known = drainsim("export --format chrome-trace '" + file + "'");
  EXPECT_EQ(known.code, 0) << known.err;
  EXPECT_NE(known.out.find("\"traceEvents\""), std::string::npos);
  const std::string text = slurp(file);
  const std::string version = "\"schema_version\": \"2.0\"";
  ASSERT_NE(text.find(version), std::string::npos);
  const std::pair<std::string, std::string> cases[] = {
      {"\"schema_version\": \"4.0\"",
       "schema_version 4.0, this reader knows 1.x to 3.x (use the drainsim that wrote it)"},
      {"\"schema_version\": \"x\"", "schema_version: expected a version like \"3.0\", got \"x\""},
      {"\"schema_version\": \"\"", "schema_version: expected a version like \"3.0\", got \"\""},
      {"\"schema_version\": 2", "schema_version: expected a version like \"3.0\", got 2"},
      {"\"no_schema_version\": 0",
       "schema_version: required field missing, expected a version like \"3.0\""},
  };
  for (const auto& [replacement, message] : cases) {
    std::string bad = text;
    bad.replace(bad.find(version), version.size(), replacement);
    const std::string path = write("bad.results.json", bad);
    const drainsim::test::CliResult r = drainsim("export --format chrome-trace '" + path + "'");
    EXPECT_EQ(r.code, 2) << replacement;
    EXPECT_EQ(r.err, "error: " + path + ": " + message + "\n") << replacement;
  }
}

#ifdef VIEWER_BINARY
// The viewer aborted (length_error) sizing its charts from a negative run.ended_at_s.
TEST_F(Reliability, ViewerNegativeEndedAt) {
  const std::string file = input("viewer-negative-ended-at.results.json");
  const std::string viewer = "QT_QPA_PLATFORM=offscreen '" + std::string(VIEWER_BINARY) + "'";
  for (const char* view : {"summary", "timeline", "series"}) {
    const drainsim::test::CliResult r =
        shell(viewer + " --render o.png --view " + view + " '" + file + "'");
    EXPECT_EQ(r.code, 2) << view;
    EXPECT_TRUE(r.err.ends_with("error: " + file +
                                ": run.ended_at_s: expected a number of seconds from 0 to 1e+09, "
                                "got -100\n"))
        << view << ": " << r.err;
  }
  // schema_version "" was taken for a readable version.
  std::string text = slurp(file);
  text.replace(text.find("\"ended_at_s\": -100"), 18, "\"ended_at_s\": 14");
  text.replace(text.find("\"schema_version\": \"1.1\""), 23, "\"schema_version\": \"\"");
  const std::string empty = write("empty-version.results.json", text);
  const drainsim::test::CliResult r = shell(viewer + " --render o.png '" + empty + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(r.err.ends_with("error: " + empty +
                              ": schema_version: expected a version like \"3.0\", got \"\"\n"))
      << r.err;
}
#endif

// Outputs are checked before the work: a sweep whose --out cannot be written ran whole,
// then failed.
TEST_F(Reliability, UnwritableOutputsBeforeTheWork) {
  const std::string file = write("ok.json", kValid);
  const std::string out = "/no/such/dir/s.json";
  const std::pair<std::string, std::string> cases[] = {
      {"sweep '" + file + "' --grid worker.concurrency=1,2 --out " + out, "--out"},
      {"sweep '" + file + "' --grid worker.concurrency=1,2 --csv " + out, "--csv"},
      {"compare '" + file + "' --out " + out, "--out"},
      {"tune '" + file + "' --out " + out, "--out"},
      {"run '" + file + "' --out " + out, "--out"},
      {"conformance --profile ojs --out " + out, "--out"},
      {"export --format chrome-trace '" + std::string(DRAINSIM_SOURCE_DIR) +
           "/tests/reliability/export-schema-version-2.0.results.json' --out " + out,
       "--out"},
  };
  for (const auto& [args, option] : cases) {
    const drainsim::test::CliResult r = drainsim(args);
    EXPECT_EQ(r.code, 2) << args;
    const std::string what = args.rfind("run", 0) == 0 ? "the results file" : "it";
    // Said at once: no progress line, no report before it.
    EXPECT_EQ(r.err, "error: " + option + " " + out + ": cannot write " + what +
                         " (No such file or directory)\n")
        << args;
    EXPECT_EQ(r.out, "") << args;
  }
}

// The realtime engine ran one thread per running job body and aborted (SIGABRT, no file,
// no message) when the OS refused one: under a 4 GiB address-space limit the bodies whose
// thread is refused now run as timers, the run completes with its audit balanced, and the
// threads_refused warning says so. (Not under the sanitizers, whose shadow memory needs
// more address space than the limit.)
TEST_F(Reliability, RealtimeAbortMin) {
  if (drainsim::test::kAddressSanitizer || drainsim::test::kThreadSanitizer) {
    GTEST_SKIP() << "a sanitizer's shadow memory does not fit under ulimit -v";
  }
  const std::string bin = "'" + std::string(DRAINSIM_BINARY) + "'";
  const drainsim::test::CliResult r =
      shell("(ulimit -v 4194304; exec " + bin + " run '" + input("realtime-abort-min.json") +
            "' --engine realtime --time-scale 5000 --out x.json)");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("warning: the OS refused job bodies their threads"), std::string::npos)
      << r.out;
  const nlohmann::json results = nlohmann::json::parse(slurp(dir_ / "x.json"));
  EXPECT_TRUE(results["summary"]["audit"]["ok"].get<bool>());
  bool warned = false;
  for (const nlohmann::json& w : results["warnings"]) warned |= w["code"] == "threads_refused";
  EXPECT_TRUE(warned);
}

// An empty path or worker command was read as the option's default (run --out "" wrote
// results/NAME-SEED.json; --worker-cmd "" ran drainsim-worker), and a command /bin/sh
// cannot parse became a crash loop of workers: each is exit 2 naming the option, before
// any work.
TEST_F(Reliability, EmptyPathsAndUnparsableWorkerCommandsAreRefused) {
  const std::string file = write("ok.json", kValid);
  const std::pair<std::string, std::string> cases[] = {
      {"run ok.json --out ''", "--out: an empty path"},
      {"sweep ok.json --grid worker.concurrency=1,2 --csv ''", "--csv: an empty path"},
      {"compare ok.json --out ''", "--out: an empty path"},
      {"real ok.json --system sidekiq --out-dir ''", "--out-dir: an empty path"},
      {"run ok.json --engine process --worker-log ''", "--worker-log: an empty path"},
      {"run ok.json --engine process --worker-cmd ''",
       "error: --worker-cmd \"\": an empty command: expected a shell command line"},
      {"run ok.json --engine process --worker-cmd ' '", "an empty command"},
      {"run ok.json --engine process --worker-cmd \"python3 'unbalanced\"",
       "error: --worker-cmd \"python3 'unbalanced\": /bin/sh cannot parse it (sh: 1: Syntax "
       "error: Unterminated quoted string)"},
  };
  for (const auto& [args, said] : cases) {
    const drainsim::test::CliResult r = drainsim(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_NE(r.err.find(said), std::string::npos) << args << "\n" << r.err;
    EXPECT_EQ(r.out, "") << args;
  }
  EXPECT_FALSE(fs::exists(dir_ / "results"));  // nothing written to a default path
}

// A file size limit (ulimit -f) reached during a write killed drainsim with SIGXFSZ (153)
// and left NAME.tmp-PID behind; now the write fails (EFBIG) with the limit named, exit 2,
// and nothing is left: neither the file nor its temporary (run, and sweep through emit).
TEST_F(Reliability, AFileSizeLimitFailsTheWriteAndLeavesNoTemporaryFile) {
  const std::string bin = "'" + std::string(DRAINSIM_BINARY) + "'";
  const std::string file = scenario("double-sigterm.json");
  const std::pair<std::string, std::string> cases[] = {
      {"run '" + file + "' --timeline --out r.json",
       "error: r.json: cannot write the results file"},
      {"sweep '" + file + "' --grid worker.concurrency=1,2,3 --out s.json",
       "error: s.json: cannot write it"},
  };
  for (const auto& [args, said] : cases) {
    const drainsim::test::CliResult r = shell("(ulimit -f 8; exec " + bin + " " + args + ")");
    EXPECT_EQ(r.code, 2) << args;
    // ulimit -f counts 512-byte blocks in dash, 1 KiB ones in bash: the limit's bytes vary.
    EXPECT_NE(r.err.find(said + " (File too large: the file size limit (ulimit -f) is "),
              std::string::npos)
        << r.err;
    EXPECT_TRUE(r.err.ends_with(" bytes)\n")) << r.err;
    std::size_t files = 0;  // out.txt and err.txt only
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++files;
    EXPECT_EQ(files, 2u) << args;
  }
}

// The default results path when results/ cannot be a folder: exit 2 like --out, not an
// uncaught filesystem_error; no temporary file left.
TEST_F(Reliability, DefaultResultsPathNotADirectory) {
  write("results", "a file, not a folder");
  const drainsim::test::CliResult r = drainsim("run '" + scenario("double-sigterm.json") + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "error: results/double-sigterm-1.json: cannot write the results file (Not a "
            "directory)\n");
  std::size_t files = 0;  // results, out.txt and err.txt: no temporary file
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 3u);
}

// run --out onto its own scenario overwrote it; any name for the same file is refused.
TEST_F(Reliability, OutIsAnInput) {
  const std::string file = write("ok.json", kValid);
  fs::create_symlink(file, dir_ / "link.json");
  for (const char* out : {"ok.json", "./ok.json", "link.json"}) {
    const drainsim::test::CliResult r = drainsim(std::string("run ok.json --out ") + out);
    EXPECT_EQ(r.code, 2) << out;
    EXPECT_EQ(r.err, std::string("error: --out ") + out +
                         ": is the input file ok.json: it would be overwritten; give another "
                         "path\n");
  }
  EXPECT_EQ(slurp(file), kValid);
  const drainsim::test::CliResult sweep =
      drainsim("sweep ok.json --grid worker.concurrency=1 --csv link.json");
  EXPECT_EQ(sweep.code, 2);
  EXPECT_NE(sweep.err.find("--csv link.json: is the input file ok.json"), std::string::npos);
  const std::string part = write("part.json", "{}");
  const drainsim::test::CliResult merge = drainsim("merge part.json --out part.json");
  EXPECT_EQ(merge.code, 2);
  EXPECT_NE(merge.err.find("--out part.json: is the input file part.json"), std::string::npos);
  const drainsim::test::CliResult exported =
      drainsim("export --format chrome-trace part.json --out ./part.json");
  EXPECT_EQ(exported.code, 2);
  EXPECT_EQ(slurp(part), "{}");
}

}  // namespace
