#include "plugins/dbench/loadfile_values.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "plugins/dbench/loadfile_tokenizer.hpp"

namespace dbench = iobench::plugins::dbench;
using dbench::Expect;
using dbench::LoadfileFormat;

namespace {

struct TokenText {
  std::string text;
  std::uint32_t column;
  bool operator==(const TokenText&) const = default;
};

std::vector<TokenText> split(std::string_view line, LoadfileFormat format) {
  dbench::LineTokenizer tokenizer;
  std::vector<TokenText> out;
  for (const auto& t : tokenizer.split(line, format))
    out.push_back({std::string(t.text), t.column});
  return out;
}

}  // namespace

TEST_CASE("tokenizer follows dbench 4 rules for quoted and unquoted paths", "[dbench]") {
  using V = std::vector<TokenText>;
  const auto nb = LoadfileFormat::kNbench;
  // A quoted \ path keeps its leading slash; its column is the opening quote's.
  CHECK(split(R"(Close 9937 NT_STATUS_OK)", nb) ==
        V{{"Close", 1}, {"9937", 7}, {"NT_STATUS_OK", 12}});
  CHECK(split(R"(Deltree "\clients\client1" NT_STATUS_OK)", nb) ==
        V{{"Deltree", 1}, {"/clients/client1", 9}, {"NT_STATUS_OK", 28}});
  // An unquoted \ path loses its slash (" /" -> " "), exactly as dbench rewrites it.
  CHECK(split(R"(Deltree \clients NT_STATUS_OK)", nb) ==
        V{{"Deltree", 1}, {"clients", 10}, {"NT_STATUS_OK", 18}});
  // Quotes may hold spaces and may sit inside a token; they are removed.
  CHECK(split(R"(Mkdir "\a b\c" x"y z"w)", nb) == V{{"Mkdir", 1}, {"/a b/c", 7}, {"xy zw", 16}});
  // " //" loses only its first slash.
  CHECK(split("A //b", nb) == V{{"A", 1}, {"/b", 4}});
  // Several spaces separate like one; a trailing CR is ignored; a tab is part of a token.
  CHECK(split("Close   1  NT_STATUS_OK\r", nb) == V{{"Close", 1}, {"1", 9}, {"NT_STATUS_OK", 12}});
  CHECK(split("Close\t1 X", nb) == V{{"Close\t1", 1}, {"X", 9}});
  CHECK(split("", nb).empty());
  CHECK(split("    ", nb).empty());
}

TEST_CASE("tokenizer follows dbench 2 rules", "[dbench]") {
  using V = std::vector<TokenText>;
  const auto d2 = LoadfileFormat::kDbench2;
  CHECK(split(R"(NTCreateX \clients\client1 0x1 0x2 12115)", d2) ==
        V{{"NTCreateX", 1}, {"/clients/client1", 11}, {"0x1", 28}, {"0x2", 32}, {"12115", 36}});
  // '"' is an ordinary (wildcard) character in dbench 2 patterns.
  CHECK(split(R"(FIND_FIRST \clients\client1\FILLER"*)", d2) ==
        V{{"FIND_FIRST", 1}, {R"(/clients/client1/FILLER"*)", 12}});
}

TEST_CASE("integers are read like strtol base 0 over the whole token", "[dbench]") {
  CHECK(dbench::parse_loadfile_integer("0") == 0);
  CHECK(dbench::parse_loadfile_integer("12115") == 12115);
  CHECK(dbench::parse_loadfile_integer("0x40") == 64);
  CHECK(dbench::parse_loadfile_integer("0X1f") == 31);
  CHECK(dbench::parse_loadfile_integer("010") == 8);
  CHECK(dbench::parse_loadfile_integer("-1") == -1);
  CHECK(dbench::parse_loadfile_integer("2147483538") == 2147483538);
  CHECK(dbench::parse_loadfile_integer("9223372036854775807") == INT64_MAX);
  CHECK(dbench::parse_loadfile_integer("-9223372036854775808") == INT64_MIN);
  CHECK_FALSE(dbench::parse_loadfile_integer("9223372036854775808"));
  CHECK_FALSE(dbench::parse_loadfile_integer(""));
  CHECK_FALSE(dbench::parse_loadfile_integer("-"));
  CHECK_FALSE(dbench::parse_loadfile_integer("0x"));
  CHECK_FALSE(dbench::parse_loadfile_integer("08"));
  CHECK_FALSE(dbench::parse_loadfile_integer("12x"));
  CHECK_FALSE(dbench::parse_loadfile_integer("+5"));
  CHECK_FALSE(dbench::parse_loadfile_integer(" 5"));
}

TEST_CASE("timestamps are decimal seconds turned into nanoseconds", "[dbench]") {
  CHECK(dbench::parse_timestamp_ns("4.742382000") == 4'742'382'000);
  CHECK(dbench::parse_timestamp_ns("0.000000000") == 0);
  CHECK(dbench::parse_timestamp_ns("12") == 12'000'000'000);
  CHECK(dbench::parse_timestamp_ns("1e-3") == 1'000'000);
  CHECK_FALSE(dbench::parse_timestamp_ns("4.5s"));
  CHECK_FALSE(dbench::parse_timestamp_ns("-1"));
  CHECK_FALSE(dbench::parse_timestamp_ns("1e300"));
  CHECK_FALSE(dbench::parse_timestamp_ns(""));
}

TEST_CASE("statuses collapse to ok failure or any", "[dbench]") {
  struct Row {
    const char* text;
    std::optional<Expect> expect;
  };
  const Row rows[] = {
      {"NT_STATUS_OK", Expect::kOk},
      {"NT_STATUS_OBJECT_NAME_NOT_FOUND", Expect::kFailure},
      {"NT_STATUS_NO_SUCH_FILE", Expect::kFailure},
      {"0x00000000", Expect::kOk},
      {"0x0", Expect::kOk},
      {"0xc0000034", Expect::kFailure},
      {"SUCCESS", Expect::kOk},
      {"ERROR", Expect::kFailure},
      {"*", Expect::kAny},
      {"NT_STATUS_", std::nullopt},
      {"NT_STATUS_OK!", std::nullopt},
      {"0x", std::nullopt},
      {"0xZZ", std::nullopt},
      {"0x00000000000000000", std::nullopt},
      {"OK", std::nullopt},
      {"12115", std::nullopt},
  };
  for (const auto& row : rows) {
    INFO(row.text);
    CHECK(dbench::parse_status(row.text) == row.expect);
  }
  CHECK(dbench::looks_like_status("NT_STATUS_OK"));
  CHECK(dbench::looks_like_status("0xc0000034"));
  CHECK(dbench::looks_like_status("*"));
  CHECK_FALSE(dbench::looks_like_status("12115"));
  CHECK_FALSE(dbench::looks_like_status("/clients"));
}

TEST_CASE("modifier expressions parse into steps", "[dbench]") {
  using K = dbench::ExprStep::Kind;
  using O = dbench::ExprStep::Operand;
  std::string why;
  auto e = dbench::parse_modifier_expression("*/0x1000%5000000", why);
  REQUIRE(e);
  CHECK(e->base == dbench::ValueExpr::Base::kRandom);
  REQUIRE(e->steps.size() == 2);
  CHECK((e->steps[0].kind == K::kAlign && e->steps[0].constant == 4096));
  CHECK((e->steps[1].kind == K::kModulo && e->steps[1].constant == 5000000));

  e = dbench::parse_modifier_expression("*%100+25", why);
  REQUIRE(e);
  REQUIRE(e->steps.size() == 2);
  CHECK((e->steps[1].kind == K::kAdd && e->steps[1].constant == 25));

  e = dbench::parse_modifier_expression("*", why);
  REQUIRE(e);
  CHECK(e->steps.empty());

  e = dbench::parse_modifier_expression("+32768", why);
  REQUIRE(e);
  CHECK(e->base == dbench::ValueExpr::Base::kPrevious);
  REQUIRE(e->steps.size() == 1);
  CHECK((e->steps[0].kind == K::kAdd && e->steps[0].constant == 32768));

  e = dbench::parse_modifier_expression("+child", why);
  REQUIRE(e);
  CHECK(e->steps[0].operand == O::kClientId);
  e = dbench::parse_modifier_expression("+num_children%num_children", why);
  REQUIRE(e);
  REQUIRE(e->steps.size() == 2);
  CHECK(e->steps[0].operand == O::kNumClients);
  CHECK((e->steps[1].kind == K::kModulo && e->steps[1].operand == O::kNumClients));

  const char* bad[] = {"",    "5",       "+",       "*x",   "*/", "*/0",
                       "*%0", "*%child", "*/child", "+abc", "*+", "*/4096%"};
  for (const char* text : bad) {
    INFO(text);
    why.clear();
    CHECK_FALSE(dbench::parse_modifier_expression(text, why));
    CHECK_FALSE(why.empty());
  }
}
