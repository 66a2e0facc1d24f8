// The WML parser's custom variables: `cvar(type=T, parameters=NAME:VALUE;..., min=N, max=N,
// round=N)` with filebench 1.5's cvar types and their parameters (its cvars/ libraries).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iobench/error.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plugins/filebench/cvar.hpp"
#include "plugins/filebench/wml_limits.hpp"
#include "plugins/filebench/wml_parser_state.hpp"

namespace iobench::plugins::filebench::detail {

namespace {

struct CvarParams {
  std::array<std::string_view, 3> names;  // "" past the type's parameters
  std::array<double, 3> defaults;
};

// Each type's parameters in CvarDef::p order, with filebench's defaults.
CvarParams params_of(CvarDef::Type type) {
  switch (type) {
    case CvarDef::Type::kGamma:
      return {{"mean", "gamma", ""}, {4096, 1.5, 0}};
    case CvarDef::Type::kUniform:
      return {{"lower", "upper", ""}, {0, 1, 0}};
    case CvarDef::Type::kNormal:
      return {{"mean", "sigma", ""}, {0, 1, 0}};
    case CvarDef::Type::kExponential:
      return {{"mean", "", ""}, {1, 0, 0}};
    case CvarDef::Type::kErlang:
      return {{"shape", "rate", ""}, {1, 1, 0}};
    case CvarDef::Type::kLognormal:
      return {{"shape", "scale", ""}, {1, 1, 0}};
    case CvarDef::Type::kTriangular:
      return {{"lower", "upper", "mode"}, {0, 1, 0.5}};
    case CvarDef::Type::kWeibull:
      return {{"shape", "scale", ""}, {1, 1, 0}};
  }
  return {};
}

std::string names_of(const CvarParams& p) {
  std::string out;
  for (const std::string_view n : p.names) {
    if (!n.empty()) out += fmt::format("{}{}", out.empty() ? "" : ", ", n);
  }
  return out;
}

// Why the parameters of `c` cannot be drawn as sizes, or "" (filebench's own checks, and those
// that keep every draw defined).
std::string bad_params(const CvarDef& c) {
  const auto& p = c.p;
  switch (c.type) {
    case CvarDef::Type::kGamma:
      return p[0] > 0 && p[1] > 0 ? "" : "mean and gamma must be above 0";
    case CvarDef::Type::kUniform:
      return p[0] <= p[1] ? "" : "upper must be at least lower";
    case CvarDef::Type::kNormal:
      return p[1] >= 0 ? "" : "sigma must be at least 0";
    case CvarDef::Type::kExponential:
      return p[0] >= 0 ? "" : "mean must be at least 0";
    case CvarDef::Type::kErlang:
      return p[0] >= 1 && p[0] <= 1000 && p[0] == std::floor(p[0]) && p[1] >= 0
                 ? ""
                 : "shape must be a whole number from 1 to 1000 and rate at least 0";
    case CvarDef::Type::kLognormal:
      return p[0] >= 0 ? "" : "shape must be at least 0";
    case CvarDef::Type::kTriangular:
      return p[0] <= p[2] && p[2] <= p[1] ? "" : "mode must lie between lower and upper";
    case CvarDef::Type::kWeibull:
      return p[0] > 0 && p[1] >= 0 ? "" : "shape must be above 0 and scale at least 0";
  }
  return "";
}

}  // namespace

SizeSpec WmlParser::cvar(const Token& cvar_word) {
  expect_punct('(', "after cvar");
  std::optional<CvarDef::Type> type;
  std::vector<Token> params;  // NAME:VALUE words, checked once the type is known
  CvarDef c;
  c.where = cvar_word.where;
  bool bounded = false;  // min=, max= or round= given
  for (bool first = true; !at_punct(')'); first = false) {
    if (!first) expect_punct(',', "between cvar attributes");
    const Token key = expect_word("a cvar attribute (type, parameters, min, max, round)");
    expect_punct('=', "after the cvar attribute");
    if (key.text == "type") {
      const Token v = expect_word("a cvar type");
      type = cvar_type_of(v.text);
      if (!type) {
        fail(v.where, fmt::format("unknown cvar type '{}'; filebench 1.5 has cvar-gamma, "
                                  "cvar-uniform, cvar-normal, cvar-exponential, cvar-erlang, "
                                  "cvar-lognormal, cvar-triangular and cvar-weibull",
                                  v.text));
      }
    } else if (key.text == "parameters") {
      for (bool first_param = true; first_param || at_punct(';'); first_param = false) {
        if (!first_param) next();
        params.push_back(expect_word("a cvar parameter such as mean:131072"));
      }
    } else if (key.text == "min" || key.text == "max" || key.text == "round") {
      const Token v = expect_word(fmt::format("a number after {}=", key.text));
      const std::uint64_t n = number(Value{v, std::nullopt, v.where, nullptr}, key.text, true);
      if (key.text == "round") {
        c.round = n;
      } else {
        (key.text == "min" ? c.min : c.max) = static_cast<double>(n);
      }
      bounded = true;
    } else {
      fail(key.where, fmt::format("cvar attribute '{}' is not one of filebench's; give type=, "
                                  "parameters=, min=, max= or round=",
                                  key.text));
    }
  }
  next();  // ')'
  if (!type) {
    fail(cvar_word.where,
         "cvar needs type=TYPE (cvar-gamma, cvar-uniform, ...) and "
         "parameters=NAME:VALUE;...");
  }
  c.type = *type;
  const CvarParams known = params_of(c.type);
  c.p = known.defaults;
  std::array<bool, 3> given{};
  for (const Token& p : params) {
    const auto colon = p.text.find(':');
    const std::string name = p.text.substr(0, colon);
    double parsed = NAN;
    std::size_t used = 0;
    try {
      if (colon != std::string::npos) parsed = std::stod(p.text.substr(colon + 1), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (colon == std::string::npos || used == 0 || used != p.text.size() - colon - 1 ||
        !std::isfinite(parsed)) {
      fail(p.where, fmt::format("cvar parameter '{}' is not NAME:VALUE with a number; write "
                                "e.g. {}:{}",
                                p.text, known.names[0], known.defaults[0]));
    }
    std::size_t i = 0;
    while (i < known.names.size() && (known.names[i].empty() || known.names[i] != name)) ++i;
    if (i == known.names.size()) {
      fail(p.where, fmt::format("unknown {} parameter '{}'; it takes {}", cvar_type_name(c.type),
                                name, names_of(known)));
    }
    if (given[i]) fail(p.where, fmt::format("cvar parameter '{}' is given twice; keep one", name));
    given[i] = true;
    // The existing message for cvar-gamma's mean: it is a size, at most 2^44 bytes.
    if (c.type == CvarDef::Type::kGamma && i == 0 && parsed > static_cast<double>(kMaxSizeBytes))
      fail(p.where, fmt::format("cvar {} is too large; give a mean of at most 2^44 bytes", p.text));
    c.p[i] = parsed;
  }
  if (const std::string why = bad_params(c); !why.empty())
    fail(cvar_word.where, fmt::format("{}: {}", cvar_type_name(c.type), why));
  const double mean = cvar_mean(c);
  if (!(mean <= static_cast<double>(kMaxSizeBytes)) || !std::isfinite(cvar_variance(c))) {
    fail(cvar_word.where, fmt::format("{} has a mean of {:g}, above 2^44 bytes (or no finite "
                                      "variance); give smaller parameters",
                                      cvar_type_name(c.type), mean));
  }
  c.id = cvar_count_++;
  SizeSpec s;
  s.mean_bytes = std::max(0.0, mean);
  s.cvar = std::make_shared<const CvarDef>(c);
  // A plain cvar-gamma keeps its own draw (fileset layouts stay as before); the rest are cvars.
  if (c.type == CvarDef::Type::kGamma && !bounded) {
    s.kind = SizeSpec::Kind::kGamma;
    s.gamma = c.p[1];
  } else {
    s.kind = SizeSpec::Kind::kCvar;
  }
  return s;
}

}  // namespace iobench::plugins::filebench::detail
