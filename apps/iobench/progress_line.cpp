#include "progress_line.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iobench/format.hpp>
#include <iobench/printable.hpp>

namespace iobench::cli {
namespace {

// How much each field matters on a narrow terminal (higher: kept longer).
enum Priority : int {
  kWorkers = 0,
  kElapsed = 1,
  kBytes = 2,
  kP99 = 3,
  kStep = 4,
  kIops = 5,
  kDone = 6,
  kThroughput = 7,
  kEta = 8,
  kPhase = 9,
};

// `text` cut to at most `bytes` bytes at a UTF-8 character boundary.
std::string cut_utf8(std::string_view text, std::size_t bytes) {
  if (text.size() <= bytes) return std::string(text);
  std::size_t end = bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return std::string(text.substr(0, end));
}

// A name as a field shows it: safe to print, and at most `bytes` long ("~" marks a cut).
std::string shown_name(std::string_view name, std::size_t bytes) {
  const std::string safe = printable(name, 64);
  if (safe.size() <= bytes) return safe;
  return cut_utf8(safe, bytes - 1) + "~";
}

std::string throughput(double bytes_per_s) {
  const double mib = to_mib_per_s(bytes_per_s);
  return mib >= 1000 ? fmt::format("{:.0f} MiB/s", mib) : fmt::format("{:.1f} MiB/s", mib);
}

std::string iops(double ops_per_s) {
  return ops_per_s >= 1e5 ? fmt::format("{:.0f}k IOPS", ops_per_s / 1e3)
                          : fmt::format("{:.0f} IOPS", ops_per_s);
}

std::string_view state_word(const ProgressSnapshot& s) {
  if (s.state == ProgressState::kMeasuring && !s.phase_measured) return "running (untimed)";
  return to_string(s.state);
}

// Rates mean something in the timed loop once it did anything.
bool has_rates(const ProgressSnapshot& s) {
  return (s.state == ProgressState::kWarmUp || s.state == ProgressState::kMeasuring) &&
         (s.ops != 0 || s.bytes != 0);
}

}  // namespace

std::string short_duration(std::uint64_t ns) {
  const std::uint64_t s = (ns + 500'000'000) / 1'000'000'000;
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

std::string eta_duration(std::uint64_t ns) {
  // Half a second rounds down here and up in short_duration: the elapsed time and the ETA of a
  // time limit then add up to the limit exactly (4.5 s of 10 s: "5s", "ETA 5s"), never 1 s over.
  return short_duration(ns > 0 ? ns - 1 : 0);
}

std::string fit_line(std::span<const LineField> fields, std::size_t width) {
  std::vector<std::size_t> form(fields.size(), 0);
  const auto render = [&] {
    std::string line;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].forms.empty()) continue;
      const std::string& text = fields[i].forms[form[i]];
      if (text.empty()) continue;
      if (!line.empty()) line += ' ';
      line += text;
    }
    return line;
  };
  for (std::string line = render();; line = render()) {
    if (line.size() <= width) return line;
    std::size_t pick = fields.size();
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (form[i] + 1 >= fields[i].forms.size()) continue;  // at its shortest
      if (pick == fields.size() || fields[i].priority <= fields[pick].priority) pick = i;
    }
    if (pick == fields.size()) return cut_utf8(line, width);
    ++form[pick];
  }
}

std::vector<LineField> progress_fields(const SuiteProgress& progress) {
  const ProgressSnapshot& s = progress.phase;
  std::vector<LineField> fields;
  const std::string counter = fmt::format("{}/{}", s.step_index + 1, s.step_count);
  fields.push_back({{fmt::format("[{} {}]", counter, shown_name(s.step_name, 64)),
                     fmt::format("[{} {}]", counter, shown_name(s.step_name, 12)),
                     fmt::format("[{}]", counter), ""},
                    kStep});
  const std::string_view state = state_word(s);
  if (s.phase_name.empty()) {
    fields.push_back({{std::string(state)}, kPhase});
  } else {
    fields.push_back(
        {{fmt::format("{}: {}", shown_name(s.phase_name, 64), state),
          fmt::format("{}: {}", shown_name(s.phase_name, 10), state), std::string(state)},
         kPhase});
  }
  fields.push_back({{short_duration(s.elapsed_ns), ""}, kElapsed});
  if (has_rates(s)) {
    fields.push_back({{format_bytes(s.bytes), ""}, kBytes});
    fields.push_back({{throughput(s.interval_bytes_per_s),
                       fmt::format("{:.0f} MiB/s", to_mib_per_s(s.interval_bytes_per_s)), ""},
                      kThroughput});
    fields.push_back({{iops(s.interval_ops_per_s), ""}, kIops});
    // "1.21 ms", or without its space "1.21ms"; "-" until the first interval is complete, so
    // the field keeps its place from frame to frame.
    std::string p99 = s.interval_p99_ns ? format_duration(*s.interval_p99_ns) : "-";
    std::string tight = p99;
    tight.erase(std::remove(tight.begin(), tight.end(), ' '), tight.end());
    fields.push_back({{"p99 " + p99, "p99 " + tight, ""}, kP99});
    if (s.workers > 0) {
      fields.push_back(
          {{fmt::format("{} worker{}", s.workers, s.workers == 1 ? "" : "s"), ""}, kWorkers});
    }
  }
  if (s.done_fraction) {
    fields.push_back(
        {{fmt::format("{:.0f}%", std::clamp(*s.done_fraction, 0.0, 1.0) * 100), ""}, kDone});
  }
  if (progress.eta_ns) fields.push_back({{"ETA " + eta_duration(*progress.eta_ns), ""}, kEta});
  return fields;
}

std::string plain_progress_line(const SuiteProgress& progress) {
  const std::vector<LineField> fields = progress_fields(progress);
  // "[i/n step] phase: state" then the rest, comma-separated.
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const std::string& text = fields[i].forms.front();
    if (text.empty()) continue;
    if (!line.empty()) line += i == 1 ? " " : ", ";
    line += text;
  }
  return line;
}

}  // namespace iobench::cli
