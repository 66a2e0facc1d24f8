#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "plugins/dbench/loadfile_program.hpp"

namespace iobench::plugins::dbench {

/// What the parser does with an operation name it does not know.
enum class UnknownOpPolicy {
  kError,  ///< a parse error (the default)
  kWarn,   ///< skip the line and count it in LoadfileStats::unknown_ops
};

/// How to parse one loadfile.
struct ParseOptions {
  std::string file_name = "loadfile";  ///< used in every message
  LoadfileFormat format = LoadfileFormat::kAuto;
  UnknownOpPolicy unknown_ops = UnknownOpPolicy::kError;
  std::size_t max_errors = 20;  ///< errors listed in the message; the rest are only counted
  /// parse_loadfile_file() asks this between chunks of text (64 KiB) and throws InterruptedError
  /// once it is true: a stop is not kept waiting for a big loadfile. Empty: never asked.
  std::function<bool()> stop_requested{};
};

/// Parses and validates the text of a dbench loadfile into its executable form. Pure: no I/O.
///
/// Formats (see dbench.md §1): dbench 3/4 NBench lines `[timestamp] Op args... status`, with
/// quoted `\` paths, NT_STATUS_* / 0x / SUCCESS / ERROR / `*` statuses, `#` comments; dbench 2
/// lines `Op args...` with unquoted paths, no status and handle -1 for a failed open. The format is
/// taken from `options.format` or, for kAuto, from the first operation line (a status-like last
/// token means NBench). A dbench 1 file (SMB sniffer lines) is refused.
///
/// Directives (dbench 4.x/5.0): LOOP n / ENDLOOP (nestable), REPEAT n (applies to the next
/// operation line), SLEEP usec, WRITEPATTERN text, RANDOMSTRING idx "text[set]...". Numeric
/// arguments other than handles may be value modifier expressions: `*` (random) or `+n` (previous
/// line's value at this argument position plus n), followed by `/y` (align down), `%y` (modulo),
/// `+y` (add), where y may also be `child` or `num_children` for `+`. `$n` in a path refers to a
/// RANDOMSTRING slot only if an earlier RANDOMSTRING line defined slot n; otherwise `$` is literal
/// (client.txt has names like ~$CHAP10.DOC).
///
/// Differences from dbench's own reader, all stricter: operations need exactly their argument
/// count (dbench ignores extra tokens and reads missing ones as 0), numbers must be whole tokens
/// (dbench's strtol stops at junk), a bad status is an error (dbench skips the line), paths may not
/// contain ".." components or leave the base directory, nor a component that a RANDOMSTRING can
/// turn into ".." (checked over every definition of the slots, up to 4096 combinations per
/// component; the replay refuses any such name it meets anyway), and sizes are at most 64 MiB.
///
/// Throws ConfigError listing up to `options.max_errors` problems, one per line, each as
/// `<file>:<line>:<column>: <problem> '<token>'; expected <what>`.
[[nodiscard]] Loadfile parse_loadfile(std::string_view text, const ParseOptions& options);

/// parse_loadfile() of the text of the file at `path` (plain or gzip, as read_loadfile_text()
/// reads it), read and parsed a chunk at a time: the whole text is never in memory. Without
/// `keep_code` the result holds the tables and statistics but not the instructions (Program
/// keeps only its last few: the validation of a loadfile that LoadfileStream replays), so memory
/// does not grow with the file. Loadfile::source is the file read. Throws ConfigError as
/// read_loadfile_text() (unreadable, corrupt, more than `max_bytes` of text; these first) and as
/// parse_loadfile(); InterruptedError once `options.stop_requested` says so.
[[nodiscard]] Loadfile parse_loadfile_file(const std::filesystem::path& path, std::size_t max_bytes,
                                           const ParseOptions& options, bool keep_code = true);

/// The largest ReadX/WriteX size accepted, in bytes (64 MiB).
inline constexpr std::uint64_t kMaxTransferBytes = 64ULL << 20;
/// The deepest LOOP nesting accepted.
inline constexpr std::size_t kMaxLoopDepth = 32;
/// The longest path accepted, in bytes, before the base directory is prepended.
inline constexpr std::size_t kMaxPathBytes = 3000;

}  // namespace iobench::plugins::dbench
