// Names: each enum's one table of spellings, shared by the scenario reader, the writers,
// the CLI and to_string. An enum takes part by declaring, next to itself, a constexpr
// function `names(E)` (found by argument-dependent lookup) that returns the spelling of
// every value in the enum's order, its values numbered from 0:
//
//   enum class Engine { kVirtual, kRealtime, kProcess };
//   constexpr std::array<std::string_view, 3> names(Engine) {
//     return {"virtual", "realtime", "process"};
//   }
//
// Messages list the choices in that order too.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace drainsim {

// The spelling of `value` (a literal: data() is NUL-terminated); "?" for a value past
// the table.
template <class E>
constexpr std::string_view name_of(E value) {
  const auto table = names(E{});
  const auto i = static_cast<std::size_t>(value);
  return i < table.size() ? table[i] : "?";
}

// The value spelled `name`; nullopt when none is.
template <class E>
constexpr std::optional<E> from_name(std::string_view name) {
  const auto table = names(E{});
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table[i] == name) return static_cast<E>(i);
  }
  return std::nullopt;
}

// Every value, in order.
template <class E>
std::vector<E> all_values() {
  std::vector<E> out;
  for (std::size_t i = 0; i < names(E{}).size(); ++i) out.push_back(static_cast<E>(i));
  return out;
}

// Every spelling, in order.
template <class E>
std::vector<std::string> all_names() {
  std::vector<std::string> out;
  for (std::string_view n : names(E{})) out.emplace_back(n);
  return out;
}

}  // namespace drainsim
