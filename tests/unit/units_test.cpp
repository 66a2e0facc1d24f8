#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <iobench/error.hpp>
#include <iobench/units.hpp>
#include <limits>
#include <string>

namespace {

using iobench::ConfigError;
using namespace std::chrono_literals;

struct SizeCase {
  const char* text;
  std::uint64_t bytes;
};

struct BadCase {
  const char* text;
  const char* reason;  // a part of the message that says what is wrong
};

// The whole message for `text`, which must throw ConfigError.
template <typename Parse>
std::string error_of(Parse parse, const std::string& text) {
  try {
    (void)parse(text);
  } catch (const ConfigError& e) {
    return e.what();
  }
  FAIL("no ConfigError for '" << text << "'");
  return {};
}

}  // namespace

TEST_CASE("parse_size reads plain numbers and every suffix", "[unit][units]") {
  const SizeCase cases[] = {
      {"0", 0},
      {"1", 1},
      {"4096", 4096},
      {"007", 7},
      {"4b", 4},
      {"4B", 4},
      {"4k", 4096},
      {"4K", 4096},
      {"4KiB", 4096},
      {"4kib", 4096},
      {"4KIB", 4096},
      {"1m", iobench::kMiB},
      {"1M", iobench::kMiB},
      {"3m", 3 * iobench::kMiB},
      {"2MiB", 2 * iobench::kMiB},
      {"2g", 2 * iobench::kGiB},
      {"1GiB", iobench::kGiB},
      {"1t", iobench::kTiB},
      {"1TiB", iobench::kTiB},
      {"1kB", 1000},
      {"1KB", 1000},
      {"1kb", 1000},
      {"1MB", 1'000'000},
      {"1GB", 1'000'000'000},
      {"1TB", 1'000'000'000'000},
      {"16777215t", 16777215ULL * iobench::kTiB},
      {"18446744073709551615", std::numeric_limits<std::uint64_t>::max()},
      {"17179869183g", 17179869183ULL * iobench::kGiB},
  };
  for (const SizeCase& c : cases) {
    INFO(c.text);
    CHECK(iobench::parse_size(c.text, "bs") == c.bytes);
  }
}

TEST_CASE("parse_size rejects bad sizes with the field the value and an example", "[unit][units]") {
  const BadCase cases[] = {
      {"", "empty"},
      {"-4k", "negative"},
      {"-0", "negative"},
      {"+4k", "sign"},
      {" 4k", "spaces"},
      {"4k ", "spaces"},
      {"4 k", "spaces"},
      {"1.5k", "fractions"},
      {"0.5", "fractions"},
      {"1,5m", "fractions"},
      {"4kk", "unknown suffix 'kk'"},
      {"4x", "unknown suffix 'x'"},
      {"4kbit", "unknown suffix 'kbit'"},
      {"4p", "unknown suffix 'p'"},
      {"k", "must start with a digit"},
      {"abc", "must start with a digit"},
      {"0x10", "unknown suffix 'x10'"},
      {"99999999999999999999", "too large"},
      {"18446744073709551616", "too large"},
      {"20000000000g", "too large"},
      {"17179869184g", "too large"},
      {"16777216t", "too large"},
  };
  for (const BadCase& c : cases) {
    const std::string message =
        error_of([](const std::string& t) { return iobench::parse_size(t, "bs"); }, c.text);
    INFO(message);
    CHECK(message.rfind(std::string("bs: '") + c.text + "' is not a size (", 0) == 0);
    CHECK(message.find(c.reason) != std::string::npos);
    CHECK(message.find("use e.g. 4k, 1m, 2GiB") != std::string::npos);
  }
}

TEST_CASE("parse_duration reads every unit and plain seconds", "[unit][units]") {
  CHECK(iobench::parse_duration("0", "time_limit") == 0ns);
  CHECK(iobench::parse_duration("10", "time_limit") == 10s);
  CHECK(iobench::parse_duration("30s", "time_limit") == 30s);
  CHECK(iobench::parse_duration("30S", "time_limit") == 30s);
  CHECK(iobench::parse_duration("500ms", "time_limit") == 500ms);
  CHECK(iobench::parse_duration("250us", "time_limit") == 250us);
  CHECK(iobench::parse_duration("100ns", "time_limit") == 100ns);
  CHECK(iobench::parse_duration("5m", "time_limit") == 5min);
  CHECK(iobench::parse_duration("5min", "time_limit") == 5min);
  CHECK(iobench::parse_duration("2h", "time_limit") == 2h);
  CHECK(iobench::parse_duration("9223372036854775807ns", "time_limit").count() ==
        std::numeric_limits<std::int64_t>::max());
  CHECK(iobench::parse_duration("9223372036s", "time_limit") == 9223372036s);
}

TEST_CASE("parse_duration rejects bad durations", "[unit][units]") {
  const BadCase cases[] = {
      {"", "empty"},
      {"-1s", "negative"},
      {"1.5s", "fractions"},
      {" 10s", "spaces"},
      {"10 s", "spaces"},
      {"10sec", "unknown suffix 'sec'"},
      {"10d", "unknown suffix 'd'"},
      {"s", "must start with a digit"},
      {"9223372036854775808ns", "too large"},
      {"9223372037s", "too large"},
      {"99999999999999999999", "too large"},
      {"3000000h", "too large"},
  };
  for (const BadCase& c : cases) {
    const std::string message = error_of(
        [](const std::string& t) { return iobench::parse_duration(t, "time_limit"); }, c.text);
    INFO(message);
    CHECK(message.rfind(std::string("time_limit: '") + c.text + "' is not a duration (", 0) == 0);
    CHECK(message.find(c.reason) != std::string::npos);
    CHECK(message.find("use e.g. 10s, 500ms, 2m") != std::string::npos);
  }
}

TEST_CASE("parse_bool reads every spelling in any case", "[unit][units]") {
  for (const char* yes : {"true", "TRUE", "True", "yes", "Yes", "on", "ON", "1"}) {
    INFO(yes);
    CHECK(iobench::parse_bool(yes, "prime"));
  }
  for (const char* no : {"false", "FALSE", "no", "NO", "off", "Off", "0"}) {
    INFO(no);
    CHECK_FALSE(iobench::parse_bool(no, "prime"));
  }
  for (const char* bad : {"", "2", "y", "n", "tru", " true", "true ", "enable", "-1"}) {
    const std::string message =
        error_of([](const std::string& t) { return iobench::parse_bool(t, "prime"); }, bad);
    INFO(message);
    CHECK(message == std::string("prime: '") + bad +
                         "' is not a boolean; use true or false (also yes/no, on/off, 1/0)");
  }
}

TEST_CASE("parse_int reads signed integers and rejects junk and overflow", "[unit][units]") {
  CHECK(iobench::parse_int("0", "n") == 0);
  CHECK(iobench::parse_int("42", "n") == 42);
  CHECK(iobench::parse_int("+42", "n") == 42);
  CHECK(iobench::parse_int("-7", "n") == -7);
  CHECK(iobench::parse_int("9223372036854775807", "n") == std::numeric_limits<std::int64_t>::max());
  CHECK(iobench::parse_int("-9223372036854775808", "n") ==
        std::numeric_limits<std::int64_t>::min());
  const BadCase cases[] = {
      {"", "empty"},
      {"4k", "not an integer"},
      {"1.5", "not an integer"},
      {" 1", "not an integer"},
      {"1 ", "not an integer"},
      {"+-5", "not an integer"},
      {"-", "not an integer"},
      {"+", "not an integer"},
      {"--5", "not an integer"},
      {"abc", "not an integer"},
      {"9223372036854775808", "out of range"},
      {"-9223372036854775809", "out of range"},
  };
  for (const BadCase& c : cases) {
    const std::string message =
        error_of([](const std::string& t) { return iobench::parse_int(t, "n"); }, c.text);
    INFO(message);
    CHECK(message.rfind(std::string("n: '") + c.text + "' is not an integer", 0) == 0);
    CHECK(message.find(c.reason) != std::string::npos);
    CHECK(message.find("use e.g.") != std::string::npos);
  }
}

TEST_CASE("parse_double reads finite numbers and rejects the rest", "[unit][units]") {
  CHECK(iobench::parse_double("0", "ratio") == 0.0);
  CHECK(iobench::parse_double("0.5", "ratio") == 0.5);
  CHECK(iobench::parse_double(".25", "ratio") == 0.25);
  CHECK(iobench::parse_double("+2", "ratio") == 2.0);
  CHECK(iobench::parse_double("-1.5", "ratio") == -1.5);
  CHECK(iobench::parse_double("1e-3", "ratio") == 1e-3);
  CHECK(iobench::parse_double("2.5E2", "ratio") == 250.0);
  for (const char* bad : {"", "nan", "inf", "-inf", "infinity", "1e999", "0x10", "1.5x", " 1", "1 ",
                          "+-1", "e5", "1e", "-", "."}) {
    const std::string message =
        error_of([](const std::string& t) { return iobench::parse_double(t, "ratio"); }, bad);
    INFO(message);
    CHECK(message.rfind(std::string("ratio: '") + bad + "' is not a number", 0) == 0);
    CHECK(message.find("use e.g. 0.5, 2, 1e-3") != std::string::npos);
  }
}
