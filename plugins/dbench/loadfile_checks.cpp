// The loadfile's end-of-file checks: template paths a RANDOMSTRING can turn into a '..', and the
// estimate of the bytes its writes occupy (LoadfileStats::written_bytes, for the free-space check).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iobench/error.hpp>
#include <limits>
#include <optional>
#include <span>
#include <unordered_map>

#include "plugins/dbench/loadfile_parser.hpp"
#include "plugins/dbench/loadfile_parser_impl.hpp"
#include "plugins/dbench/loadfile_reader.hpp"
#include "plugins/dbench/loadfile_tokenizer.hpp"
#include "plugins/dbench/loadfile_values.hpp"

namespace iobench::plugins::dbench::detail {

namespace {

/// Per position of a RANDOMSTRING template: can it draw a '.'?
std::vector<bool> dot_positions(std::string_view templ) {
  std::vector<bool> out;
  for (std::size_t i = 0; i < templ.size(); ++i) {
    if (templ[i] != '[') {
      out.push_back(templ[i] == '.');
      continue;
    }
    const std::size_t close = templ.find(']', i);
    out.push_back(templ.substr(i + 1, close - i - 1).find('.') != std::string_view::npos);
    i = close;
  }
  return out;
}

/// `text` with kRandomRef markers shown as `$n` and '/' as '\', as the loadfile spells it.
std::string spelled(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == kRandomRef && i + 1 < text.size()) {
      out += '$';
      out += text[++i];
    } else {
      out += text[i] == '/' ? '\\' : text[i];
    }
  }
  return out;
}

}  // namespace

void LoadfileParser::check_templates() {
  constexpr std::size_t kMaxChoices = 4096;
  for (const TemplateUse& use : templates_) {
    const std::string_view path = use.text;
    for (std::size_t start = 1; start <= path.size();) {
      std::size_t end = path.find('/', start);
      if (end == std::string_view::npos) end = path.size();
      const std::string_view part = path.substr(start, end - start);
      start = end + 1;
      if (part.find(kRandomRef) == std::string_view::npos) continue;
      // Distinct slots of the component; each may take any of its definitions. The component is
      // '..' only if it is two characters long and every position can be a '.', which a repeated
      // slot does not change (it then draws '.' at all its positions at once).
      std::vector<std::uint32_t> slots;
      for (std::size_t i = 0; i + 1 < part.size(); ++i) {
        if (part[i] != kRandomRef) continue;
        const auto slot = static_cast<std::uint32_t>(part[i + 1] - '0');
        if (std::find(slots.begin(), slots.end(), slot) == slots.end()) slots.push_back(slot);
      }
      std::size_t choices = 1;
      for (const std::uint32_t slot : slots)
        choices *= std::max<std::size_t>(random_defs_[slot].size(), 1);
      if (choices > kMaxChoices) continue;  // the replay still refuses it if it happens
      for (std::size_t choice = 0; choice < choices; ++choice) {
        std::size_t rest = choice;
        std::vector<const RandomDef*> pick(10, nullptr);
        for (const std::uint32_t slot : slots) {
          const std::size_t n = random_defs_[slot].size();
          pick[slot] = &random_defs_[slot][rest % n];
          rest /= n;
        }
        std::vector<bool> dots;
        for (std::size_t i = 0; i < part.size(); ++i) {
          if (part[i] == kRandomRef) {
            const auto d = dot_positions(pick[static_cast<std::size_t>(part[++i] - '0')]->text);
            dots.insert(dots.end(), d.begin(), d.end());
          } else {
            dots.push_back(part[i] == '.');
          }
        }
        if (dots.size() != 2 || !dots[0] || !dots[1]) continue;
        std::string by;
        for (const std::uint32_t slot : slots) {
          by += fmt::format("{}RANDOMSTRING {} of line {}", by.empty() ? "" : " and ", slot,
                            pick[slot]->line);
        }
        error(use.line, use.column, spelled(path),
              fmt::format("path component '{}' can become '..' ({}), which loadfile paths may "
                          "not have; path",
                          spelled(part), by),
              "RANDOMSTRING sets and path components that cannot spell '..'");
        break;
      }
    }
  }
}

namespace {

constexpr std::uint64_t kBlock = 4096;
/// Offsets from here on count as unknown (a random 64-bit value, a runaway "+n" chain).
constexpr std::uint64_t kUnknownOffset = 1ULL << 60;

std::uint64_t add_saturating(std::uint64_t a, std::uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}
std::uint64_t mul_saturating(std::uint64_t a, std::uint64_t b) {
  return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

}  // namespace

std::optional<std::uint64_t> LoadfileParser::value_max(const Instruction& ins,
                                                       std::size_t slot) const {
  if (!ins.value_is_expr(slot)) return static_cast<std::uint64_t>(ins.value[slot]);
  const ValueExpr& expr = out_.exprs[static_cast<std::size_t>(ins.value[slot])];
  // "+n" continues the previous line's value: no bound without running the file.
  if (expr.base == ValueExpr::Base::kPrevious) return std::nullopt;
  std::uint64_t max = UINT64_MAX;
  for (std::uint32_t i = 0; i < expr.step_count; ++i) {
    const ExprStep& step = out_.expr_steps[expr.first_step + i];
    const bool constant = step.operand == ExprStep::Operand::kConstant;
    switch (step.kind) {
      case ExprStep::Kind::kAlign:  // never raises a value
        break;
      case ExprStep::Kind::kModulo:  // a value below the modulus (client counts: no lower bound)
        if (constant && step.constant > 0) max = std::min(max, step.constant - 1);
        break;
      case ExprStep::Kind::kAdd:
        if (!constant) return std::nullopt;  // + child, + num_children: unknown here
        max = add_saturating(max, step.constant);
        break;
    }
  }
  return max;
}

std::uint64_t LoadfileParser::executions_per_pass(std::uint64_t repeats) const {
  std::uint64_t n = repeats;
  for (const std::uint32_t loop : open_loops_) {
    if (loop != kNoId) n = mul_saturating(n, static_cast<std::uint64_t>(out_.code[loop].value[0]));
  }
  return n;
}

void LoadfileParser::note_write(const Instruction& ins, std::uint64_t repeats) {
  const std::uint32_t path = handle_path_[ins.a];
  if (path == kNoId) return;  // no NTCreateX opens this handle: the write cannot happen
  WrittenSpace& space = written_[path];
  const std::optional<std::uint64_t> size = value_max(ins, 1);
  const std::optional<std::uint64_t> offset = value_max(ins, 0);
  const std::uint64_t size_max = size.value_or(UINT64_MAX);
  const bool placed = !out_.paths[path].is_template && offset && *offset < kUnknownOffset &&
                      size_max < kUnknownOffset;
  if (!placed) {
    // Each execution may write somewhere new (or, for a template path, into a new file).
    space.unplaced_bytes = add_saturating(space.unplaced_bytes,
                                          mul_saturating(size_max, executions_per_pass(repeats)));
    return;
  }
  // A constant offset writes the same blocks every time; a bounded random one somewhere below
  // its bound.
  const std::uint64_t begin = ins.value_is_expr(0) ? 0 : *offset / kBlock * kBlock;
  const std::uint64_t end = (*offset + size_max + kBlock - 1) / kBlock * kBlock;
  if (end == begin) return;
  if (!space.ranges.empty() && begin <= space.ranges.back().second &&
      begin >= space.ranges.back().first) {
    space.ranges.back().second = std::max(space.ranges.back().second, end);  // appends
  } else {
    space.ranges.emplace_back(begin, end);
  }
}

void LoadfileParser::finish_stats() {
  std::uint64_t total = 0;
  for (WrittenSpace& space : written_) {
    std::sort(space.ranges.begin(), space.ranges.end());
    std::uint64_t covered_to = 0;
    for (const auto& [begin, end] : space.ranges) {
      const std::uint64_t from = std::max(begin, covered_to);
      if (end > from) {
        total = add_saturating(total, end - from);
        covered_to = end;
      }
    }
    total = add_saturating(total, space.unplaced_bytes);
  }
  out_.stats.written_bytes = total;
}

}  // namespace iobench::plugins::dbench::detail
