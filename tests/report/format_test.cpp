#include <catch2/catch.hpp>
#include <cstdint>
#include <iobench/format.hpp>

namespace iobench {
namespace {

TEST_CASE("format_duration picks the unit and keeps three significant digits", "[report]") {
  CHECK(format_duration(0) == "0 ns");
  CHECK(format_duration(812) == "812 ns");
  CHECK(format_duration(999) == "999 ns");
  CHECK(format_duration(1000) == "1.00 us");
  CHECK(format_duration(45'200) == "45.2 us");
  CHECK(format_duration(123'456) == "123 us");
  CHECK(format_duration(999'400) == "999 us");
  CHECK(format_duration(999'600) == "1.00 ms");
  CHECK(format_duration(1'500'000) == "1.50 ms");
  CHECK(format_duration(12'345'678'901) == "12.3 s");
  CHECK(format_duration(3'600'000'000'000) == "3600 s");
}

TEST_CASE("format_bytes uses binary units", "[report]") {
  CHECK(format_bytes(0) == "0 B");
  CHECK(format_bytes(1023) == "1023 B");
  CHECK(format_bytes(1024) == "1.00 KiB");
  CHECK(format_bytes(1536) == "1.50 KiB");
  CHECK(format_bytes(1010 * 1024) == "1010 KiB");
  CHECK(format_bytes(1024 * 1024 - 1) == "1.00 MiB");
  CHECK(format_bytes(64ULL << 30) == "64.0 GiB");
  CHECK(format_bytes(1'000'204'886'016) == "932 GiB");
  CHECK(format_bytes(UINT64_MAX) == "16.0 EiB");
}

TEST_CASE("csv_field quotes only when RFC 4180 needs it", "[report]") {
  CHECK(csv_field("") == "");
  CHECK(csv_field("plain text") == "plain text");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_field("two\nlines") == "\"two\nlines\"");
  CHECK(csv_field("cr\r") == "\"cr\r\"");
}

TEST_CASE("rate conversions state MB as 10^6 and MiB as 2^20 bytes", "[report]") {
  STATIC_REQUIRE(to_mb_per_s(169'510'000.0) == 169.51);
  STATIC_REQUIRE(to_mib_per_s(2.0 * 1048576.0) == 2.0);
  STATIC_REQUIRE(ns_to_us(44'717'000.0) == 44'717.0);
}

}  // namespace
}  // namespace iobench
