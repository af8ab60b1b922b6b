#include "io/stats_json.h"

namespace drainsim {

nlohmann::json percentiles_json(const Percentiles& p) {
  if (p.count() == 0) return nullptr;
  return {
      {"p50", p.quantile(0.5)}, {"p99", p.quantile(0.99)}, {"max", p.max()}, {"count", p.count()}};
}

nlohmann::json interval_json(const Interval& v) {
  if (v.n == 0) {
    return {
        {"mean", nullptr}, {"half_width", nullptr}, {"low", nullptr}, {"high", nullptr}, {"n", 0}};
  }
  return {
      {"mean", v.mean}, {"half_width", v.half_width}, {"low", v.low}, {"high", v.high}, {"n", v.n}};
}

}  // namespace drainsim
