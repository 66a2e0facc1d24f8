#pragma once

/// Internal to the WML parser (wml_parser.hpp): the recursive-descent parser's state, shared by
/// its three sources: wml_parser.cpp (statements, filesets, processes, threads, run),
/// wml_values.cpp (values, cvars, attributes, numbers) and wml_flowop_parser.cpp (flowops).

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <iobench/error.hpp>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "plugins/filebench/wml_lexer.hpp"
#include "plugins/filebench/wml_model.hpp"
#include "plugins/filebench/wml_parser.hpp"

namespace iobench::plugins::filebench::detail {

/// A value after '=' (variables resolved): a word, a string, or a cvar.
struct Value {
  Token token;  ///< the word or string (for a variable: the value it was set to)
  std::optional<SizeSpec> cvar;
  WmlPosition where;                          ///< where it was used
  std::shared_ptr<const RandVarDef> randvar;  ///< a randvar's variable (token: "randvar")
};

struct Attr {
  std::string name;
  std::optional<Value> value;
  WmlPosition where;
};

class WmlParser {
 public:
  /// `read_include`: the reader of included files; null: `include` is refused.
  /// `identity`: the main file's, where it was read from one (include cycle check).
  WmlParser(std::string_view text, std::string_view file_name, const WmlIncludeReader* read_include,
            std::optional<InputFileIdentity> identity = std::nullopt)
      : file_(file_name), tokens_(lex_wml(text, file_name)), read_include_(read_include) {
    open_files_.push_back(OpenFile{std::string(file_name), absolute_key(file_name), identity, 0});
    model_.sources.push_back(WmlSource{std::string(file_name), ""});
  }

  WmlModel parse() {
    while (peek().kind != TokenKind::kEnd) statement();
    check_post_targets();
    return std::move(model_);
  }

 private:
  [[noreturn]] void fail(WmlPosition at, const std::string& message) const {
    throw ConfigError(model_.located(at, model_.sources.front().name, message));
  }
  const Token& peek() const { return tokens_[pos_]; }
  Token next() { return tokens_[pos_ < tokens_.size() - 1 ? pos_++ : pos_]; }
  static std::string shown(const Token& t) {
    switch (t.kind) {
      case TokenKind::kEnd:
        return "the end of the file";
      case TokenKind::kVariable:
        return "'$" + t.text + "'";
      case TokenKind::kString:
        return "\"" + t.text + "\"";
      default:
        return "'" + t.text + "'";
    }
  }
  bool at_punct(char c) const { return peek().kind == TokenKind::kPunct && peek().text[0] == c; }
  void expect_punct(char c, std::string_view context) {
    const Token t = next();
    if (t.kind != TokenKind::kPunct || t.text[0] != c)
      fail(t.where, fmt::format("expected '{}' {}, found {}", c, context, shown(t)));
  }
  Token expect_word(std::string_view what) {
    const Token t = next();
    if (t.kind != TokenKind::kWord)
      fail(t.where, fmt::format("expected {}, found {}", what, shown(t)));
    return t;
  }

  void statement();
  /// `enable lathist|multi` and `disable lathist` (`word` is enable or disable).
  void enable_statement(const Token& word);
  /// `include "PATH"` (`include` read): parses the file in place (iobench's extension).
  void include_statement(const Token& word);
  /// The absolute, lexically normal form of `path` (cycle detection).
  static std::string absolute_key(const std::filesystem::path& path);
  /// Fails at `name` (an include's path) naming the cycle from open_files_[first] to
  /// `shown_path`, `same_as` added after it (empty, or ", the same file as NAME").
  [[noreturn]] void cycle_error(const Token& name, std::size_t first, const std::string& shown_path,
                                const std::string& same_as) const;
  void set_statement();
  /// `set mode quit timeout|firstdone|alldone` (`mode` read).
  void set_mode();
  void define_statement(const Token& define);
  /// `run [N]` (`run` read, `word`: where a second run is reported).
  void run_statement(const Token& word);
  /// `sleep N|$var` (`sleep` read).
  void sleep_statement(const Token& word);
  /// `psrun [[-]P [D]]` (`psrun` read).
  void psrun_statement(const Token& word);
  /// What `run [N]` and `psrun` share: the run's length (`given` seconds; none: 60 s in timeout
  /// mode, until done otherwise); `t` places the error of a second run.
  void begin_run(const Token& t, std::optional<std::uint64_t> given);
  /// A whole number of seconds (a number or $var), `least` to kMaxRunSeconds; `what` names it.
  std::uint64_t seconds_value(std::string_view what, std::uint64_t least);
  /// `eventgen rate=N`.
  void eventgen_statement(const Token& word);
  Value value();
  /// `cvar(...)` after its word (wml_cvar_parser.cpp).
  SizeSpec cvar(const Token& cvar_word);
  // Random variables (wml_randvar_parser.cpp).
  /// `define randvar name=$v, ...`: sets $v.
  void define_randvar(WmlPosition where);
  /// `randvar(...)` after `set $v =` (the word read): the variable's value.
  Value randvar_call(const Token& word);
  /// The attribute list of a randvar up to its end (`close`: ')' or 0 for the end of the list).
  RandVarDef randvar_attributes(WmlPosition where, bool named, char close);
  void randvar_attribute(RandVarDef& r, const Token& key, bool named);
  /// `{{PERCENT, MIN, MAX}, ...}` after randtable=.
  void randtable(RandVarDef& r);
  /// A randvar attribute's number (sizes with k/m/g/t, at most 2^44).
  std::uint64_t randvar_number(std::string_view attr);
  std::vector<Attr> attributes();
  [[noreturn]] void bad_attribute(const Attr& a, std::string_view what,
                                  std::string_view accepted) const;
  std::uint64_t number(const Value& v, std::string_view attr, bool sizes) const;
  double real(const Value& v, std::string_view attr) const;
  std::string text(const Value& v, std::string_view attr) const;
  /// A boolean attribute: bare (true) or =true/=false.
  bool flag(const Attr& a) const;
  void fileset(bool single_file, WmlPosition where);
  void process(WmlPosition where);
  ThreadDef thread();
  FlowopDef flowop();
  /// The attributes flowop `f` (of type word `kind`) needs given its kind: values, iosize,
  /// filesets, targets.
  void check_flowop(const FlowopDef& f, const Token& kind) const;
  /// Resolves the `target=NAME` of t's finishoncount/finishonbytes and rate-limit flowops (any
  /// flowop of the thread, as filebench looks it up in the thread's list).
  void resolve_targets(ThreadDef& t);
  /// Every sempost's target names a semblock of some thread, every wakeup's a block (filebench
  /// looks them up among all flowops of the run).
  void check_post_targets() const;
  std::uint32_t count32(const Attr& a, std::uint64_t max) const {
    const std::uint64_t n = number(need_value(a), a.name, false);
    if (n < 1 || n > max)
      fail(a.value->where, fmt::format("{}={} is out of range; give 1 to {}", a.name, n, max));
    return static_cast<std::uint32_t>(n);
  }
  const Value& need_value(const Attr& a) const {
    if (!a.value)
      fail(a.where, fmt::format("attribute '{}' needs a value: {}=...", a.name, a.name));
    return *a.value;
  }

  /// A file being parsed: the main one, then one per `include` being followed.
  struct OpenFile {
    std::string name;                           ///< as shown in messages
    std::string key;                            ///< absolute_key(name)
    std::optional<InputFileIdentity> identity;  ///< the file read; none: from memory
    std::uint32_t line = 0;  ///< the line of its `include` in the file before it (0: main)
  };

  std::string file_;  ///< the file whose tokens are parsed
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  const WmlIncludeReader* read_include_;
  std::vector<OpenFile> open_files_;
  std::size_t includes_ = 0;  ///< include statements followed so far
  std::map<std::string, Value> vars_;
  WmlModel model_;
  /// Per flowop of the thread being parsed: its `target=` name (empty: none) and position.
  std::vector<std::pair<std::string, WmlPosition>> targets_;
  bool saw_eventgen_ = false;
  bool saw_run_ = false;          ///< a run or psrun read: every statement after it is refused
  std::string setting_;           ///< the variable a `set` statement is setting (randvar's name)
  std::uint32_t cvar_count_ = 0;  ///< cvars so far (CvarDef::id)
};

}  // namespace iobench::plugins::filebench::detail
