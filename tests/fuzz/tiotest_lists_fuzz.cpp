// Fuzz target: tiotest's and tiobench's list params (threads "1,2,4,8", skip "write,3") and the
// sweep phase names its report reads back ("Random Read size=256M bs=4096 threads=8 run=2").
// Size lists (block_sizes, sizes) are ParamType::kSizeList, fuzzed with every param (params).
//
// Invariants: only ConfigError is thrown, naming the param; a thread list has at least one entry
// and no zero, and its entries printed back as a comma list parse to the same list;
// a skip list printed back as names skips the same phases; a sweep phase name rebuilt from the
// fields it parses to parses to the same fields.
#include <fmt/format.h>

#include <iobench/error.hpp>
#include <optional>
#include <string>
#include <vector>

#include "plugins/tiotest/tiobench_sweep.hpp"
#include "plugins/tiotest/tiotest_config.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace tiotest = iobench::plugins::tiotest;

template <typename Parse>
auto try_parse(Parse parse, std::string_view field) -> std::optional<decltype(parse())> {
  try {
    return parse();
  } catch (const iobench::ConfigError& e) {
    FUZZ_CHECK(std::string_view(e.what()).starts_with(field), e.what());
    return std::nullopt;
  }
}

std::string joined(const std::vector<std::uint64_t>& values) {
  std::string out;
  for (const std::uint64_t v : values) {
    if (!out.empty()) out += ",";
    out += fmt::format("{}", v);
  }
  return out;
}

void check_lists(std::string_view text) {
  const auto counts =
      try_parse([&] { return tiotest::parse_count_list(text, "threads"); }, "threads");
  if (!counts) return;
  FUZZ_CHECK(!counts->empty(), text);
  for (const std::uint64_t v : *counts) FUZZ_CHECK(v > 0, text);
  FUZZ_CHECK(tiotest::parse_count_list(joined(*counts), "threads") == *counts, text);
}

void check_skip(std::string_view text) {
  const auto run = try_parse([&] { return tiotest::parse_skip_list(text, "skip"); }, "skip");
  if (!run) return;
  std::string skipped;
  for (const tiotest::PhaseKind kind : tiotest::kAllPhaseKinds) {
    if ((*run)[tiotest::index_of(kind)]) continue;
    if (!skipped.empty()) skipped += ",";
    skipped += tiotest::terse_key(kind);
  }
  FUZZ_CHECK(tiotest::parse_skip_list(skipped, "skip") == *run, skipped);
}

void check_sweep_name(std::string_view text) {
  const auto name = tiotest::parse_sweep_phase_name(text);
  if (!name) return;
  const std::string rebuilt = std::string(tiotest::phase_label(name->kind)) +
                              tiotest::sweep_suffix(name->point, name->repetition);
  const auto again = tiotest::parse_sweep_phase_name(rebuilt);
  FUZZ_CHECK(again && again->kind == name->kind && again->point == name->point &&
                 again->repetition == name->repetition,
             rebuilt);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = iobench::fuzz::as_text(data, size);
  check_lists(text);
  check_skip(text);
  check_sweep_name(text);
  return 0;
}
