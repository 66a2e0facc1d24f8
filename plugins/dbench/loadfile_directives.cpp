#include <fmt/format.h>

#include "plugins/dbench/loadfile_parser_impl.hpp"
#include "plugins/dbench/loadfile_values.hpp"

namespace iobench::plugins::dbench::detail {

const std::array<LoadfileParser::Directive, 8> LoadfileParser::kDirectives{{
    {"LOOP", &LoadfileParser::directive_loop},
    {"ENDLOOP", &LoadfileParser::directive_endloop},
    {"REPEAT", &LoadfileParser::directive_repeat},
    {"SLEEP", &LoadfileParser::directive_sleep},
    {"WRITEPATTERN", &LoadfileParser::directive_writepattern},
    {"RANDOMSTRING", &LoadfileParser::directive_randomstring},
    {"SETSP", &LoadfileParser::directive_unsupported},
    {"WAITSP", &LoadfileParser::directive_unsupported},
}};

bool LoadfileParser::expect_args(std::span<const Token> tokens, std::size_t count,
                                 std::string_view expected, std::uint32_t line) {
  if (tokens.size() == count + 1) return true;
  const Token& at = tokens.size() > count + 1 ? tokens[count + 1] : tokens[0];
  error(line, at.column, at.text,
        fmt::format("{} arguments to {}", tokens.size() > count + 1 ? "too many" : "too few",
                    tokens[0].text),
        expected);
  return false;
}

std::optional<std::int64_t> LoadfileParser::count_arg(const Token& token, std::uint32_t line) {
  const auto n = parse_loadfile_integer(token.text);
  if (!n || *n < 0) {
    error(line, token.column, token.text, "bad count", "an integer >= 0");
    return std::nullopt;
  }
  return n;
}

void LoadfileParser::directive_loop(std::span<const Token> tokens, std::uint32_t line) {
  std::optional<std::int64_t> n;
  if (expect_args(tokens, 1, "LOOP <count>", line)) n = count_arg(tokens[1], line);
  if (n && open_loops_.size() >= kMaxLoopDepth) {
    error(line, tokens[0].column, tokens[0].text, "LOOP nested too deeply",
          fmt::format("at most {} nested LOOPs", kMaxLoopDepth));
    n.reset();
  }
  if (!n) {
    open_loops_.push_back(kNoId);
    return;
  }
  Instruction ins;
  ins.op = OpCode::kLoopBegin;
  ins.line = line;
  ins.value[0] = *n;
  open_loops_.push_back(static_cast<std::uint32_t>(out_.code.size()));
  out_.code.push_back(ins);
}

void LoadfileParser::directive_endloop(std::span<const Token> tokens, std::uint32_t line) {
  if (!expect_args(tokens, 0, "ENDLOOP alone on its line", line)) return;
  if (open_loops_.empty()) {
    error(line, tokens[0].column, tokens[0].text, "ENDLOOP without LOOP",
          "a LOOP <count> line before it");
    return;
  }
  if (open_loops_.back() == kNoId) {  // closes a LOOP line that was in error
    open_loops_.pop_back();
    return;
  }
  Instruction ins;
  ins.op = OpCode::kLoopEnd;
  ins.line = line;
  ins.a = open_loops_.back();
  out_.code.set_loop_end(open_loops_.back(), static_cast<std::uint32_t>(out_.code.size()));
  open_loops_.pop_back();
  out_.code.push_back(ins);
}

void LoadfileParser::directive_repeat(std::span<const Token> tokens, std::uint32_t line) {
  if (!expect_args(tokens, 1, "REPEAT <count>", line)) return;
  const auto n = count_arg(tokens[1], line);
  if (!n) return;
  Instruction ins;
  ins.op = OpCode::kRepeat;
  ins.line = line;
  ins.value[0] = *n;
  out_.code.push_back(ins);
  repeat_line_ = line;
}

void LoadfileParser::directive_sleep(std::span<const Token> tokens, std::uint32_t line) {
  // SLEEP usec, optionally with a status like the 4.00 "Sleep" operation.
  if (tokens.size() == 3 && looks_like_status(tokens[2].text)) tokens = tokens.first(2);
  if (!expect_args(tokens, 1, "SLEEP <microseconds>", line)) return;
  Instruction ins;
  ins.op = OpCode::kSleep;
  ins.line = line;
  ins.set_expect(Expect::kAny);
  ins.status = intern_status("(none)", line, 1);
  if (!parse_value(tokens[1], ArgSpec{ArgKind::kUnsigned, "microseconds"}, 0, ins, 0, line)) {
    return;
  }
  emit(ins);
}

void LoadfileParser::directive_writepattern(std::span<const Token> tokens, std::uint32_t line) {
  if (!expect_args(tokens, 1, "WRITEPATTERN <text> (quote it if it has spaces)", line)) return;
  if (tokens[1].text.empty()) {
    error(line, tokens[1].column, tokens[1].text, "empty WRITEPATTERN", "at least one character");
    return;
  }
  Instruction ins;
  ins.op = OpCode::kWritePattern;
  ins.line = line;
  ins.a = intern_string(tokens[1].text);
  out_.code.push_back(ins);
}

void LoadfileParser::directive_randomstring(std::span<const Token> tokens, std::uint32_t line) {
  if (!expect_args(tokens, 2, "RANDOMSTRING <0-9> \"<text with [set] groups>\"", line)) return;
  const std::string_view slot = tokens[1].text;
  if (slot.size() != 1 || slot[0] < '0' || slot[0] > '9') {
    error(line, tokens[1].column, slot, "bad RANDOMSTRING slot", "a digit 0-9");
    return;
  }
  const std::string_view text = tokens[2].text;
  bool in_set = false;
  std::size_t set_size = 0;
  std::size_t length = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto column = tokens[2].column;
    if (c == '[' && !in_set) {
      in_set = true;
      set_size = 0;
    } else if (c == ']' && in_set) {
      if (set_size == 0) {
        error(line, column, text, "empty [] set in RANDOMSTRING", "at least one character in []");
        return;
      }
      in_set = false;
      ++length;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == '/' || c == '$') {
      error(line, column, text, "bad character in RANDOMSTRING",
            "characters allowed in one file name component (no /, $ or control characters)");
      return;
    } else if (in_set) {
      ++set_size;
    } else {
      ++length;
    }
  }
  if (in_set) {
    error(line, tokens[2].column, text, "unclosed [ in RANDOMSTRING", "a ] closing every set");
    return;
  }
  if (length == 0 || length > 255) {
    error(line, tokens[2].column, text, "bad RANDOMSTRING length", "1 to 255 characters");
    return;
  }
  Instruction ins;
  ins.op = OpCode::kRandomString;
  ins.line = line;
  ins.a = static_cast<std::uint32_t>(slot[0] - '0');
  ins.b = intern_string(text);
  random_slots_ = static_cast<std::uint16_t>(random_slots_ | (1U << ins.a));
  random_defs_[ins.a].push_back({line, std::string(text)});
  out_.code.push_back(ins);
}

void LoadfileParser::directive_unsupported(std::span<const Token> tokens, std::uint32_t line) {
  error(line, tokens[0].column, tokens[0].text,
        "unsupported directive (SETSP/WAITSP cross-client sequence points)",
        "a loadfile without SETSP/WAITSP");
}

}  // namespace iobench::plugins::dbench::detail
