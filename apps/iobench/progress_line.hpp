#pragma once

#include <cstddef>
#include <iobench/suite.hpp>
#include <span>
#include <string>
#include <vector>

namespace iobench::cli {

/// One field of the live progress line, as it may be shown: its forms from the longest to the
/// shortest (an empty last form: it may be left out) and how much it matters (a higher
/// `priority` is shortened and left out later).
struct LineField {
  std::vector<std::string> forms;
  int priority = 0;
};

/// The fields joined by single spaces, fitted into `width` columns: while too wide, the field of
/// the lowest priority (the rightmost of equals) that still has a shorter form takes it. Fields
/// only ever change form as a whole, so no number is cut; only when every field is at its
/// shortest and the line is still too wide is it cut at `width` (never inside a UTF-8
/// character). Widths count bytes: a UTF-8 character takes at most as many columns as bytes.
[[nodiscard]] std::string fit_line(std::span<const LineField> fields, std::size_t width);

/// The live line's fields for `progress`, in line order: "[i/n step]", "phase: state",
/// elapsed, bytes so far, throughput, IOPS, p99 of the last interval ("p99 -" until one is
/// known), workers, % done, ETA (each only where meaningful in the state).
[[nodiscard]] std::vector<LineField> progress_fields(const SuiteProgress& progress);

/// The line printed off a terminal: every field at its longest, comma-separated.
[[nodiscard]] std::string plain_progress_line(const SuiteProgress& progress);

/// "45s", "3m05s", "1h02m": to the nearest second, half a second up (elapsed times).
[[nodiscard]] std::string short_duration(std::uint64_t ns);

/// An ETA as short_duration() shows it, but half a second rounds down, so that elapsed + ETA of
/// a time limit shows the limit: 5.5 s -> "5s", 0.4 s -> "0s" (at 100 %).
[[nodiscard]] std::string eta_duration(std::uint64_t ns);

}  // namespace iobench::cli
