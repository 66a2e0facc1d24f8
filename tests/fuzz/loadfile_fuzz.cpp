// Fuzz target: dbench loadfile text (NBench and dbench 2 dialects, directives, modifier
// expressions) through parse_loadfile, the parser every client replays from.
//
// Invariants: only ConfigError is thrown; every id and index in the program points into its
// tables (paths, handles, statuses, strings, expressions, RANDOMSTRING slots); LOOP/ENDLOOP
// pair up and nest; REPEAT is followed by an operation; no path has a ".." component or leaves
// the base directory, and every path's first component is a listed top-level name (what cleanup
// removes); constant sizes are within the 64 MiB limit; the statistics count what the program
// holds. Parsing in the detected format explicitly gives the same program, and skipping unknown
// operations changes nothing for a file without any.
#include <algorithm>
#include <array>
#include <iobench/error.hpp>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "plugins/dbench/loadfile_parser.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace db = iobench::plugins::dbench;
using db::Instruction;
using db::kNoId;
using db::OpCode;

std::optional<db::Loadfile> try_parse(std::string_view text, const db::ParseOptions& options) {
  try {
    return db::parse_loadfile(text, options);
  } catch (const iobench::ConfigError& e) {
    FUZZ_CHECK(std::string_view(e.what()).find(options.file_name) != std::string_view::npos,
               e.what());
    return std::nullopt;
  }
}

bool is_path_op(OpCode op) {
  switch (op) {
    case OpCode::kNtCreateX:
    case OpCode::kRename:
    case OpCode::kUnlink:
    case OpCode::kDeltree:
    case OpCode::kRmdir:
    case OpCode::kMkdir:
    case OpCode::kQpathinfo:
    case OpCode::kFind:
      return true;
    default:
      return false;
  }
}

bool is_handle_op(OpCode op) {
  switch (op) {
    case OpCode::kClose:
    case OpCode::kQfileinfo:
    case OpCode::kSfileinfo:
    case OpCode::kWriteX:
    case OpCode::kReadX:
    case OpCode::kLockX:
    case OpCode::kUnlockX:
    case OpCode::kFlush:
      return true;
    default:
      return false;
  }
}

bool is_operation(OpCode op) { return db::is_tabulated(op) || op == OpCode::kSleep; }

void check_path(const db::Loadfile& lf, const db::PathEntry& path) {
  const std::string& text = path.text;
  FUZZ_CHECK(!text.empty() && text[0] == '/', text);
  FUZZ_CHECK(text.size() <= db::kMaxPathBytes, text.substr(0, 80));
  FUZZ_CHECK(path.is_template == (text.find(db::kRandomRef) != std::string::npos), text);
  std::size_t first_end = std::min(text.find('/', 1), text.size());
  FUZZ_CHECK(first_end > 1, text);
  const std::string top = text.substr(1, first_end - 1);
  FUZZ_CHECK(top.find(db::kRandomRef) == std::string::npos, text);
  FUZZ_CHECK(std::find(lf.top_level_names.begin(), lf.top_level_names.end(), top) !=
                 lf.top_level_names.end(),
             text);
  for (std::size_t start = 1; start <= text.size();) {
    const std::size_t end = std::min(text.find('/', start), text.size());
    FUZZ_CHECK(text.substr(start, end - start) != "..", text);
    start = end + 1;
  }
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    FUZZ_CHECK(byte >= 0x20 || c == '\t' || c == db::kRandomRef, text);
  }
  // A reference is the marker and a slot digit.
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == db::kRandomRef) {
      FUZZ_CHECK(i + 1 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '9', text);
    }
  }
}

void check_program(const db::Loadfile& lf) {
  for (const auto& path : lf.paths) check_path(lf, path);
  for (const auto& root : lf.client_roots) {
    FUZZ_CHECK(root.find("client1") != std::string::npos && root[0] == '/', root);
  }
  for (const auto& expr : lf.exprs) {
    FUZZ_CHECK(std::uint64_t{expr.first_step} + expr.step_count <= lf.expr_steps.size(),
               "expression steps out of range");
  }
  std::vector<std::size_t> open;
  std::array<std::uint64_t, db::kTabulatedOps> op_lines{};
  std::uint64_t sleeps = 0;
  std::uint64_t max_write = 0;
  std::uint64_t max_read = 0;
  std::uint16_t slots = 0;  // RANDOMSTRING slots defined so far
  for (std::size_t i = 0; i < lf.code.size(); ++i) {
    const Instruction& ins = lf.code[i];
    const std::string where =
        "instruction " + std::to_string(i) + " line " + std::to_string(ins.line);
    FUZZ_CHECK(ins.line >= 1 && ins.line <= lf.stats.text_lines, where);
    FUZZ_CHECK(i == 0 || lf.code[i - 1].line <= ins.line, where);
    if (is_operation(ins.op)) FUZZ_CHECK(ins.status < lf.statuses.size(), where);
    for (std::size_t v = 0; v < db::value_count(ins.op); ++v) {
      if (ins.value_is_expr(v)) {
        FUZZ_CHECK(ins.value[v] >= 0 && static_cast<std::size_t>(ins.value[v]) < lf.exprs.size(),
                   where);
      }
    }
    if (is_path_op(ins.op)) {
      FUZZ_CHECK(ins.a < lf.paths.size(), where);
      if (ins.op == OpCode::kRename) FUZZ_CHECK(ins.b < lf.paths.size(), where);
      // A RANDOMSTRING reference names a slot defined on an earlier line.
      for (const std::uint32_t id : {ins.a, ins.op == OpCode::kRename ? ins.b : ins.a}) {
        const std::string& path = lf.paths[id].text;
        for (std::size_t c = 0; c + 1 < path.size(); ++c) {
          if (path[c] == db::kRandomRef)
            FUZZ_CHECK((slots >> (path[c + 1] - '0') & 1U) != 0, where);
        }
      }
    }
    if (ins.op == OpCode::kNtCreateX) {
      FUZZ_CHECK(
          ins.b == kNoId ? lf.format == db::LoadfileFormat::kDbench2 : ins.b < lf.handles.size(),
          where);
    }
    if (is_handle_op(ins.op)) FUZZ_CHECK(ins.a < lf.handles.size(), where);
    if (ins.op == OpCode::kWriteX || ins.op == OpCode::kReadX) {
      for (std::size_t v = 0; v < 3; ++v) {
        if (ins.value_is_expr(v)) continue;
        FUZZ_CHECK(ins.value[v] >= 0, where);
        if (v > 0) {
          FUZZ_CHECK(static_cast<std::uint64_t>(ins.value[v]) <= db::kMaxTransferBytes, where);
        }
      }
      const std::uint64_t bytes =
          ins.value_is_expr(1) ? 0 : static_cast<std::uint64_t>(ins.value[1]);
      (ins.op == OpCode::kWriteX ? max_write : max_read) =
          std::max(ins.op == OpCode::kWriteX ? max_write : max_read, bytes);
    }
    switch (ins.op) {
      case OpCode::kLoopBegin:
        FUZZ_CHECK(ins.value[0] >= 0, where);
        open.push_back(i);
        FUZZ_CHECK(open.size() <= db::kMaxLoopDepth, where);
        FUZZ_CHECK(ins.a > i && ins.a < lf.code.size() && lf.code[ins.a].op == OpCode::kLoopEnd &&
                       lf.code[ins.a].a == i,
                   where);
        break;
      case OpCode::kLoopEnd:
        FUZZ_CHECK(!open.empty() && open.back() == ins.a, where);
        open.pop_back();
        break;
      case OpCode::kRepeat:
        FUZZ_CHECK(ins.value[0] >= 0, where);
        FUZZ_CHECK(i + 1 < lf.code.size() && is_operation(lf.code[i + 1].op), where);
        break;
      case OpCode::kWritePattern:
        FUZZ_CHECK(ins.a < lf.strings.size() && !lf.strings[ins.a].empty(), where);
        break;
      case OpCode::kRandomString:
        FUZZ_CHECK(ins.a <= 9 && ins.b < lf.strings.size(), where);
        slots = static_cast<std::uint16_t>(slots | (1U << ins.a));
        break;
      case OpCode::kSleep:
        ++sleeps;
        break;
      default:
        if (db::is_tabulated(ins.op)) ++op_lines[static_cast<std::size_t>(ins.op)];
        break;
    }
  }
  FUZZ_CHECK(open.empty(), "LOOP without ENDLOOP");
  FUZZ_CHECK(op_lines == lf.stats.op_lines, "op line counts");
  FUZZ_CHECK(sleeps == lf.stats.sleep_lines, "sleep line count");
  FUZZ_CHECK(max_write == lf.stats.max_write_bytes && max_read == lf.stats.max_read_bytes,
             "largest transfer sizes");
  FUZZ_CHECK(sleeps + std::accumulate(op_lines.begin(), op_lines.end(), std::uint64_t{0}) > 0,
             "a program without operations");
}

bool same_program(const db::Loadfile& a, const db::Loadfile& b) {
  if (a.code.size() != b.code.size() || a.paths.size() != b.paths.size()) return false;
  for (std::size_t i = 0; i < a.code.size(); ++i) {
    const Instruction& x = a.code[i];
    const Instruction& y = b.code[i];
    if (x.value != y.value || x.timestamp_ns != y.timestamp_ns || x.line != y.line || x.a != y.a ||
        x.b != y.b || x.status != y.status || x.op != y.op || x.flags != y.flags) {
      return false;
    }
  }
  for (std::size_t i = 0; i < a.paths.size(); ++i) {
    if (a.paths[i].text != b.paths[i].text || a.paths[i].is_template != b.paths[i].is_template) {
      return false;
    }
  }
  return a.format == b.format && a.strings == b.strings && a.statuses == b.statuses &&
         a.handles == b.handles && a.top_level_names == b.top_level_names &&
         a.client_roots == b.client_roots && a.expr_steps.size() == b.expr_steps.size() &&
         a.stats.written_bytes == b.stats.written_bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = iobench::fuzz::as_text(data, size);
  db::ParseOptions options;
  options.file_name = "fuzz.txt";
  const auto strict = try_parse(text, options);

  db::ParseOptions lenient = options;
  lenient.unknown_ops = db::UnknownOpPolicy::kWarn;
  const auto skipping = try_parse(text, lenient);
  if (skipping) {
    check_program(*skipping);
    if (skipping->stats.unknown_lines == 0) {
      FUZZ_CHECK(strict && same_program(*strict, *skipping), "unknown_ops=warn differs");
    }
  }
  if (!strict) return 0;
  check_program(*strict);
  FUZZ_CHECK(strict->stats.unknown_lines == 0, "unknown lines in a strict parse");

  db::ParseOptions explicit_format = options;
  explicit_format.format = strict->format;
  const auto again = try_parse(text, explicit_format);
  FUZZ_CHECK(again && same_program(*strict, *again), "explicit format differs");
  return 0;
}
