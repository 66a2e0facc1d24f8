// Fuzz target: the short specs a step names its I/O with: engine specs ("io_uring:fixedbufs,
// sqpoll", --engine and a suite step's "engine"), the disk workload's block distribution
// (random_order "zipf:1.2", "pareto:0.2") and open-loop arrivals ("uniform", "poisson").
//
// Invariants: only ConfigError is thrown, naming the text; an engine spec has a non-empty name
// and sorted, distinct, non-empty options, and the text results record for it (to_string)
// parses to the same spec; a block distribution has its documented parameter range and its
// to_string() parses back exactly; arrivals print back as the text they came from.
#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <iobench/rate_pacer.hpp>
#include <optional>
#include <string>

#include "plugins/disk/block_distribution.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

template <typename Parse>
auto try_parse(Parse parse) -> std::optional<decltype(parse())> {
  try {
    return parse();
  } catch (const iobench::ConfigError& e) {
    FUZZ_CHECK(*e.what() != '\0', "empty message");
    return std::nullopt;
  }
}

void check_engine(std::string_view text) {
  const auto spec = try_parse([&] { return iobench::EngineSpec::parse(text); });
  if (!spec) return;
  FUZZ_CHECK(!spec->name.empty() && spec->name.find(':') == std::string::npos, text);
  for (std::size_t i = 0; i < spec->options.size(); ++i) {
    FUZZ_CHECK(!spec->options[i].empty() && spec->options[i].find(',') == std::string::npos, text);
    FUZZ_CHECK(i == 0 || spec->options[i - 1] < spec->options[i], text);
    FUZZ_CHECK(spec->has(spec->options[i]), text);
  }
  const std::string recorded = spec->to_string();
  const iobench::EngineSpec again = iobench::EngineSpec::parse(recorded);
  FUZZ_CHECK(again.name == spec->name && again.options == spec->options, recorded);
}

void check_distribution(std::string_view text) {
  using iobench::plugins::disk::BlockDistribution;
  const auto d = try_parse([&] { return BlockDistribution::parse(text, "random_order"); });
  if (!d) return;
  if (d->kind == BlockDistribution::Kind::kZipf) FUZZ_CHECK(d->parameter > 0, text);
  if (d->kind == BlockDistribution::Kind::kPareto) {
    FUZZ_CHECK(d->parameter > 0 && d->parameter < 1, text);
  }
  const std::string printed = d->to_string();
  const BlockDistribution again = BlockDistribution::parse(printed, "random_order");
  FUZZ_CHECK(again.kind == d->kind && again.parameter == d->parameter, printed);
}

void check_arrivals(std::string_view text) {
  const auto arrivals = try_parse([&] { return iobench::parse_arrivals(text, "arrivals"); });
  if (arrivals) FUZZ_CHECK(iobench::to_string(*arrivals) == text, text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = iobench::fuzz::as_text(data, size);
  check_engine(text);
  check_distribution(text);
  check_arrivals(text);
  return 0;
}
