#pragma once

/// Echoing input in messages. Every message that shows something the user (or a file, or the
/// filesystem) gave - a param value, a path, a loadfile line - shows it through printable(), so
/// that a hostile or broken value can neither flood the terminal nor drive it (escape
/// sequences), and what is shown is unambiguous.

#include <cstddef>
#include <string>
#include <string_view>

namespace iobench {

/// The most bytes printable() shows of one value by default: enough for any sensible value or
/// path, small enough that a message stays readable.
inline constexpr std::size_t kMaxEchoBytes = 256;

/// `text` as it may appear in a message: control characters (C0, DEL and the C1 range U+0080..
/// U+009F) and bytes that are not UTF-8 are escaped ("\n", "\t", "\r", "\\x1b"; printable
/// characters, backslashes included, are kept as they are), and if the result is longer than
/// `max_bytes` it is cut in the middle, keeping its start and its end (where a path's file
/// name and an error's errno text are): "start[... 1234 bytes ...]end". Never longer than
/// `max_bytes` (at least 32).
[[nodiscard]] std::string printable(std::string_view text, std::size_t max_bytes = kMaxEchoBytes);

/// A whole message (several lines) made safe to print: as printable() but line breaks are kept
/// and nothing is cut.
[[nodiscard]] std::string printable_message(std::string_view text);

}  // namespace iobench
