#include "plugins/disk/block_distribution.hpp"

#include <fmt/format.h>

#include <charconv>
#include <iobench/error.hpp>

namespace iobench::plugins::disk {
namespace {

[[noreturn]] void bad(std::string_view param, std::string_view text, std::string_view why) {
  throw ConfigError(fmt::format(
      "{}: '{}' {}; give permutation, uniform, zipf:THETA (theta > 0, e.g. zipf:1.2) or "
      "pareto:H (0 < h < 1, e.g. pareto:0.2 for 80 % of the ops on 20 % of the blocks)",
      param, text, why));
}

}  // namespace

std::string BlockDistribution::to_string() const {
  switch (kind) {
    case Kind::kPermutation:
      return "permutation";
    case Kind::kUniform:
      return "uniform";
    case Kind::kZipf:
      return fmt::format("zipf:{}", parameter);
    case Kind::kPareto:
      return fmt::format("pareto:{}", parameter);
  }
  return "permutation";
}

BlockDistribution BlockDistribution::parse(std::string_view text, std::string_view param) {
  if (text == "permutation") return {Kind::kPermutation, 0};
  if (text == "uniform") return {Kind::kUniform, 0};
  const std::size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  if (name != "zipf" && name != "pareto") bad(param, text, "is not a block distribution");
  if (colon == std::string_view::npos) bad(param, text, "has no parameter");
  const std::string_view number = text.substr(colon + 1);
  double value = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size() || !std::isfinite(value)) {
    bad(param, text, "has no valid number after ':'");
  }
  if (name == "zipf") {
    if (value <= 0) bad(param, text, "needs theta > 0");
    return {Kind::kZipf, value};
  }
  if (value <= 0 || value >= 1) bad(param, text, "needs 0 < h < 1");
  return {Kind::kPareto, value};
}

}  // namespace iobench::plugins::disk
