// The entry every fuzz target defines (libFuzzer's): run one input through a reader and
// return 0. A target crashes (abort, a signal, a sanitizer report, an uncaught
// exception) only on a bug: an input the reader does not handle as its contract says.
// Built two ways (fuzz/CMakeLists.txt): with libFuzzer (clang, DRAINSIM_FUZZ=ON), and with
// replay_main.cpp as a plain program that runs the files it is given, for ctest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace drainsim::fuzz {

// A property of the reader does not hold: say which and abort (a finding).
[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "fuzz target: %s\n", what);
  std::abort();
}

}  // namespace drainsim::fuzz
