#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <iobench/error.hpp>
#include <iobench/params.hpp>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using iobench::ConfigError;
using iobench::Params;
using iobench::ParamSpec;
using iobench::ParamType;
using Raw = std::map<std::string, std::string>;
using namespace std::chrono_literals;

// ParamSpec field by field (designated initialisers that skip members warn with -Wextra).
ParamSpec spec(std::string key, ParamType type, std::string default_value, std::string unit,
               std::string help) {
  ParamSpec s;
  s.key = std::move(key);
  s.type = type;
  s.default_value = std::move(default_value);
  s.unit = std::move(unit);
  s.help = std::move(help);
  return s;
}

ParamSpec with_range(ParamSpec s, std::optional<std::uint64_t> min,
                     std::optional<std::uint64_t> max) {
  s.min = min;
  s.max = max;
  return s;
}

ParamSpec with_choices(ParamSpec s, std::vector<std::string> choices) {
  s.choices = std::move(choices);
  return s;
}

// A parameter set shaped like the disk workload's, plus one of every other type.
std::vector<ParamSpec> disk_like_specs() {
  return {
      with_choices(spec("operation", ParamType::kEnum, "write", "", "read or write"),
                   {"read", "write"}),
      with_range(spec("bs", ParamType::kSize, "1m", "bytes", "block size"), 1, 1ULL << 30),
      with_range(spec("blocks", ParamType::kCount, "", "blocks", "blocks per target"), 1, {}),
      with_choices(spec("seek", ParamType::kEnum, "sequential", "", "access order"),
                   {"sequential", "random"}),
      with_range(spec("iterations", ParamType::kCount, "1", "passes", "passes over the data"), 1,
                 1000),
      spec("prime", ParamType::kBool, "false", "", "read the working set untimed first"),
      with_range(spec("status_interval", ParamType::kDuration, "5s", "s", "status line period"),
                 1'000'000, 3600ULL * 1'000'000'000ULL),
      spec("skip", ParamType::kCount, "0", "blocks", "blocks to skip"),
      with_range(spec("nice", ParamType::kInt, "0", "", "niceness offset"), 0, 19),
      spec("ratio", ParamType::kDouble, "0.5", "", "read share"),
      spec("label", ParamType::kString, "", "", "free text"),
  };
}

std::string error_of(const Raw& raw, const std::vector<ParamSpec>& specs = disk_like_specs()) {
  try {
    (void)Params::validate(specs, raw, "disk");
  } catch (const ConfigError& e) {
    return e.what();
  }
  FAIL("no ConfigError");
  return {};
}

}  // namespace

TEST_CASE("params take defaults when nothing is given", "[unit][params]") {
  const auto specs = disk_like_specs();
  const Params p = Params::validate(specs, {}, "disk");
  CHECK(p.get_string("operation") == "write");
  CHECK(p.get_u64("bs") == 1024 * 1024);
  CHECK(p.get_string("bs") == "1m");
  CHECK_FALSE(p.has("blocks"));
  CHECK_FALSE(p.given("blocks"));
  CHECK(p.get_string("seek") == "sequential");
  CHECK(p.get_u64("iterations") == 1);
  CHECK_FALSE(p.get_bool("prime"));
  CHECK(p.get_duration("status_interval") == 5s);
  CHECK(p.get_u64("skip") == 0);
  CHECK(p.get_int("nice") == 0);
  CHECK(p.get_double("ratio") == 0.5);
  CHECK_FALSE(p.has("label"));
  for (const char* key : {"operation", "bs", "seek", "iterations", "prime", "status_interval"}) {
    INFO(key);
    CHECK(p.has(key));
    CHECK_FALSE(p.given(key));
  }
  const std::map<std::string, std::string> expected{
      {"bs", "1m"},           {"iterations", "1"}, {"nice", "0"},
      {"operation", "write"}, {"prime", "false"},  {"ratio", "0.5"},
      {"seek", "sequential"}, {"skip", "0"},       {"status_interval", "5s"}};
  CHECK(p.as_text() == expected);
}

TEST_CASE("params parse given values of every type", "[unit][params]") {
  const auto specs = disk_like_specs();
  const Params p = Params::validate(specs,
                                    {{"operation", "read"},
                                     {"bs", "4KiB"},
                                     {"blocks", "3m"},
                                     {"seek", "random"},
                                     {"iterations", "12"},
                                     {"prime", "yes"},
                                     {"status_interval", "250ms"},
                                     {"nice", "+5"},
                                     {"ratio", "0.25"},
                                     {"label", "a b c"}},
                                    "disk");
  CHECK(p.get_string("operation") == "read");
  CHECK(p.given("operation"));
  CHECK(p.get_u64("bs") == 4096);
  CHECK(p.get_string("bs") == "4KiB");
  CHECK(p.given("bs"));
  CHECK(p.get_u64("blocks") == 3ULL * 1024 * 1024);
  CHECK(p.has("blocks"));
  CHECK(p.get_string("seek") == "random");
  CHECK(p.get_u64("iterations") == 12);
  CHECK(p.get_bool("prime"));
  CHECK(p.get_duration("status_interval") == 250ms);
  CHECK(p.get_int("nice") == 5);
  CHECK(p.get_double("ratio") == 0.25);
  CHECK(p.get_string("label") == "a b c");
  CHECK_FALSE(p.given("skip"));
  CHECK(p.as_text().at("label") == "a b c");
  CHECK(p.as_text().at("blocks") == "3m");
}

TEST_CASE("params reject an unknown key with a did you mean", "[unit][params]") {
  CHECK(error_of({{"bz", "4k"}}) ==
        "disk: unknown parameter 'bz'; did you mean 'bs'? (see 'iobench list')");
  CHECK(error_of({{"iteratons", "2"}}) ==
        "disk: unknown parameter 'iteratons'; did you mean 'iterations'? (see 'iobench list')");
  CHECK(error_of({{"BS", "4k"}}) ==
        "disk: unknown parameter 'BS'; did you mean 'bs'? (see 'iobench list')");
  CHECK(error_of({{"operaton", "read"}, {"bs", "4k"}}) ==
        "disk: unknown parameter 'operaton'; did you mean 'operation'? (see 'iobench list')");
  CHECK(error_of({{"frobnicate", "1"}}) ==
        "disk: unknown parameter 'frobnicate' (see 'iobench list')");
  CHECK(error_of({{"x", "1"}}) == "disk: unknown parameter 'x' (see 'iobench list')");
}

TEST_CASE("closest_match picks the nearest candidate within a third of the length",
          "[unit][params]") {
  const std::vector<std::string> keys{"bs", "blocks", "seek", "iterations", "operation"};
  CHECK(iobench::closest_match("bz", keys) == "bs");
  CHECK(iobench::closest_match("block", keys) == "blocks");
  CHECK(iobench::closest_match("seeks", keys) == "seek");
  CHECK(iobench::closest_match("itrations", keys) == "iterations");
  CHECK(iobench::closest_match("Operation", keys) == "operation");
  CHECK(iobench::closest_match("blocks", keys) == "blocks");
  CHECK(iobench::closest_match("zzzz", keys).empty());
  CHECK(iobench::closest_match("bs", std::vector<std::string>{}).empty());
  // Distance 3 is too far for a 3-letter word (limit 3/3+1 = 2), fine for a 6-letter one.
  CHECK(iobench::closest_match("rnd", std::vector<std::string>{"random"}).empty());
  CHECK(iobench::closest_match("rndm", std::vector<std::string>{"random"}) == "random");
  CHECK(iobench::closest_match("abcxyz", std::vector<std::string>{"abc"}) == "abc");
  CHECK(iobench::closest_match("abcwxyz", std::vector<std::string>{"abc"}).empty());
}

TEST_CASE("params reject values that do not parse as their type", "[unit][params]") {
  CHECK(error_of({{"bs", "4kk"}}).rfind("disk: bs='4kk' is not a size (unknown suffix 'kk'", 0) ==
        0);
  CHECK(error_of({{"bs", "-4k"}}).rfind("disk: bs='-4k' is not a size (negative", 0) == 0);
  CHECK(error_of({{"bs", "1.5k"}}).rfind("disk: bs='1.5k' is not a size (fractions", 0) == 0);
  CHECK(error_of({{"bs", "99999999999999999999"}})
            .rfind("disk: bs='99999999999999999999' is not a size (too large", 0) == 0);
  CHECK(error_of({{"blocks", "12KiB"}})
            .rfind("disk: blocks='12KiB' is not a count (unknown suffix 'KiB'", 0) == 0);
  CHECK(error_of({{"blocks", "-1"}}).rfind("disk: blocks='-1' is not a count (negative", 0) == 0);
  CHECK(error_of({{"prime", "maybe"}}) ==
        "disk: prime='maybe' is not a boolean; use true or false (also yes/no, on/off, 1/0)");
  CHECK(error_of({{"status_interval", "5 s"}})
            .rfind("disk: status_interval='5 s' is not a duration (spaces", 0) == 0);
  CHECK(error_of({{"nice", "high"}}).rfind("disk: nice='high' is not an integer", 0) == 0);
  CHECK(error_of({{"ratio", "half"}}).rfind("disk: ratio='half' is not a number", 0) == 0);
}

TEST_CASE("params reject values out of range with the unit", "[unit][params]") {
  CHECK(error_of({{"bs", "0"}}) == "disk: bs='0': must be at least 1 (bytes)");
  CHECK(error_of({{"bs", "2g"}}) == "disk: bs='2g': must be at most 1073741824 (bytes, 1GiB)");
  CHECK(error_of({{"blocks", "0"}}) == "disk: blocks='0': must be at least 1 (blocks)");
  CHECK(error_of({{"iterations", "1001"}}) ==
        "disk: iterations='1001': must be at most 1000 (passes)");
  CHECK(error_of({{"status_interval", "999us"}}) ==
        "disk: status_interval='999us': must be at least 1ms");
  CHECK(error_of({{"status_interval", "2h"}}) == "disk: status_interval='2h': must be at most 1h");
  CHECK(error_of({{"nice", "-1"}}) == "disk: nice='-1': must be at least 0");
  CHECK(error_of({{"nice", "20"}}) == "disk: nice='20': must be at most 19");
  // Bounds are inclusive.
  const auto specs = disk_like_specs();
  const Params edges = Params::validate(specs,
                                        {{"bs", "1"},
                                         {"blocks", "1"},
                                         {"iterations", "1000"},
                                         {"status_interval", "1h"},
                                         {"nice", "19"}},
                                        "disk");
  CHECK(edges.get_u64("bs") == 1);
  CHECK(edges.get_u64("iterations") == 1000);
  CHECK(edges.get_duration("status_interval") == 1h);
  CHECK(edges.get_int("nice") == 19);
  // A count without a min accepts 0.
  CHECK(Params::validate(specs, {{"skip", "0"}}, "disk").get_u64("skip") == 0);
  CHECK(Params::validate(specs, {{"bs", "1GiB"}}, "disk").get_u64("bs") == 1ULL << 30);
}

TEST_CASE("params reject an enum value not among the choices", "[unit][params]") {
  CHECK(error_of({{"seek", "rnd"}}) == "disk: seek='rnd' is not one of sequential, random");
  CHECK(error_of({{"seek", "Random"}}) ==
        "disk: seek='Random' is not one of sequential, random; did you mean 'random'?");
  CHECK(error_of({{"operation", "writ"}}) ==
        "disk: operation='writ' is not one of read, write; did you mean 'write'?");
  CHECK(error_of({{"operation", ""}}) == "disk: operation='' is not one of read, write");
}

TEST_CASE("params require required keys", "[unit][params]") {
  std::vector<ParamSpec> specs = disk_like_specs();
  ParamSpec target = spec("target_file", ParamType::kString, "", "", "file to read");
  target.required = true;
  specs.push_back(target);
  CHECK(error_of({}, specs) ==
        "disk: missing required parameter 'target_file' (file to read); give it as "
        "target_file=VALUE");
  const Params p = Params::validate(specs, {{"target_file", "/tmp/x"}}, "disk");
  CHECK(p.get_string("target_file") == "/tmp/x");
  CHECK(p.given("target_file"));
}

TEST_CASE("params report a bad default as a default", "[unit][params]") {
  const std::vector<ParamSpec> specs{spec("bs", ParamType::kSize, "4q", "", "block size")};
  CHECK(error_of({}, specs).rfind("disk: bs='4q' (the default) is not a size", 0) == 0);
  CHECK(Params::validate(specs, {{"bs", "4k"}}, "disk").get_u64("bs") == 4096);
}

TEST_CASE("params getters refuse undeclared keys and the wrong type", "[unit][params]") {
  const auto specs = disk_like_specs();
  const Params p = Params::validate(specs, {}, "");
  CHECK_THROWS_AS(p.get_u64("nope"), ConfigError);
  CHECK_THROWS_AS(p.get_string("nope"), ConfigError);
  CHECK_THROWS_AS(p.get_u64("blocks"), ConfigError);  // declared, optional, not given
  CHECK_THROWS_AS(p.get_bool("bs"), ConfigError);
  CHECK_THROWS_AS(p.get_int("bs"), ConfigError);
  CHECK_THROWS_AS(p.get_u64("prime"), ConfigError);
  CHECK_THROWS_AS(p.get_double("nice"), ConfigError);
  CHECK_THROWS_AS(p.get_duration("bs"), ConfigError);
  CHECK_FALSE(p.has("nope"));
  CHECK_FALSE(p.given("nope"));
  // Without a context the message starts with the key.
  try {
    (void)Params::validate(specs, {{"bs", "0"}}, "");
    FAIL("no ConfigError");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) == "bs='0': must be at least 1 (bytes)");
  }
}

TEST_CASE("size params may be sized to the machine", "[params][units]") {
  const std::vector<ParamSpec> specs{
      with_range(spec("size", ParamType::kSize, "64m", "bytes", "file size"), 1, {})};
  const iobench::SizeContext machine{.ram_bytes = 4ULL << 30, .targets = 2};
  const auto size_of = [&](const std::string& text) {
    return Params::validate(specs, {{"size", text}}, "disk", machine).get_u64("size");
  };
  CHECK(size_of("2*ram") == 8ULL << 30);
  CHECK(size_of("ram/2/targets") == 1ULL << 30);  // left to right: (4 GiB / 2) / 2
  CHECK(size_of("2*ram/targets") == 4ULL << 30);
  CHECK(size_of("0.25*RAM") == 1ULL << 30);
  CHECK(size_of(" 1g * targets ") == 2ULL << 30);
  CHECK(size_of("ram/3") == 1365ULL << 20);  // 1365.33 MiB, rounded down to a whole MiB
  CHECK(size_of("100m*1.5") == 150ULL << 20);
  CHECK(size_of("0.3*10g") == 3072ULL << 20);  // 0.3 is inexact in binary: no MiB lost
  CHECK(size_of("0.7*10g") == 7168ULL << 20);
  // Reports show the resolved size, not the expression.
  CHECK(Params::validate(specs, {{"size", "2*ram"}}, "disk", machine).get_string("size") == "8GiB");
  // Plain sizes are untouched by the context.
  CHECK(size_of("4k") == 4096);
}

TEST_CASE("bad size expressions name the param and the fix", "[params][units]") {
  const std::vector<ParamSpec> specs{
      with_range(spec("size", ParamType::kSize, "64m", "bytes", "file size"), 1, 1ULL << 40)};
  const iobench::SizeContext machine{.ram_bytes = 1ULL << 30, .targets = 1};
  const auto error_of = [&](const std::string& text, const iobench::SizeContext& context) {
    try {
      (void)Params::validate(specs, {{"size", text}}, "disk", context);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("ram/0", machine) ==
        "disk: size='ram/0' divides by zero; use a size (4k, 1g) or a product or quotient of "
        "numbers, sizes, 'ram' and 'targets', e.g. 2*ram or ram/2/targets");
  CHECK_THAT(error_of("2**ram", machine), Catch::StartsWith("disk: size='2**ram' is not a size (an "
                                                            "operand is missing)"));
  CHECK_THAT(error_of("2*rams", machine),
             Catch::StartsWith("disk: size='2*rams' is not a size ('rams' is neither a number, a "
                               "size, 'ram' nor 'targets'); use a size (4k, 1g) or a product"));
  CHECK_THAT(error_of("-1*ram", machine), Catch::StartsWith("disk: size='-1*ram' is not a size"));
  CHECK_THAT(error_of("ram/4096", machine),
             Catch::Contains("comes to 262144 bytes, less than the 1 MiB"));
  CHECK_THAT(error_of("1t*1t*1t", machine), Catch::Contains("larger than 2^64 bytes"));
  // A product past the range of long double, then "*0": refused, not NaN cast to a size (fuzzing
  // found it; tests/fuzz/corpus/size/regression-nan-product).
  std::string beyond_range;
  for (int i = 0; i < 17; ++i) beyond_range += "1" + std::string(308, '0') + "*";
  CHECK_THAT(error_of(beyond_range + "0", machine), Catch::Contains("larger than 2^64 bytes"));
  CHECK_THAT(error_of("2048*ram", machine), Catch::Contains("must be at most"));
  CHECK_THAT(error_of("2*ram", iobench::SizeContext{}),
             Catch::Contains("the machine's RAM is not known here"));
}

TEST_CASE("a bare number where the original tool read MiB is refused", "[params][units]") {
  ParamSpec size = spec("size", ParamType::kSize, "", "bytes", "file size");
  size.bare_number_was_mib_in = "bonnie++ -s";
  const std::vector<ParamSpec> specs{size};
  const auto error_of = [&](const std::string& text) {
    try {
      (void)Params::validate(specs, {{"size", text}}, "bonnie");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("64") ==
        "bonnie: size='64': a bare number is bytes in iobench, but bonnie++ -s read it as MiB; "
        "write 64m for 64 MiB (or 64b for 64 bytes)");
  // The old -s text under the new name: the parse error says where MiB came from.
  CHECK_THAT(error_of("64:8k"),
             Catch::StartsWith("bonnie: size='64:8k' is not a size") &&
                 Catch::EndsWith("; sizes are bytes here, where bonnie++ -s read MiB"));
  // Forms with a unit, expressions and 0 (which means the same in both) are accepted.
  CHECK(Params::validate(specs, {{"size", "64m"}}, "").get_u64("size") == 64ULL << 20);
  CHECK(Params::validate(specs, {{"size", "64b"}}, "").get_u64("size") == 64);
  CHECK(Params::validate(specs, {{"size", "0"}}, "").get_u64("size") == 0);
  CHECK(
      Params::validate(specs, {{"size", "2*ram"}}, "", {.ram_bytes = 1ULL << 30}).get_u64("size") ==
      2ULL << 30);
  // Without the flag a bare number is bytes, as in every size param.
  const std::vector<ParamSpec> plain{spec("size", ParamType::kSize, "", "bytes", "")};
  CHECK(Params::validate(plain, {{"size", "64"}}, "").get_u64("size") == 64);
}

TEST_CASE("size lists read each item as a size param does", "[params][units]") {
  ParamSpec sizes = spec("sizes", ParamType::kSizeList, "4096", "bytes", "block sizes");
  sizes.min = 1;
  const std::vector<ParamSpec> specs{sizes};
  const iobench::SizeContext machine{.ram_bytes = 4ULL << 30, .targets = 2};
  const auto list_of = [&](const std::string& text) {
    return Params::validate(specs, {{"sizes", text}}, "tiobench", machine).get_u64_list("sizes");
  };
  CHECK(Params::validate(specs, {}, "").get_u64_list("sizes") == std::vector<std::uint64_t>{4096});
  CHECK(list_of("4k,1m") == std::vector<std::uint64_t>{4096, 1ULL << 20});
  CHECK(list_of("4k 8k  16k") == std::vector<std::uint64_t>{4096, 8192, 16384});
  CHECK(list_of("2*ram, ram / targets") == std::vector<std::uint64_t>{8ULL << 30, 2ULL << 30});
  // Expressions are shown resolved; plain lists as given.
  CHECK(Params::validate(specs, {{"sizes", "2*ram,64m"}}, "", machine).get_string("sizes") ==
        "8GiB,64m");
  CHECK(Params::validate(specs, {{"sizes", "4k 8k"}}, "", machine).get_string("sizes") == "4k 8k");
  CHECK_THROWS_WITH(list_of("4k,,8k"),
                    "tiobench: sizes '4k,,8k': item 2 is empty (two commas in a row, or a comma "
                    "at an end); separate items by single commas, e.g. 256m,1g");
  CHECK_THROWS_WITH(list_of("4k,"), Catch::Contains("item 2 is empty"));
  CHECK_THROWS_WITH(list_of(""),
                    "tiobench: sizes '': the list is empty; give at least one item, "
                    "e.g. 256m,1g");
  CHECK_THROWS_WITH(list_of("4k,0"), Catch::Contains("(item '0'): must be at least 1"));
  CHECK_THROWS_WITH(list_of("4k,4x"), Catch::Contains("sizes='4k,4x' (item '4x') is not a size"));
  CHECK(iobench::to_string(ParamType::kSizeList) == "size list");
  CHECK(iobench::parse_size_value("ram/2", "sizes", machine) == 2ULL << 30);
}

TEST_CASE("split_list_param is the one list splitter: empty items are refused, never dropped",
          "[params]") {
  using iobench::ListSeparators;
  using iobench::split_list_param;
  using Items = std::vector<std::string_view>;
  CHECK(split_list_param("1,2, 4", "threads", "1,2", ListSeparators::kCommas) ==
        Items{"1", "2", "4"});
  CHECK(split_list_param(" 1  2\t4 ", "threads", "1,2", ListSeparators::kCommasOrBlanks) ==
        Items{"1", "2", "4"});
  CHECK(split_list_param("a b,c", "f", "a,b", ListSeparators::kCommasOrBlanks) ==
        Items{"a b", "c"});
  CHECK(split_list_param("a b", "f", "a,b", ListSeparators::kCommas) == Items{"a b"});
  for (const char* bad : {"1,,2", "1,2,", ",1", "1, ,2", ","}) {
    for (const auto separators : {ListSeparators::kCommas, ListSeparators::kCommasOrBlanks}) {
      CHECK_THROWS_WITH(split_list_param(bad, "tiobench: threads", "1,2,4", separators),
                        Catch::StartsWith(fmt::format("tiobench: threads '{}': item ", bad)) &&
                            Catch::EndsWith("separate items by single commas, e.g. 1,2,4"));
    }
  }
  CHECK_THROWS_WITH(split_list_param(" ", "threads", "1,2", ListSeparators::kCommasOrBlanks),
                    "threads ' ': the list is empty; give at least one item, e.g. 1,2");
}
