// Names: each enum's one table of spellings, shared by the scenario reader, the writers,
// the CLI and to_string. An enum takes part by declaring, next to itself, a constexpr
// function `names(E)` that returns its table (found by argument-dependent lookup):
//
//   inline constexpr std::array<Named<Engine>, 3> kEngineNames{{
//       {Engine::kVirtual, "virtual"}, {Engine::kRealtime, "realtime"}, ...}};
//   constexpr const auto& names(Engine) { return kEngineNames; }
//
// A table lists every value once, in the order messages list the choices.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace drainsim {

template <class E>
struct Named {
  E value;
  std::string_view name;  // a literal: data() is NUL-terminated
};

// The spelling of `value`; "?" for a value its table does not list.
template <class E>
constexpr std::string_view name_of(E value) {
  for (const Named<E>& n : names(E{})) {
    if (n.value == value) return n.name;
  }
  return "?";
}

// The value spelled `name`; nullopt when none is.
template <class E>
constexpr std::optional<E> from_name(std::string_view name) {
  for (const Named<E>& n : names(E{})) {
    if (n.name == name) return n.value;
  }
  return std::nullopt;
}

// Every spelling, in the table's order.
template <class E>
std::vector<std::string> all_names() {
  std::vector<std::string> out;
  for (const Named<E>& n : names(E{})) out.emplace_back(n.name);
  return out;
}

}  // namespace drainsim
