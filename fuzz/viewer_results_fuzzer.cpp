// The viewer's reader (viewer/reader/results_reader.h): results, sweep and compare files,
// its timeline tables streamed. Loading never throws: any bytes give a document or an
// error message.
#include <string_view>

#include "fuzz_target.h"
#include "reader/results_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const drainsim::viewer::Document d = drainsim::viewer::parse_document(text, "fuzz.json");
  const int kinds = (d.run ? 1 : 0) + (d.sweep ? 1 : 0) + (d.comparison ? 1 : 0);
  if (d.ok() ? kinds != 1 : kinds != 0) {
    drainsim::fuzz::fail("parse_document: not exactly one of run, sweep, comparison or error");
  }
  return 0;
}
