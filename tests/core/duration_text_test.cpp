// The one duration formatter's two styles: the readable text reports and messages print, and the
// exact text --time/--warmup become in a workload's duration params.
#include "util/duration_text.hpp"

#include <catch2/catch.hpp>
#include <iobench/format.hpp>
#include <iobench/units.hpp>

using iobench::detail::DurationStyle;
using iobench::detail::format_duration;

TEST_CASE("format_duration readable style picks the unit with three significant digits",
          "[core][duration]") {
  CHECK(format_duration(0, DurationStyle::kReadable) == "0 ns");
  CHECK(format_duration(812, DurationStyle::kReadable) == "812 ns");
  CHECK(format_duration(45'200, DurationStyle::kReadable) == "45.2 us");
  CHECK(format_duration(999'600, DurationStyle::kReadable) == "1.00 ms");
  CHECK(format_duration(1'500'000, DurationStyle::kReadable) == "1.50 ms");
  CHECK(format_duration(12'345'678'901, DurationStyle::kReadable) == "12.3 s");
  CHECK(format_duration(3'600'000'000'000, DurationStyle::kReadable) == "3600 s");
  // The public format_duration is this style.
  CHECK(iobench::format_duration(45'200) == format_duration(45'200, DurationStyle::kReadable));
}

TEST_CASE("format_duration exact style writes the largest unit that divides", "[core][duration]") {
  CHECK(format_duration(0, DurationStyle::kExact) == "0s");
  CHECK(format_duration(7, DurationStyle::kExact) == "7ns");
  CHECK(format_duration(45'000, DurationStyle::kExact) == "45us");
  CHECK(format_duration(1'500'000'000, DurationStyle::kExact) == "1500ms");
  CHECK(format_duration(90'000'000'000, DurationStyle::kExact) == "90s");
  CHECK(format_duration(120'000'000'000, DurationStyle::kExact) == "2m");
  CHECK(format_duration(7'200'000'000'000, DurationStyle::kExact) == "2h");
  CHECK(format_duration(1'000'000'001, DurationStyle::kExact) == "1000000001ns");
  for (const std::uint64_t ns : {1ULL, 1'500'000'000ULL, 7'200'000'000'000ULL, 123'456'789ULL}) {
    CHECK(iobench::parse_duration(format_duration(ns, DurationStyle::kExact), "x").count() ==
          static_cast<std::int64_t>(ns));
  }
}
