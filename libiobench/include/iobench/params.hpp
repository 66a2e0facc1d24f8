#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace iobench {

/// The type of a workload parameter; decides how its text is parsed (see units.hpp).
enum class ParamType {
  kBool,      ///< true/false, yes/no, on/off, 1/0
  kCount,     ///< unsigned integer with optional binary suffix: "50k" = 51200
  kSize,      ///< bytes with optional suffix: "4k", "1MiB", "2GB"
  kInt,       ///< signed decimal integer
  kDouble,    ///< floating point
  kDuration,  ///< "10s", "500ms"; plain numbers are seconds
  kEnum,      ///< one of `choices`
  kString,    ///< free text (a path, a name, a list)
  kSizeList,  ///< sizes as kSize reads each, separated by commas or spaces: "256m,1g", "2*ram"
};

/// The type's name as `iobench list` and error messages show it: "bool", "count", "size", ...
[[nodiscard]] std::string_view to_string(ParamType type) noexcept;

/// Declaration of one workload parameter: drives validation, `iobench list`, and did-you-mean
/// suggestions for unknown keys. Capabilities are data: the core never branches on a workload name.
struct ParamSpec {
  std::string key{};  ///< e.g. "bs"
  ParamType type = ParamType::kString;
  std::string default_value{};  ///< text form; empty with `required` false means "unset"
  std::string unit{};           ///< shown to the user, e.g. "bytes", "blocks", "s"
  std::string help{};           ///< one line
  std::optional<std::uint64_t>
      min{};  ///< inclusive, for kCount/kSize/kInt (as value) and kDuration (ns)
  std::optional<std::uint64_t> max{};  ///< inclusive, same units as `min`
  std::vector<std::string> choices{};  ///< for kEnum
  bool required = false;               ///< no default: the user must give it
  /// kSize, kSizeList: the option of the original tool this param stands for read a bare number
  /// as MiB (e.g. "bonnie++ -s", "tiotest -f"), where iobench reads bytes. Non-empty: a bare
  /// number other than 0 ("64") is refused with a message naming this origin and the unit forms
  /// ("64m" for 64 MiB, "64b" for 64 bytes), because it would silently mean 2^20 times less.
  std::string bare_number_was_mib_in{};
};

/// What machine-relative sizes refer to. A kSize value may be an expression instead of a plain
/// size: factors joined by '*' and '/' (left to right, spaces allowed around them), each "ram"
/// (physical memory), "targets" (the step's number of targets), a decimal number or a size, e.g.
/// "2*ram" (bonnie++'s rule for a file the page cache cannot hold), "ram/2/targets" (half of RAM
/// shared by the targets), "0.25*ram". The result is rounded down to a whole MiB.
struct SizeContext {
  std::uint64_t ram_bytes = 0;  ///< 0: "ram" is refused (unknown here)
  std::uint64_t targets = 1;    ///< the step's number of targets (-d), at least 1
};

/// Validated parameter values of one workload instance. Values are stored as checked text plus the
/// parsed number, so reports can echo exactly what the user gave.
///
/// Getters throw ConfigError if `key` is not declared (a programming error in the workload).
class Params {
 public:
  Params() = default;

  /// Validates `raw` (key -> text) against `specs` and fills in defaults.
  /// Throws ConfigError for: an unknown key (with the closest declared key as a suggestion), a
  /// value that does not parse as its type, a value outside [min, max], an enum value not in
  /// `choices`, a missing required key, a bad size expression. `context` prefixes messages (e.g.
  /// the workload name); `sizes` resolves size expressions, whose text is then replaced by the
  /// resolved size
  /// ("2*ram" -> "48GiB"), so that reports show what was measured.
  [[nodiscard]] static Params validate(std::span<const ParamSpec> specs,
                                       const std::map<std::string, std::string>& raw,
                                       std::string_view context, const SizeContext& sizes = {});

  /// True if the user gave `key` explicitly (not a default).
  [[nodiscard]] bool given(std::string_view key) const;
  /// True if `key` has a value (given or defaulted).
  [[nodiscard]] bool has(std::string_view key) const;

  [[nodiscard]] bool get_bool(std::string_view key) const;
  /// kCount, kSize: the unsigned value (bytes for kSize).
  [[nodiscard]] std::uint64_t get_u64(std::string_view key) const;
  /// kSizeList: the sizes in bytes, in the order given (at least one).
  [[nodiscard]] const std::vector<std::uint64_t>& get_u64_list(std::string_view key) const;
  [[nodiscard]] std::int64_t get_int(std::string_view key) const;
  [[nodiscard]] double get_double(std::string_view key) const;
  [[nodiscard]] std::chrono::nanoseconds get_duration(std::string_view key) const;
  /// The text of any parameter (the enum choice, the string, or the given text of a number).
  [[nodiscard]] const std::string& get_string(std::string_view key) const;

  /// All parameters with a value, as text, in key order (for echoing into results).
  [[nodiscard]] std::map<std::string, std::string> as_text() const;

 private:
  struct Value {
    ParamType type;
    std::string text;
    std::uint64_t u64 = 0;
    std::int64_t i64 = 0;
    double f64 = 0;
    std::vector<std::uint64_t> list;
    bool given = false;
  };
  [[nodiscard]] const Value& find(std::string_view key) const;
  std::map<std::string, Value, std::less<>> values_;
};

/// Parses `text` as a kSize param reads it: a size ("4k", "1GiB") or a size expression over
/// `sizes` ("2*ram", "ram/2/targets", rounded down to a whole MiB). `field` starts the error
/// message. Throws ConfigError. For workloads that take sizes inside a text of their own.
[[nodiscard]] std::uint64_t parse_size_value(std::string_view text, std::string_view field,
                                             const SizeContext& sizes = {});

/// How the items of a list value are separated.
enum class ListSeparators {
  kCommas,          ///< commas only; blanks around an item are trimmed ("a, b")
  kCommasOrBlanks,  ///< commas, or blanks (spaces, tabs) where the text has no comma ("1 2 4")
};

/// The items of a list param's value ("1,2,4", "put_block,get_block", "256m,1g"), each trimmed
/// of blanks, in order. Every list a workload takes is split here, so all refuse the same
/// input: an empty value, or an empty item (",,", a leading or a trailing comma), is refused
/// with a ConfigError naming `field` (e.g. "tiobench: threads"), the value and the fix, with
/// `example` as a valid value. Returns views into `text`.
[[nodiscard]] std::vector<std::string_view> split_list_param(std::string_view text,
                                                             std::string_view field,
                                                             std::string_view example,
                                                             ListSeparators separators);

/// Levenshtein-closest of `candidates` to `word`, or empty if none is within a third of its length
/// plus one. Used for "unknown parameter 'bz'; did you mean 'bs'?".
[[nodiscard]] std::string closest_match(std::string_view word,
                                        std::span<const std::string> candidates);

}  // namespace iobench
