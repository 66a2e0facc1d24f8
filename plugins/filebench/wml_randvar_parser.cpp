// The WML parser's random variables: `set $v = randvar(type=..., ...)` (filebench 1.5) and
// `define randvar name=$v, type=..., ...` (the older syntax of filebench's shipped workloads),
// attributes type (uniform, gamma, tabular), seed, mean, gamma, min, round, randsrc, randtable.
#include <fmt/format.h>

#include <iobench/error.hpp>
#include <memory>

#include "plugins/filebench/randvar.hpp"
#include "plugins/filebench/wml_limits.hpp"
#include "plugins/filebench/wml_parser_state.hpp"

namespace iobench::plugins::filebench::detail {

namespace {
// filebench's gamma= is in thousandths of the shape; at most a shape of 1000.
constexpr std::uint64_t kMaxGammaThousandths = 1'000'000;
}  // namespace

std::uint64_t WmlParser::randvar_number(std::string_view attr) {
  const Value v = value();
  if (v.randvar) fail(v.where, fmt::format("randvar {} takes a number, not a randvar", attr));
  const std::uint64_t n = number(v, attr, true);
  if (n > kMaxSizeBytes)
    fail(v.where, fmt::format("randvar {}={} is too large; give at most 2^44", attr, n));
  return n;
}

void WmlParser::randtable(RandVarDef& r) {
  expect_punct('{', "to open randtable's rows: randtable={{PERCENT, MIN, MAX}, ...}");
  std::uint32_t percent = 0;
  for (bool first = true; first || at_punct(','); first = false) {
    if (!first) next();
    const WmlPosition at = peek().where;
    expect_punct('{', "to open a randtable row {PERCENT, MIN, MAX}");
    RandVarDef::Row row;
    const std::uint64_t share = randvar_number("randtable percent");
    expect_punct(',', "after a randtable row's percent");
    row.min = static_cast<double>(randvar_number("randtable min"));
    expect_punct(',', "after a randtable row's min");
    row.max = static_cast<double>(randvar_number("randtable max"));
    expect_punct('}', "to close a randtable row {PERCENT, MIN, MAX}");
    if (row.max < row.min)
      fail(at, "randtable row's max is below its min; write {PERCENT, MIN, MAX} with MIN <= MAX");
    if (share > 100 || percent + share > 100)
      fail(at, "randtable percents add to more than 100; give rows whose percents add to 100");
    row.percent = static_cast<std::uint32_t>(share);
    percent += row.percent;
    r.table.push_back(row);
  }
  expect_punct('}', "to close randtable's rows");
  if (percent != 100) {
    fail(r.where, fmt::format("randvar ${}'s randtable percents add to {}, not 100; give rows "
                              "whose percents add to 100 (filebench's table has 100 slots)",
                              r.name, percent));
  }
}

void WmlParser::randvar_attribute(RandVarDef& r, const Token& key, bool named) {
  if (key.text == "name" && named) {
    const Token var = next();
    if (var.kind != TokenKind::kVariable)
      fail(var.where, fmt::format("randvar name= takes a $variable, found {}", shown(var)));
    r.name = var.text;
  } else if (key.text == "type") {
    const Token t = expect_word("a randvar type (uniform, gamma, tabular)");
    if (t.text == "uniform") {
      r.type = RandVarDef::Type::kUniform;
    } else if (t.text == "gamma") {
      r.type = RandVarDef::Type::kGamma;
    } else if (t.text == "tabular") {
      r.type = RandVarDef::Type::kTabular;
    } else {
      fail(t.where,
           fmt::format("unknown randvar type '{}'; give uniform, gamma or tabular", t.text));
    }
  } else if (key.text == "randsrc") {
    const Token t = expect_word("a randvar source (rand48)");
    if (t.text == "urandom") {
      fail(t.where,
           "randsrc=urandom cannot be repeated from the run's seed; remove it (iobench "
           "draws every randvar from the seed)");
    }
    if (t.text != "rand48")
      fail(t.where, fmt::format("unknown randsrc '{}'; give rand48 or leave it out", t.text));
  } else if (key.text == "randtable") {
    randtable(r);
    r.type = RandVarDef::Type::kTabular;  // a table makes the variable tabular, as filebench's
  } else if (key.text == "mean") {
    r.mean = static_cast<double>(randvar_number(key.text));
  } else if (key.text == "gamma") {
    const WmlPosition at = peek().where;
    const std::uint64_t g = randvar_number(key.text);
    if (g < 1 || g > kMaxGammaThousandths) {
      fail(at, fmt::format("randvar gamma={} is out of range; give 1 to {} (thousandths of the "
                           "shape: 1500 is 1.5)",
                           g, kMaxGammaThousandths));
    }
    r.shape = static_cast<double>(g) / 1000.0;
  } else if (key.text == "min") {
    r.min = randvar_number(key.text);
  } else if (key.text == "round") {
    r.round = randvar_number(key.text);
  } else if (key.text == "seed") {
    r.seed = randvar_number(key.text);
  } else {
    fail(key.where, fmt::format("unknown randvar attribute '{}'; expected {}type, seed, mean, "
                                "gamma, min, round, randsrc, randtable",
                                key.text, named ? "name, " : ""));
  }
}

RandVarDef WmlParser::randvar_attributes(WmlPosition where, bool named, char close) {
  RandVarDef r;
  r.where = where;
  r.name = setting_;  // `set $v = randvar(...)`; define randvar's name= sets it instead
  for (bool first = true; first || at_punct(','); first = false) {
    if (!first) next();
    if (close != 0 && at_punct(close)) break;
    const Token key = expect_word("a randvar attribute (type, mean, gamma, min, ...)");
    expect_punct('=', fmt::format("after randvar attribute '{}'", key.text));
    randvar_attribute(r, key, named);
  }
  if (named && r.name.empty()) fail(where, "define randvar needs name=$VARIABLE");
  if (r.type == RandVarDef::Type::kTabular && r.table.empty()) {
    fail(where,
         "randvar type=tabular needs randtable={{PERCENT, MIN, MAX}, ...} (percents adding "
         "to 100)");
  }
  if (r.type != RandVarDef::Type::kTabular && r.mean < static_cast<double>(r.min)) {
    fail(where,
         fmt::format("randvar {} needs mean= at least its min={}; give mean=N",
                     r.type == RandVarDef::Type::kGamma ? "type=gamma" : "type=uniform", r.min));
  }
  r.id = static_cast<std::uint32_t>(model_.randvars.size());
  return r;
}

void WmlParser::define_randvar(WmlPosition where) {
  RandVarDef r = randvar_attributes(where, true, 0);
  const std::string name = r.name;
  auto shared = std::make_shared<const RandVarDef>(std::move(r));
  model_.randvars.push_back(shared);
  vars_[name] = Value{Token{TokenKind::kWord, "randvar", where}, std::nullopt, where, shared};
}

Value WmlParser::randvar_call(const Token& word) {
  expect_punct('(', "after randvar");
  RandVarDef r = randvar_attributes(word.where, false, ')');
  expect_punct(')', "to close randvar(...)");
  auto shared = std::make_shared<const RandVarDef>(std::move(r));
  model_.randvars.push_back(shared);
  return Value{word, std::nullopt, word.where, shared};
}

}  // namespace iobench::plugins::filebench::detail
