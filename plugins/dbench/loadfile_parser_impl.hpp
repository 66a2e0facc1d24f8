#pragma once

// Private to the loadfile parser: the parser's state and the argument lists of the operations,
// shared by loadfile_parser.cpp (operations, paths, interning) and loadfile_directives.cpp
// (LOOP, REPEAT, SLEEP, WRITEPATTERN, RANDOMSTRING).

#include <array>
#include <cstdint>
#include <iobench/error.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "plugins/dbench/loadfile_parser.hpp"
#include "plugins/dbench/loadfile_reader.hpp"
#include "plugins/dbench/loadfile_tokenizer.hpp"

namespace iobench::plugins::dbench::detail {

/// What one argument of an operation is.
enum class ArgKind : std::uint8_t {
  kPath,      ///< a path (the first goes to Instruction::a, the second to b)
  kHandle,    ///< a handle number (to a; NTCreateX: to b)
  kNumber,    ///< any integer or modifier expression
  kUnsigned,  ///< an integer >= 0 or a modifier expression
  kSize,      ///< like kUnsigned, at most kMaxTransferBytes
};

struct ArgSpec {
  ArgKind kind;
  const char* name;
};

/// Argument list of one operation. dbench 2 files may omit the trailing optional arguments.
struct OpSpec {
  OpCode op;
  std::uint8_t count;
  std::uint8_t dbench2_required;
  std::array<ArgSpec, 4> args;
  std::array<std::int64_t, 3> dbench2_defaults;  ///< values of omitted numbers, by value slot
};

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept {
    return std::hash<std::string_view>{}(s);
  }
};
using InternMap = std::unordered_map<std::string, std::uint32_t, StringHash, std::equal_to<>>;

/// One parse of one loadfile into a Loadfile the caller owns; see parse_loadfile(). Takes the
/// text whole (parse_text) or as it is read (feed, then finish), and can forget the code it has
/// no more use for (needed_from), so that a replay can read its loadfile as it goes.
class LoadfileParser {
 public:
  /// Parses into `out`, which must be empty and outlive the parser. `replay_of`: a parse that
  /// only feeds a replay of that file, validated before (and outliving the parser): its paths and
  /// handles get their ids from the validation's tables (Loadfile::path_index, handle_index),
  /// read-only, and `out` gets none of them (a client process does not build its own copy; one
  /// not found there means the file changed, an error); the free-space estimate
  /// (LoadfileStats::written_bytes), which costs memory per WriteX, is left out.
  LoadfileParser(Loadfile& out, const ParseOptions& options, const Loadfile* replay_of = nullptr)
      : options_(options), out_(out), replay_of_(replay_of), for_replay_(replay_of != nullptr) {
    out_.name = options.file_name;
  }

  /// Parses all of `text`, then finish().
  void parse_text(std::string_view text);
  /// Parses the complete lines of `buffer` (all of it when `!more`: the text ends there) and
  /// erases them from it; keep the rest and append the next text to it. Problems are collected
  /// for finish(); a line that ends the parse at once (a dbench 1 file) is kept and thrown by
  /// finish(), after the rest of the text was read (a read error comes first).
  void feed(std::string& buffer, bool more);
  /// After the last feed(): the end-of-file checks. Throws ConfigError listing up to
  /// options.max_errors problems; otherwise fills in the statistics.
  void finish();
  /// The first instruction the parser may still look at: an open LOOP (its ENDLOOP sets its
  /// jump), a REPEAT waiting for its line, or the next one. Program::drop_before() may forget
  /// everything before it.
  [[nodiscard]] std::size_t needed_from() const noexcept;
  /// Problems found so far.
  [[nodiscard]] std::size_t error_count() const noexcept { return error_count_; }
  /// A REPEAT is the last instruction and waits for its line; it is dropped again if that line
  /// is an operation skipped as unknown (unknown_ops=warn), so it is not final yet.
  [[nodiscard]] bool repeat_pending() const noexcept { return repeat_line_ != 0; }

 private:
  struct Directive {
    std::string_view keyword;
    void (LoadfileParser::*handler)(std::span<const Token>, std::uint32_t);
  };

  /// The format (options_.format, or decided from the first operation line); nullopt when
  /// `text` is not `complete` and has no complete operation line yet. Examines the lines from
  /// `from` on and leaves it at the first line not examined (to resume with more text).
  std::optional<LoadfileFormat> detect_format(std::string_view text, bool complete,
                                              std::size_t& from);
  /// Parses the lines of `text` (all of them if `complete`, else those ending in '\n'),
  /// counting them in line_; returns the bytes consumed.
  std::size_t parse_lines(std::string_view text, bool complete);
  void parse_line(std::string_view raw, std::uint32_t line);
  void parse_operation(const OpSpec& spec, std::span<const Token> tokens, std::int64_t timestamp,
                       std::uint32_t line);
  bool parse_value(const Token& token, const ArgSpec& arg, std::size_t position, Instruction& ins,
                   std::size_t slot, std::uint32_t line);
  std::optional<std::uint32_t> parse_path(const Token& token, std::uint32_t line);
  void directive_loop(std::span<const Token> tokens, std::uint32_t line);
  void directive_endloop(std::span<const Token> tokens, std::uint32_t line);
  void directive_repeat(std::span<const Token> tokens, std::uint32_t line);
  void directive_sleep(std::span<const Token> tokens, std::uint32_t line);
  void directive_writepattern(std::span<const Token> tokens, std::uint32_t line);
  void directive_randomstring(std::span<const Token> tokens, std::uint32_t line);
  void directive_unsupported(std::span<const Token> tokens, std::uint32_t line);
  bool expect_args(std::span<const Token> tokens, std::size_t count, std::string_view expected,
                   std::uint32_t line);
  std::optional<std::int64_t> count_arg(const Token& token, std::uint32_t line);
  void emit(Instruction ins);
  void count_unknown(std::string_view name, std::uint32_t line);
  std::uint16_t intern_status(std::string_view text, std::uint32_t line, std::uint32_t column);
  std::uint32_t intern_string(std::string_view text);
  std::uint32_t intern_handle(std::int64_t number, std::uint32_t line, std::uint32_t column);
  /// The id of path `path` (a template if `is_template`) if it has one, else kNoId.
  [[nodiscard]] std::uint32_t known_path(std::string_view path, bool is_template) const noexcept;
  /// The id of checked path `path` (its loadfile spelling `text`, whose first component ends at
  /// `first_end`): the one it has, else in a replay an error and kNoId, else a new id (`path`
  /// is moved into the table).
  std::uint32_t intern_path(std::string& path, bool is_template, std::string_view text,
                            std::size_t first_end, std::uint32_t line, std::uint32_t column);
  /// The path table ids refer to: the validation's in a replay, else the one being built.
  [[nodiscard]] const std::vector<PathEntry>& paths() const noexcept {
    return replay_of_ != nullptr ? replay_of_->paths : out_.paths;
  }
  void error(std::uint32_t line, std::uint32_t column, std::string_view token,
             std::string_view problem, std::string_view expected);
  void finish_stats();
  /// Errors for template paths a RANDOMSTRING can turn into a '..' component (validate sees
  /// them; the replay refuses any name that leaves the run directory anyway).
  void check_templates();

  static const std::array<Directive, 8> kDirectives;

  const ParseOptions& options_;
  Loadfile& out_;
  const Loadfile* replay_of_;
  bool for_replay_;
  std::uint32_t line_ = 0;
  std::optional<LoadfileFormat> format_;
  std::size_t detect_from_ = 0;         // lines before it were examined and decided nothing
  std::optional<ConfigError> refused_;  // thrown by finish(), after the text was read
  LineTokenizer tokenizer_;
  std::vector<std::string> errors_;
  std::size_t error_count_ = 0;
  InternMap string_ids_;
  // dense handle id -> path id of its last NTCreateX (for note_write: empty for a replay)
  std::vector<std::uint32_t> handle_path_;
  /// Per path id, what the writes through it can occupy: 4 KiB-aligned [begin, end) ranges of
  /// the writes with a known place (merged in finish_stats), and the summed sizes (times their
  /// executions per pass) of those without one (unbounded offsets, template paths).
  struct WrittenSpace {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
    std::uint64_t unplaced_bytes = 0;
  };
  std::vector<WrittenSpace> written_;
  /// Adds what WriteX `ins` (run `repeats` times in a row by a REPEAT) can occupy.
  void note_write(const Instruction& ins, std::uint64_t repeats);
  /// Upper bound of value slot `slot` of `ins`; nullopt when it has none known at parse time.
  [[nodiscard]] std::optional<std::uint64_t> value_max(const Instruction& ins,
                                                       std::size_t slot) const;
  /// How many times an instruction about to be emitted runs per pass: `repeats` times the
  /// enclosing LOOP counts.
  [[nodiscard]] std::uint64_t executions_per_pass(std::uint64_t repeats) const;
  std::vector<std::uint32_t> open_loops_;  // indexes of kLoopBegin without ENDLOOP yet
  std::uint32_t repeat_line_ = 0;          // line of a REPEAT waiting for its operation, or 0
  std::uint16_t random_slots_ = 0;         // bit n: an earlier RANDOMSTRING defined slot n
  struct TemplateUse {
    std::uint32_t line = 0;
    std::uint32_t column = 0;
    std::string text;  // the path with kRandomRef markers
  };
  std::vector<TemplateUse> templates_;  // first use of each template path
  struct RandomDef {
    std::uint32_t line = 0;
    std::string text;  // the RANDOMSTRING template
  };
  std::array<std::vector<RandomDef>, 10> random_defs_;  // every definition of each slot
  std::size_t operations_ = 0;
};

}  // namespace iobench::plugins::dbench::detail
