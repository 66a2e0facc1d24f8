// An operation line of a loadfile: the operations' argument lists, the line's dispatch (operation,
// directive or unknown word), the arguments' values and paths, and the tables they are interned in.
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

namespace iobench::plugins::dbench {

namespace detail {

namespace {

constexpr std::int64_t kWholeDirectory = std::numeric_limits<std::int64_t>::max();

// clang-format off
constexpr std::array<OpSpec, 18> kOpSpecs{{
  {OpCode::kNtCreateX, 4, 4, {{{ArgKind::kPath, "file name"}, {ArgKind::kNumber, "create options"},
                               {ArgKind::kNumber, "create disposition"}, {ArgKind::kHandle, "handle"}}}, {}},
  {OpCode::kClose, 1, 1, {{{ArgKind::kHandle, "handle"}}}, {}},
  {OpCode::kRename, 2, 2, {{{ArgKind::kPath, "old name"}, {ArgKind::kPath, "new name"}}}, {}},
  {OpCode::kUnlink, 2, 1, {{{ArgKind::kPath, "file name"}, {ArgKind::kNumber, "attributes"}}}, {}},
  {OpCode::kDeltree, 1, 1, {{{ArgKind::kPath, "directory"}}}, {}},
  {OpCode::kRmdir, 1, 1, {{{ArgKind::kPath, "directory"}}}, {}},
  {OpCode::kMkdir, 1, 1, {{{ArgKind::kPath, "directory"}}}, {}},
  {OpCode::kQpathinfo, 2, 1, {{{ArgKind::kPath, "path"}, {ArgKind::kNumber, "info level"}}}, {}},
  {OpCode::kQfileinfo, 2, 1, {{{ArgKind::kHandle, "handle"}, {ArgKind::kNumber, "info level"}}}, {}},
  {OpCode::kQfsinfo, 1, 0, {{{ArgKind::kNumber, "info level"}}}, {}},
  {OpCode::kSfileinfo, 2, 1, {{{ArgKind::kHandle, "handle"}, {ArgKind::kNumber, "info level"}}}, {}},
  {OpCode::kFind, 4, 1, {{{ArgKind::kPath, "pattern"}, {ArgKind::kNumber, "info level"},
                          {ArgKind::kUnsigned, "max count"}, {ArgKind::kUnsigned, "count"}}},
   {0x104, kWholeDirectory, 0}},
  {OpCode::kWriteX, 4, 4, {{{ArgKind::kHandle, "handle"}, {ArgKind::kUnsigned, "offset"},
                            {ArgKind::kSize, "size"}, {ArgKind::kSize, "expected size"}}}, {}},
  {OpCode::kReadX, 4, 4, {{{ArgKind::kHandle, "handle"}, {ArgKind::kUnsigned, "offset"},
                           {ArgKind::kSize, "size"}, {ArgKind::kSize, "expected size"}}}, {}},
  {OpCode::kLockX, 3, 3, {{{ArgKind::kHandle, "handle"}, {ArgKind::kUnsigned, "offset"},
                           {ArgKind::kUnsigned, "length"}}}, {}},
  {OpCode::kUnlockX, 3, 3, {{{ArgKind::kHandle, "handle"}, {ArgKind::kUnsigned, "offset"},
                             {ArgKind::kUnsigned, "length"}}}, {}},
  {OpCode::kFlush, 1, 1, {{{ArgKind::kHandle, "handle"}}}, {}},
  {OpCode::kSleep, 1, 1, {{{ArgKind::kUnsigned, "microseconds"}}}, {}},
}};
// clang-format on

constexpr std::string_view kOpList =
    "NTCreateX, Close, Rename, Unlink, Deltree, Rmdir, Mkdir, QUERY_PATH_INFORMATION, "
    "QUERY_FILE_INFORMATION, QUERY_FS_INFORMATION, SET_FILE_INFORMATION, FIND_FIRST, WriteX, "
    "ReadX, LockX, UnlockX, Flush or Sleep, or a directive (LOOP, ENDLOOP, REPEAT, SLEEP, "
    "WRITEPATTERN, RANDOMSTRING)";

bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

const OpSpec* find_op(std::string_view name) noexcept {
  static const std::array<std::string_view, kOpSpecs.size()> names = [] {
    std::array<std::string_view, kOpSpecs.size()> out{};
    for (std::size_t i = 0; i < kOpSpecs.size(); ++i) out[i] = loadfile_name(kOpSpecs[i].op);
    return out;
  }();
  for (std::size_t i = 0; i < names.size(); ++i) {  // the spelling of nearly every line first
    if (name == names[i]) return &kOpSpecs[i];
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (iequals(name, names[i])) return &kOpSpecs[i];
  }
  return nullptr;
}

std::string describe_args(const OpSpec& spec, bool with_status) {
  std::string out = fmt::format("{} argument{}", spec.count, spec.count == 1 ? "" : "s");
  for (std::size_t i = 0; i < spec.count; ++i) {
    out += i == 0 ? " (" : ", ";
    out += spec.args[i].name;
  }
  if (spec.count > 0) out += ")";
  if (with_status) out += " and then a status";
  return out;
}

}  // namespace

void LoadfileParser::parse_line(std::string_view raw, std::uint32_t line) {
  if (const auto nul = raw.find('\0'); nul != std::string_view::npos) {
    error(line, static_cast<std::uint32_t>(nul + 1), "\\0", "NUL byte in a text line",
          "text (a compressed loadfile must be gzip, read directly)");
    return;
  }
  const auto tokens = tokenizer_.split(raw, out_.format);
  if (tokens.empty() || tokens[0].text.empty() || tokens[0].text[0] == '#') return;
  if (tokens[0].text.substr(0, 3) == "SMB") {
    throw ConfigError(
        fmt::format("{}:{}:{}: '{}' is a dbench 1 loadfile line (SMB sniffer format), which is not "
                    "supported; expected a dbench 2, 3 or 4 loadfile such as dbench's client.txt",
                    options_.file_name, line, tokens[0].column, tokens[0].text));
  }
  std::size_t first = 0;
  std::int64_t timestamp = -1;
  if (tokens[0].text[0] >= '0' && tokens[0].text[0] <= '9') {
    if (out_.format == LoadfileFormat::kDbench2) {
      error(line, tokens[0].column, tokens[0].text, "timestamp in a dbench 2 loadfile",
            "an operation name (timestamps exist only in dbench 4 loadfiles; set format=nbench)");
      return;
    }
    const auto ns = parse_timestamp_ns(tokens[0].text);
    if (!ns) {
      error(line, tokens[0].column, tokens[0].text, "bad timestamp",
            "seconds as a decimal number >= 0, e.g. 4.742382000");
      return;
    }
    if (tokens.size() < 2) {
      error(line, tokens[0].column, tokens[0].text, "timestamp without an operation",
            "an operation after the timestamp");
      return;
    }
    // dbench treats a timestamp of 0.0 as "no timestamp".
    timestamp = *ns > 0 ? *ns : -1;
    first = 1;
  }
  const auto rest = tokens.subspan(first);
  const std::string_view keyword = rest[0].text;
  for (const auto& directive : kDirectives) {
    if (keyword != directive.keyword) continue;
    // A LOOP line in error still opens a block, so its ENDLOOP is not reported as well.
    if (first != 0) {
      error(line, tokens[0].column, tokens[0].text, "timestamp before a directive",
            fmt::format("{} without a timestamp", keyword));
      if (keyword == "LOOP") open_loops_.push_back(kNoId);
      return;
    }
    if (repeat_line_ != 0 && keyword != "SLEEP") {
      error(line, rest[0].column, keyword,
            fmt::format("directive after REPEAT (line {})", repeat_line_),
            "an operation line right after REPEAT");
      repeat_line_ = 0;
      if (keyword == "LOOP") open_loops_.push_back(kNoId);
      return;
    }
    ++out_.stats.directive_lines;
    (this->*directive.handler)(rest, line);
    return;
  }
  const OpSpec* spec = find_op(keyword);
  if (spec == nullptr) {
    if (options_.unknown_ops == UnknownOpPolicy::kWarn) {
      count_unknown(keyword, line);
      return;
    }
    repeat_line_ = 0;  // the REPEAT had its line, which is reported below
    std::string expected(kOpList);
    if (keyword.find('\t') != std::string_view::npos) {
      expected += " (tabs do not separate tokens in dbench loadfiles; use spaces)";
    }
    expected += "; set unknown_ops=warn to skip unknown operations";
    error(line, rest[0].column, keyword, "unknown operation", expected);
    return;
  }
  const std::size_t errors_before = error_count_;
  parse_operation(*spec, rest, timestamp, line);
  if (error_count_ != errors_before) repeat_line_ = 0;
}

void LoadfileParser::count_unknown(std::string_view name, std::uint32_t line) {
  ++out_.stats.unknown_lines;
  // A REPEAT before a skipped line repeats nothing: drop it rather than move it to the next line.
  if (repeat_line_ != 0 && !out_.code.empty() && out_.code.back().op == OpCode::kRepeat) {
    out_.code.pop_back();
    repeat_line_ = 0;
  }
  for (auto& u : out_.stats.unknown_ops) {
    if (u.name == name) {
      ++u.count;
      return;
    }
  }
  out_.stats.unknown_ops.push_back({std::string(name), 1, line});
}

void LoadfileParser::parse_operation(const OpSpec& spec, std::span<const Token> tokens,
                                     std::int64_t timestamp, std::uint32_t line) {
  const std::string_view name = loadfile_name(spec.op);
  Instruction ins;
  ins.op = spec.op;
  ins.line = line;
  ins.timestamp_ns = timestamp;
  std::span<const Token> args = tokens.subspan(1);
  const bool nbench = out_.format == LoadfileFormat::kNbench;
  if (nbench) {
    if (args.empty()) {
      error(line, tokens[0].column, tokens[0].text, fmt::format("missing arguments to {}", name),
            describe_args(spec, true));
      return;
    }
    const Token& status = args.back();
    args = args.first(args.size() - 1);
    const auto expect = parse_status(status.text);
    if (!expect) {
      error(line, status.column, status.text, fmt::format("bad status for {}", name),
            "a status as the last token: NT_STATUS_<NAME>, 0x<hex>, SUCCESS, ERROR or *");
      return;
    }
    ins.set_expect(*expect);
    ins.status = intern_status(status.text, line, status.column);
    if (args.size() != spec.count) {
      const Token& at = args.size() > spec.count ? args[spec.count] : status;
      error(line, at.column, at.text,
            fmt::format("{} arguments to {}", args.size() > spec.count ? "too many" : "too few",
                        name),
            describe_args(spec, true));
      return;
    }
  } else {
    if (args.size() < spec.dbench2_required || args.size() > spec.count) {
      const Token& at = args.size() > spec.count ? args[spec.count] : tokens[0];
      error(line, at.column, at.text,
            fmt::format("{} arguments to {}", args.size() > spec.count ? "too many" : "too few",
                        name),
            describe_args(spec, false) +
                (spec.dbench2_required < spec.count
                     ? fmt::format(" (the last {} may be omitted in dbench 2 files)",
                                   spec.count - spec.dbench2_required)
                     : std::string()));
      return;
    }
    ins.set_expect(Expect::kOk);
    ins.status = intern_status("(none)", line, 1);
  }

  std::size_t path_count = 0;
  std::size_t value_slot = 0;
  for (std::size_t i = 0; i < spec.count; ++i) {
    const ArgSpec& arg = spec.args[i];
    if (i >= args.size()) {  // an omitted optional argument (dbench 2)
      if (arg.kind != ArgKind::kPath && arg.kind != ArgKind::kHandle) {
        ins.value[value_slot] = spec.dbench2_defaults[value_slot];
        ++value_slot;
      }
      continue;
    }
    const Token& token = args[i];
    switch (arg.kind) {
      case ArgKind::kPath: {
        const auto id = parse_path(token, line);
        if (!id) return;
        (path_count++ == 0 ? ins.a : ins.b) = *id;
        break;
      }
      case ArgKind::kHandle: {
        const auto number = parse_loadfile_integer(token.text);
        if (!number) {
          error(line, token.column, token.text, fmt::format("bad {} for {}", arg.name, name),
                "an integer handle number (decimal, 0x hex or leading-0 octal; no modifiers)");
          return;
        }
        std::uint32_t id = kNoId;
        if (!nbench && spec.op == OpCode::kNtCreateX && *number == -1) {
          ins.set_expect(Expect::kFailure);  // dbench 2 marks a failed open with handle -1
        } else {
          id = intern_handle(*number, line, token.column);
        }
        (spec.op == OpCode::kNtCreateX ? ins.b : ins.a) = id;
        break;
      }
      default:
        if (!parse_value(token, arg, i, ins, value_slot, line)) return;
        ++value_slot;
        break;
    }
  }
  emit(ins);
}

bool LoadfileParser::parse_value(const Token& token, const ArgSpec& arg, std::size_t position,
                                 Instruction& ins, std::size_t slot, std::uint32_t line) {
  const std::string_view name = loadfile_name(ins.op);
  if (!token.text.empty() && (token.text[0] == '*' || token.text[0] == '+')) {
    std::string why;
    auto parsed = parse_modifier_expression(token.text, why);
    if (!parsed) {
      error(line, token.column, token.text,
            fmt::format("bad modifier expression for the {} of {}", arg.name, name), why);
      return false;
    }
    ValueExpr expr;
    expr.base = parsed->base;
    expr.position = static_cast<std::uint8_t>(position);
    expr.first_step = static_cast<std::uint32_t>(out_.expr_steps.size());
    expr.step_count = static_cast<std::uint32_t>(parsed->steps.size());
    out_.expr_steps.insert(out_.expr_steps.end(), parsed->steps.begin(), parsed->steps.end());
    ins.value[slot] = static_cast<std::int64_t>(out_.exprs.size());
    ins.flags = static_cast<std::uint8_t>(ins.flags | (Instruction::kValueIsExpr << slot));
    out_.exprs.push_back(expr);
    if (arg.kind == ArgKind::kSize) out_.stats.has_expr_sizes = true;
    return true;
  }
  const auto number = parse_loadfile_integer(token.text);
  if (!number) {
    error(line, token.column, token.text, fmt::format("bad {} for {}", arg.name, name),
          "an integer (decimal, 0x hex or leading-0 octal) or a modifier expression such as "
          "*/4096%1048576 or +4096");
    return false;
  }
  if (arg.kind != ArgKind::kNumber && *number < 0) {
    error(line, token.column, token.text, fmt::format("negative {} for {}", arg.name, name),
          "a number >= 0");
    return false;
  }
  if (arg.kind == ArgKind::kSize && static_cast<std::uint64_t>(*number) > kMaxTransferBytes) {
    error(line, token.column, token.text, fmt::format("{} too large for {}", arg.name, name),
          "at most 67108864 bytes (64 MiB)");
    return false;
  }
  ins.value[slot] = *number;
  return true;
}

std::optional<std::uint32_t> LoadfileParser::parse_path(const Token& token, std::uint32_t line) {
  const std::string_view text = token.text;
  const char* const expected_path =
      out_.format == LoadfileFormat::kNbench
          ? "a quoted path such as \"\\clients\\client1\\file\" (an unquoted \\path loses its "
            "leading \\ in dbench 3/4 files; for a dbench 2 file set format=dbench2)"
          : "a path such as \\clients\\client1\\file";
  if (text.empty() || text[0] != '/') {
    error(line, token.column, text, "not a path", expected_path);
    return std::nullopt;
  }
  if (text.size() > kMaxPathBytes) {
    error(line, token.column, text.substr(0, 40), "path too long",
          fmt::format("at most {} bytes", kMaxPathBytes));
    return std::nullopt;
  }
  // A path seen before (nearly every one) was checked then: without a '$' it is its own key.
  if (text.find('$') == std::string_view::npos) {
    if (const std::uint32_t id = known_path(text, false); id != kNoId) return id;
  }
  std::size_t first_end = text.find('/', 1);
  if (first_end == std::string_view::npos) first_end = text.size();
  if (first_end == 1) {
    error(line, token.column, text, "path without a first component",
          "a path below the base directory, such as \\clients\\client1");
    return std::nullopt;
  }
  std::string path(text);
  bool is_template = false;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const auto c = static_cast<unsigned char>(path[i]);
    if (c < 0x20 && c != '\t') {
      error(line, token.column, text, "control character in path", "printable characters");
      return std::nullopt;
    }
    if (path[i] == '$' && i + 1 < path.size() && path[i + 1] >= '0' && path[i + 1] <= '9' &&
        (random_slots_ & (1U << (path[i + 1] - '0'))) != 0) {
      if (i < first_end) {
        error(line, token.column, text, "RANDOMSTRING reference in the first path component",
              "$n only below the first component (cleanup must know the top-level names)");
        return std::nullopt;
      }
      path[i] = kRandomRef;
      is_template = true;
    }
  }
  for (std::size_t start = 1; start <= path.size();) {
    std::size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (std::string_view(path).substr(start, end - start) == "..") {
      error(line, token.column, text, "'..' in path",
            "a path that stays below the base directory (no .. components)");
      return std::nullopt;
    }
    start = end + 1;
  }
  // Templates are interned apart from plain paths: "$1" is literal before RANDOMSTRING 1.
  const std::uint32_t id = intern_path(path, is_template, text, first_end, line, token.column);
  if (id == kNoId) return std::nullopt;
  return id;
}

std::uint32_t LoadfileParser::known_path(std::string_view key, bool is_template) const noexcept {
  const Loadfile& tables = replay_of_ != nullptr ? *replay_of_ : out_;
  return tables.path_index.find(key, is_template, tables.paths);
}

std::uint32_t LoadfileParser::intern_path(std::string& path, bool is_template,
                                          std::string_view text, std::size_t first_end,
                                          std::uint32_t line, std::uint32_t column) {
  if (const std::uint32_t id = known_path(path, is_template); id != kNoId) return id;
  if (replay_of_ != nullptr) {
    error(line, column, text, "path not in the loadfile as validated",
          "the file as it was when the run validated it");
    return kNoId;
  }
  const auto id = static_cast<std::uint32_t>(out_.paths.size());
  const std::string_view top = text.substr(1, first_end - 1);
  if (std::find(out_.top_level_names.begin(), out_.top_level_names.end(), top) ==
      out_.top_level_names.end()) {
    out_.top_level_names.emplace_back(top);
  }
  if (const std::size_t client = text.find("client1"); client != std::string_view::npos) {
    std::size_t root_end = text.find('/', client);
    if (root_end == std::string_view::npos) root_end = text.size();
    const std::string_view root = text.substr(0, root_end);
    // A root holding a RANDOMSTRING reference is left to the top-level removal.
    if (!is_template || path.substr(0, root_end).find(kRandomRef) == std::string::npos) {
      if (std::find(out_.client_roots.begin(), out_.client_roots.end(), root) ==
          out_.client_roots.end()) {
        out_.client_roots.emplace_back(root);
      }
    }
  }
  if (is_template) templates_.push_back({line, column, path});
  out_.paths.push_back({std::move(path), is_template});
  out_.path_index.insert(out_.paths);
  written_.emplace_back();
  return id;
}

void LoadfileParser::emit(Instruction ins) {
  // Runs per REPEAT before it (read before the REPEAT is marked as served below).
  const std::uint64_t repeats =
      repeat_line_ != 0 && !out_.code.empty() && out_.code.back().op == OpCode::kRepeat
          ? static_cast<std::uint64_t>(out_.code.back().value[0])
          : 1;
  if (is_tabulated(ins.op) || ins.op == OpCode::kSleep) {
    ++operations_;
    repeat_line_ = 0;
    if (ins.op == OpCode::kSleep) {
      ++out_.stats.sleep_lines;
    } else {
      ++out_.stats.op_lines[static_cast<std::size_t>(ins.op)];
    }
    if (ins.timestamp_ns > 0) out_.stats.has_timestamps = true;
  }
  const auto constant = [&](std::size_t slot) -> std::uint64_t {
    return ins.value_is_expr(slot) ? 0 : static_cast<std::uint64_t>(ins.value[slot]);
  };
  switch (ins.op) {
    case OpCode::kNtCreateX:
      if (ins.b != kNoId && !for_replay_) handle_path_[ins.b] = ins.a;
      break;
    case OpCode::kWriteX:
      out_.stats.max_write_bytes = std::max(out_.stats.max_write_bytes, constant(1));
      if (!for_replay_) note_write(ins, repeats);
      break;
    case OpCode::kReadX:
      out_.stats.max_read_bytes = std::max(out_.stats.max_read_bytes, constant(1));
      break;
    case OpCode::kRmdir:
    case OpCode::kRename:
      for (const std::uint32_t id : {ins.a, ins.b}) {
        if (id != kNoId && paths()[id].text.find("client1") == std::string::npos) {
          out_.stats.removes_shared_dirs = true;
        }
      }
      break;
    default:
      break;
  }
  out_.code.push_back(ins);
}

std::uint16_t LoadfileParser::intern_status(std::string_view text, std::uint32_t line,
                                            std::uint32_t column) {
  for (std::size_t i = 0; i < out_.statuses.size(); ++i) {
    if (out_.statuses[i] == text) return static_cast<std::uint16_t>(i);
  }
  if (out_.statuses.size() >= 0xffff) {
    error(line, column, text, "too many distinct statuses", "at most 65535");
    return 0;
  }
  out_.statuses.emplace_back(text);
  return static_cast<std::uint16_t>(out_.statuses.size() - 1);
}

std::uint32_t LoadfileParser::intern_string(std::string_view text) {
  if (const auto it = string_ids_.find(text); it != string_ids_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(out_.strings.size());
  out_.strings.emplace_back(text);
  string_ids_.emplace(std::string(text), id);
  return id;
}

std::uint32_t LoadfileParser::intern_handle(std::int64_t number, std::uint32_t line,
                                            std::uint32_t column) {
  if (replay_of_ != nullptr) {
    const std::uint32_t id = replay_of_->handle_index.find(number, replay_of_->handles);
    if (id == kNoId) {
      error(line, column, std::to_string(number), "handle not in the loadfile as validated",
            "the file as it was when the run validated it");
    }
    return id;
  }
  bool inserted = false;
  const std::uint32_t id = out_.handle_index.intern(number, out_.handles, inserted);
  if (inserted) handle_path_.push_back(kNoId);
  return id;
}

}  // namespace detail
}  // namespace iobench::plugins::dbench
