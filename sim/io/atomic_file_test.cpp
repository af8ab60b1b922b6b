#include "io/atomic_file.h"

#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace drainsim {
namespace {

namespace fs = std::filesystem;

class WriteWhole : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("drainsim-atomic-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "out.json").string();
    std::ofstream(path_) << "old";
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string content() const {
    std::ostringstream s;
    s << std::ifstream(path_).rdbuf();
    return s.str();
  }
  // Files in the folder but out.json: temporary files left behind.
  int leftovers() const {
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir_)) n += e.path().filename() != "out.json";
    return n;
  }
  static sighandler_t disposition(int signal) {
    struct sigaction old = {};
    sigaction(signal, nullptr, &old);
    return old.sa_handler;
  }

  fs::path dir_;
  std::string path_;
};

TEST_F(WriteWhole, ReplacesTheFileOnlyOnceWrittenAndRestoresTheSignals) {
  ASSERT_EQ(disposition(SIGINT), SIG_DFL);
  bool seen_old = false;
  EXPECT_TRUE(write_whole(path_, [&](std::ostream& f) {
    f << "new";
    seen_old = content() == "old";  // not replaced mid-write
  }));
  EXPECT_TRUE(seen_old);
  EXPECT_EQ(content(), "new");
  EXPECT_EQ(leftovers(), 0);
  EXPECT_EQ(disposition(SIGINT), SIG_DFL);
  EXPECT_EQ(disposition(SIGTERM), SIG_DFL);
}

TEST_F(WriteWhole, CtrlCDuringTheWriteEndsTheProcessWithoutLeavingItsTemporaryFile) {
  for (const int signal : {SIGINT, SIGTERM}) {
    EXPECT_EXIT(write_whole(path_,
                            [&](std::ostream& f) {
                              f << "half" << std::flush;
                              ::raise(signal);
                              f << "never";  // not reached: the signal ends the process
                            }),
                ::testing::KilledBySignal(signal), "")
        << signal;
    EXPECT_EQ(content(), "old") << signal;  // left as it was
    EXPECT_EQ(leftovers(), 0) << signal;    // and no PATH.tmp-PID beside it
  }
}

TEST_F(WriteWhole, LeavesASignalThatHasAHandlerOfItsOwnAlone) {
  // A command that stops cleanly (StopSignal) handles SIGINT itself; ignoring it stands in.
  const sighandler_t before = ::signal(SIGINT, SIG_IGN);
  EXPECT_TRUE(write_whole(path_, [&](std::ostream& f) {
    EXPECT_EQ(disposition(SIGINT), SIG_IGN);
    ::raise(SIGINT);  // ignored: the write goes on
    f << "whole";
  }));
  EXPECT_EQ(disposition(SIGINT), SIG_IGN);
  ::signal(SIGINT, before);
  EXPECT_EQ(content(), "whole");
  EXPECT_EQ(leftovers(), 0);
}

}  // namespace
}  // namespace drainsim
