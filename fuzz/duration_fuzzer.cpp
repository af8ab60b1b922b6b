// The duration parser (base/duration.h): any text gives a duration or nullopt, and what it
// accepts, format_duration writes back in a form that parses to the same microseconds.
#include <string>
#include <string_view>

#include "base/duration.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::optional<drainsim::Duration> d = drainsim::parse_duration(text);
  if (!d) return 0;
  if (*d < 0) drainsim::fuzz::fail("parse_duration gave a negative duration");
  const std::string again = drainsim::format_duration(*d);
  const std::optional<drainsim::Duration> back = drainsim::parse_duration(again);
  if (!back || *back != *d) drainsim::fuzz::fail("format_duration does not parse back the same");
  (void)drainsim::format_grace(*d);
  return 0;
}
