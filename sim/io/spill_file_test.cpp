#include "io/spill_file.h"

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace drainsim {
namespace {

// The pieces read() gives.
std::vector<std::string> pieces(const SpillFile& f) {
  std::vector<std::string> out;
  f.read([&](std::string_view piece) { out.emplace_back(piece); });
  return out;
}

// Sets TMPDIR for the scope of one test.
class TempDir {
 public:
  explicit TempDir(const char* dir) {
    if (const char* old = std::getenv("TMPDIR")) old_ = old;
    setenv("TMPDIR", dir, 1);
  }
  ~TempDir() {
    if (old_) {
      setenv("TMPDIR", old_->c_str(), 1);
    } else {
      unsetenv("TMPDIR");
    }
  }

 private:
  std::optional<std::string> old_;
};

TEST(SpillFile, ReadsBackWhatWasAppendedInBufferSizedPieces) {
  // A 512-byte buffer and 1,300 bytes: two buffers go to the file, 276 bytes stay in the
  // buffer, and read() gives 512 + 512 from the file, then the 276.
  SpillFile f(512);
  std::string all;
  for (int i = 0; all.size() < 1300; ++i) {
    std::string line = "row " + std::to_string(i) + ";";
    line.resize(std::min<std::size_t>(line.size(), 1300 - all.size()));
    f.append(line);
    all += line;
  }
  ASSERT_EQ(all.size(), 1300u);
  EXPECT_EQ(f.size(), 1300u);
  const std::vector<std::string> got = pieces(f);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].size(), 512u);
  EXPECT_EQ(got[1].size(), 512u);
  EXPECT_EQ(got[2].size(), 276u);
  EXPECT_EQ(got[0] + got[1] + got[2], all);
  EXPECT_EQ(pieces(f), got);  // read again: the same
}

TEST(SpillFile, ReserveAndCommitWriteInPlaceAndMoveOnWhenFull) {
  // 600 bytes in rows of 100 through a 512-byte buffer: the sixth row does not fit after
  // five (500 bytes), so the five go to the file first and the sixth starts the buffer.
  SpillFile f(512);
  std::string all;
  for (char c = 'a'; c < 'a' + 6; ++c) {
    char* p = f.reserve(100);
    for (int i = 0; i < 99; ++i) *p++ = c;
    *p++ = '\n';
    f.commit(p);
    all += std::string(99, c) + "\n";
  }
  const std::vector<std::string> got = pieces(f);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], all.substr(0, 500));
  EXPECT_EQ(got[1], all.substr(500));
}

TEST(SpillFile, ReadAndReleaseReadsTheSameBytesOnceThenNothingMore) {
  // 1,300 bytes through 512: 1,024 in the file, each piece given back once taken.
  SpillFile f(512);
  std::string all;
  for (int i = 0; i < 1300; ++i) all += static_cast<char>('a' + i % 26);
  f.append(all);
  const std::vector<std::string> kept = pieces(f);
  std::vector<std::string> released;
  f.read_and_release([&](std::string_view piece) { released.emplace_back(piece); });
  EXPECT_EQ(released, kept);
  EXPECT_THROW(pieces(f), std::logic_error);
  EXPECT_THROW(f.append("x"), std::logic_error);
}

TEST(SpillFile, EmptyReadsNothing) {
  SpillFile f;
  EXPECT_EQ(f.size(), 0u);
  EXPECT_TRUE(pieces(f).empty());
}

TEST(SpillFile, MakesItsFileOnlyOnceTheBufferFillsAndSaysWhereItCouldNot) {
  const TempDir missing("/nonexistent-drainsim-spill");
  SpillFile small(512);
  small.append(std::string(512, 'x'));  // fills the buffer: no file yet
  EXPECT_EQ(pieces(small), std::vector<std::string>{std::string(512, 'x')});
  SpillFile big(512);
  big.append(std::string(513, 'x'));  // one byte more: the buffer must go to a file
  EXPECT_EQ(big.size(), 513u);
  try {
    pieces(big);
    FAIL() << "read() should throw";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot make a temporary file in /nonexistent-drainsim-spill: No such file or "
              "directory");
  }
}

}  // namespace
}  // namespace drainsim
