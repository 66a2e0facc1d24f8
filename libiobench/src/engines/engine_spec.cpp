#include <fmt/format.h>

#include <algorithm>
#include <iobench/engine.hpp>
#include <iobench/error.hpp>

namespace iobench {

bool EngineSpec::has(std::string_view option) const noexcept {
  return std::binary_search(options.begin(), options.end(), option);
}

std::string EngineSpec::to_string() const {
  return options.empty() ? name : fmt::format("{}:{}", name, fmt::join(options, ","));
}

EngineSpec EngineSpec::parse(std::string_view text) {
  EngineSpec spec;
  const std::size_t colon = text.find(':');
  spec.name = std::string(text.substr(0, colon));
  if (spec.name.empty()) {
    throw ConfigError(fmt::format(
        "engine '{}' has no name; give e.g. psync, io_uring or io_uring:fixedbufs", text));
  }
  if (colon == std::string_view::npos) return spec;
  std::string_view rest = text.substr(colon + 1);
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view option = rest.substr(0, comma);
    if (option.empty()) {
      throw ConfigError(fmt::format(
          "engine '{}' has an empty option; separate options by single commas, e.g. "
          "io_uring:fixedbufs,sqpoll",
          text));
    }
    spec.options.emplace_back(option);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  std::sort(spec.options.begin(), spec.options.end());
  if (const auto dup = std::adjacent_find(spec.options.begin(), spec.options.end());
      dup != spec.options.end()) {
    throw ConfigError(fmt::format("engine '{}' names option '{}' twice", text, *dup));
  }
  return spec;
}

}  // namespace iobench
