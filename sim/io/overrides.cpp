#include "io/overrides.h"

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace drainsim {

using json = nlohmann::json;

namespace {

// "a.b[2].c" as steps: a key, then the item indexes that follow it. nullopt if malformed.
struct Step {
  std::string key;
  std::vector<std::size_t> indexes;
};

std::optional<std::vector<Step>> parse_path(std::string_view path) {
  std::vector<Step> steps;
  while (true) {
    const std::size_t dot = path.find('.');
    std::string_view part = path.substr(0, dot);
    const std::size_t bracket = part.find('[');
    Step step{std::string(part.substr(0, bracket)), {}};
    if (step.key.empty()) return std::nullopt;
    part.remove_prefix(bracket == std::string_view::npos ? part.size() : bracket);
    while (!part.empty()) {
      const std::size_t close = part.find(']');
      if (part[0] != '[' || close == std::string_view::npos || close == 1 || close > 10) {
        return std::nullopt;
      }
      std::size_t index = 0;
      for (char ch : part.substr(1, close - 1)) {
        if (ch < '0' || ch > '9') return std::nullopt;
        index = index * 10 + static_cast<std::size_t>(ch - '0');
      }
      step.indexes.push_back(index);
      part.remove_prefix(close + 1);
    }
    steps.push_back(std::move(step));
    if (dot == std::string_view::npos) return steps;
    path.remove_prefix(dot + 1);
  }
}

}  // namespace

void apply_override(json& root, const std::string& text, Context& c) {
  const std::size_t eq = text.find('=');
  const auto steps =
      eq == std::string::npos ? std::nullopt : parse_path(std::string_view(text).substr(0, eq));
  if (!steps) throw InputError(fmt::format("--set {}: expected PATH=VALUE", text.substr(0, 80)));
  std::string path;
  for (const Step& step : *steps) {
    path += fmt::format("{}{}", path.empty() ? "" : ".", step.key);
    for (std::size_t i : step.indexes) path += fmt::format("[{}]", i);
  }
  // Messages show the override as given, cut when long.
  const std::string shown = text.size() > 80 ? text.substr(0, 77) + "..." : text;
  c.add_override(path, shown);

  const std::string value_text = text.substr(eq + 1);
  ParsedJson parsed = try_parse_json(value_text);
  if (parsed.too_deep) throw InputError(fmt::format("--set {}: {}", shown, parsed.error));
  json value = parsed.value ? std::move(*parsed.value) : json(value_text);

  json* node = &root;
  std::string at;
  for (const Step& step : *steps) {
    if (node->is_null()) *node = json::object();
    if (!node->is_object()) {
      c.expected(at, fmt::format("an object to set \"{}\" in", step.key), *node);
    }
    at += fmt::format("{}{}", at.empty() ? "" : ".", step.key);
    node = &(*node)[step.key];
    for (std::size_t i : step.indexes) {
      if (!node->is_array() || i >= node->size()) {
        c.fail(fmt::format("{}[{}]", at, i), fmt::format("no such item to set, {} has {}", at,
                                                         node->is_array() ? node->size() : 0));
      }
      at += fmt::format("[{}]", i);
      node = &(*node)[i];
    }
  }
  *node = std::move(value);
}

}  // namespace drainsim
