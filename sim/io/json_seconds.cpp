#include "io/json_seconds.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>

#include <nlohmann/json.hpp>

namespace drainsim {

namespace {

// The decimal t / 10^6 itself ("3654.032152", "2.0", "0.0015"), as nlohmann lays out
// digits between 10^-4 and 10^15. REQUIRES: 1000 <= t.
char* write_decimal(char* p, std::uint64_t t) {
  const std::uint64_t whole = t / 1'000'000;
  std::uint32_t frac = static_cast<std::uint32_t>(t % 1'000'000);
  p = std::to_chars(p, p + 20, whole).ptr;
  *p++ = '.';
  if (frac == 0) {
    *p++ = '0';
    return p;
  }
  int digits = 6;
  while (frac % 10 == 0) {
    frac /= 10;
    --digits;
  }
  for (int i = digits - 1; i >= 0; --i) {
    p[i] = static_cast<char>('0' + frac % 10);
    frac /= 10;
  }
  return p + digits;
}

// Whether Grisu2 gives to_seconds(t) the digits of t / 10^6. That decimal d reads back as
// v = to_seconds(t) (v is the double nearest it), and no other decimal with as few digits
// comes within 10^-6 of it, far wider than v's rounding interval (ulp(v) <= 2^-22 s below
// 2^31 s, which t < 2^50 keeps v under): d is the shortest number in that interval. Grisu2 returns
// the shortest number in the interval narrowed by its 64-bit arithmetic's error (at most 2^-61 of v
// on each side), so it returns d whenever d lies inside the interval by more than that. We ask for
// an eighth of the half-interval (at least 2^-58 of v): about seven times in eight. REQUIRES: 1000
// <= t < 2^50.
bool grisu_gives_decimal(Time t) {
  const double v = to_seconds(t);
  const double product = v * 1e6;
  const double error = std::fma(v, 1e6, -product);  // v * 10^6 = product + error, exactly
  const double off = (static_cast<double>(t) - product) - error;  // (d - v) * 10^6
  const auto bits = std::bit_cast<std::uint64_t>(v);
  const std::uint64_t exponent = bits >> 52;  // v is positive and normal
  const double ulp = std::bit_cast<double>((exponent - 52) << 52);
  // Below a power of two the next double down is half an ulp away.
  const bool power_of_two = (bits & ((std::uint64_t{1} << 52) - 1)) == 0;
  const double gap = off < 0 && power_of_two ? ulp / 2 : ulp;
  return std::abs(off) <= gap / 2 * 1e6 * 0.875;
}

}  // namespace

char* write_json_seconds(char* p, Time t) {
  if (t >= 1000 && t < (Time{1} << 50) && grisu_gives_decimal(t)) {
    return write_decimal(p, static_cast<std::uint64_t>(t));
  }
  // What nlohmann's serializer does with a finite double.
  return nlohmann::detail::to_chars(p, p + kMaxJsonSeconds, to_seconds(t));
}

}  // namespace drainsim
