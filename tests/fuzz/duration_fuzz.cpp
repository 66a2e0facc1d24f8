// Fuzz target: durations ("30s", "500ms", "2h", "10"), as --time, --warmup, suite "pause"/"time"
// and duration params read them.
//
// Invariants: never negative; format_duration's text (what validate and reports print) and the
// plain nanosecond count both parse back to the same duration; suffixes are case-insensitive;
// only ConfigError is thrown, with a message naming the field.
#include <cctype>
#include <chrono>
#include <iobench/error.hpp>
#include <iobench/params.hpp>
#include <iobench/units.hpp>
#include <optional>
#include <string>

#include "tests/fuzz/fuzz_check.hpp"
#include "util/duration_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = iobench::fuzz::as_text(data, size);
  std::optional<std::chrono::nanoseconds> parsed;
  try {
    parsed = iobench::parse_duration(text, "--time");
  } catch (const iobench::ConfigError& e) {
    FUZZ_CHECK(std::string_view(e.what()).starts_with("--time: "), e.what());
    return 0;
  }
  const auto ns = parsed->count();
  FUZZ_CHECK(ns >= 0, text);
  const std::string printed = iobench::detail::format_duration(
      static_cast<std::uint64_t>(ns), iobench::detail::DurationStyle::kExact);
  FUZZ_CHECK(iobench::parse_duration(printed, "x").count() == ns, printed);
  const std::string in_ns = std::to_string(ns) + "ns";
  FUZZ_CHECK(iobench::parse_duration(in_ns, "x").count() == ns, in_ns);
  std::string upper(text);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  FUZZ_CHECK(iobench::parse_duration(upper, "x").count() == ns, upper);

  // As a duration param with bounds: accepted exactly when within them.
  static const std::vector<iobench::ParamSpec> specs{{.key = "time_limit",
                                                      .type = iobench::ParamType::kDuration,
                                                      .min = 1'000'000,
                                                      .max = 3'600'000'000'000}};
  bool accepted = true;
  try {
    const auto params = iobench::Params::validate(specs, {{"time_limit", std::string(text)}}, "");
    FUZZ_CHECK(params.get_duration("time_limit").count() == ns, text);
  } catch (const iobench::ConfigError&) {
    accepted = false;
  }
  FUZZ_CHECK(accepted == (ns >= 1'000'000 && ns <= 3'600'000'000'000), text);
  return 0;
}
