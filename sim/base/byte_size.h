// Amounts of memory as people write them: "512M", "12G", "1.5GiB", "4096". Units are
// powers of 1024 whatever the spelling (K, KB, KiB; M, MB, MiB; G, GB, GiB; T, TB, TiB),
// as `free -g`, Docker and Kubernetes users expect of "G"; a bare number is bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace drainsim {

inline constexpr std::uint64_t kKiB = 1024;
inline constexpr std::uint64_t kMiB = 1024 * kKiB;
inline constexpr std::uint64_t kGiB = 1024 * kMiB;
inline constexpr std::uint64_t kTiB = 1024 * kGiB;

// The bytes `text` names, rounded down to a whole byte; nullopt for anything else:
// negative or non-finite numbers, unknown units, spaces, or more than 2^63 bytes.
std::optional<std::uint64_t> parse_byte_size(std::string_view text);

// Three significant digits at most, in the largest unit that keeps the number >= 1:
// 38 GiB, 1.5 MiB, 512 B, 9.77 KiB.
std::string format_byte_size(double bytes);

}  // namespace drainsim
