// The WML parser's values: a value after '=' (variables resolved), cvars, attribute lists, and
// their reading as numbers, sizes, reals, names and flags.
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <iobench/error.hpp>

#include "plugins/filebench/wml_limits.hpp"
#include "plugins/filebench/wml_parser_state.hpp"
#include "plugins/filebench/wml_vocabulary.hpp"

namespace iobench::plugins::filebench::detail {

Value WmlParser::value() {
  const Token t = next();
  if (t.kind == TokenKind::kVariable) {
    const auto it = vars_.find(t.text);
    if (it == vars_.end()) {
      fail(t.where, fmt::format("variable ${} is not set; add 'set ${}=...' before its use", t.text,
                                t.text));
    }
    Value v = it->second;
    v.where = t.where;
    return v;
  }
  if (t.kind == TokenKind::kWord && t.text == "cvar" && at_punct('(')) {
    return Value{t, cvar(t), t.where, nullptr};
  }
  if (t.kind == TokenKind::kWord && t.text == "randvar" && at_punct('(')) {
    if (setting_.empty()) fail(t.where, "randvar(...) goes in 'set $name = randvar(...)'");
    return randvar_call(t);
  }
  if (t.kind != TokenKind::kWord && t.kind != TokenKind::kString)
    fail(t.where, fmt::format("expected a value, found {}", shown(t)));
  return Value{t, std::nullopt, t.where, nullptr};
}

std::vector<Attr> WmlParser::attributes() {
  std::vector<Attr> out;
  for (;;) {
    const Token name = expect_word("an attribute name (name=..., ...)");
    Attr a{name.text, std::nullopt, name.where};
    if (at_punct('=')) {
      next();
      a.value = value();
    }
    out.push_back(std::move(a));
    if (!at_punct(',')) return out;
    next();
  }
}

void WmlParser::bad_attribute(const Attr& a, std::string_view what,
                              std::string_view accepted) const {
  if (contains(kFilebenchAttributes, a.name)) {
    fail(a.where, fmt::format("attribute '{}' of {} is accepted by filebench but not modelled by "
                              "iobench yet; remove it",
                              a.name, what));
  }
  fail(a.where,
       fmt::format("unknown attribute '{}' of {}; expected one of {}", a.name, what, accepted));
}

std::uint64_t WmlParser::number(const Value& v, std::string_view attr, bool sizes) const {
  const std::string& s = v.token.text;
  // A statement's argument follows its word after a space (`sleep 10`), an attribute's value
  // after '=' (`iters=10`).
  constexpr std::array<std::string_view, 4> kStatements = {"sleep", "psrun", "debug", "run"};
  const std::string_view sep = contains(kStatements, attr) ? " " : "=";
  if (v.cvar) {
    fail(v.where, fmt::format("{} takes a fixed number, not a cvar; a cvar is drawn per use in "
                              "iosize= and in a fileset's size= only",
                              attr));
  }
  if (v.randvar) {
    fail(v.where, fmt::format("{} takes a fixed number, not randvar ${}; a randvar is drawn per "
                              "use in iosize= and in a fileset's size= only",
                              attr, v.randvar->name));
  }
  std::size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
  std::uint64_t multiplier = 1;
  const std::string_view suffix = std::string_view(s).substr(digits);
  if (sizes && suffix.size() == 1) {
    switch (suffix[0] | 0x20) {
      case 'k':
        multiplier = 1ULL << 10;
        break;
      case 'm':
        multiplier = 1ULL << 20;
        break;
      case 'g':
        multiplier = 1ULL << 30;
        break;
      case 't':
        multiplier = 1ULL << 40;
        break;
      default:
        multiplier = 0;
        break;
    }
  } else if (!suffix.empty()) {
    multiplier = 0;
  }
  std::uint64_t n = 0;
  bool overflow = digits > 15;
  for (std::size_t i = 0; i < digits && !overflow; ++i)
    n = n * 10 + static_cast<std::uint64_t>(s[i] - '0');
  if (digits == 0 || multiplier == 0 || v.token.kind != TokenKind::kWord) {
    fail(v.where, fmt::format("{}{}{} is not {}", attr, sep, s,
                              sizes ? "a size; write digits with an optional k, m, g or t suffix "
                                      "(1024-based), e.g. 16k"
                                    : "a whole number; write digits, e.g. 10"));
  }
  if (overflow || n > (UINT64_MAX >> 20) / multiplier) {
    fail(v.where, fmt::format("{}{}{} is too large; give at most 2^44 bytes", attr, sep, s));
  }
  return n * multiplier;
}

double WmlParser::real(const Value& v, std::string_view attr) const {
  const std::string& s = v.token.text;
  std::size_t used = 0;
  double d = NAN;
  try {
    if (!v.cvar && !v.randvar && v.token.kind == TokenKind::kWord) d = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size() || !std::isfinite(d) || d < 0)
    fail(v.where, fmt::format("{}={} is not a number >= 0; write e.g. 1.5", attr, s));
  return d;
}

std::string WmlParser::text(const Value& v, std::string_view attr) const {
  if (v.cvar) fail(v.where, fmt::format("{} takes a name, not a cvar", attr));
  if (v.randvar) fail(v.where, fmt::format("{} takes a name, not a randvar", attr));
  return v.token.text;
}

bool WmlParser::flag(const Attr& a) const {
  if (!a.value) return true;
  const std::string& s = a.value->token.text;
  if (!a.value->cvar && !a.value->randvar && (s == "true" || s == "false")) return s == "true";
  // A whole number is a flag too, 0 false (filebench's `set $directio=0` ... directio=$directio).
  if (!a.value->cvar && !a.value->randvar && a.value->token.kind == TokenKind::kWord &&
      !s.empty() && s.find_first_not_of("0123456789") == std::string::npos)
    return s.find_first_not_of('0') != std::string::npos;
  fail(a.value->where, fmt::format("{}={} is not a flag; write {} alone, {}=true or {}=false",
                                   a.name, s, a.name, a.name, a.name));
}

}  // namespace iobench::plugins::filebench::detail
