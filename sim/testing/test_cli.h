// Test-only: runs the drainsim binary (DRAINSIM_BINARY) in a scratch directory of its
// own per test, as a user would, and captures the exit code, stdout and stderr.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace drainsim::test {

struct CliResult {
  int code;
  std::string out, err;
};

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("drainsim_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_suite()->name()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes a file in the scratch directory; returns its path.
  std::string write(const std::string& name, const std::string& text) {
    const std::filesystem::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  static std::string slurp(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }
  // `drainsim ARGS` (a shell word list) run from the scratch directory.
  CliResult drainsim(const std::string& args) {
    return shell("'" + std::string(DRAINSIM_BINARY) + "' " + args);
  }
  // A shell command run from the scratch directory.
  CliResult shell(const std::string& command) {
    const std::string cmd = "cd '" + dir_.string() + "' && " + command + " > out.txt 2> err.txt";
    const int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir_ / "out.txt"),
            slurp(dir_ / "err.txt")};
  }

  std::filesystem::path dir_;
};

}  // namespace drainsim::test
