#include "progress_printer.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <ostream>

namespace iobench::cli {
namespace {

// "45s", "3m05s", "1h02m".
std::string short_duration(std::uint64_t ns) {
  const std::uint64_t s = (ns + 500'000'000) / 1'000'000'000;
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

}  // namespace

void ProgressPrinter::update(const SuiteProgress& progress) {
  const ProgressSnapshot& s = progress.phase;
  const std::string line = fmt::format(
      "[{}/{} {}] {}{}: {:.0f} s, {:.1f} MiB, {:.2f} MiB/s, {:.0f} IOPS, {} worker(s), ETA {}",
      s.step_index + 1, s.step_count, s.step_name, s.phase_name, s.warming_up ? " (warm-up)" : "",
      static_cast<double>(s.elapsed_ns) / 1e9, static_cast<double>(s.bytes) / (1 << 20),
      s.interval_bytes_per_s / (1 << 20), s.interval_ops_per_s, s.workers,
      progress.eta_ns ? short_duration(*progress.eta_ns) : std::string("?"));
  if (terminal_) {
    fmt::print(out_, "\r\033[K{}", line);
    line_open_ = true;
  } else {
    fmt::print(out_, "{}\n", line);
  }
  out_.flush();
}

void ProgressPrinter::finish() {
  if (line_open_) {
    fmt::print(out_, "\r\033[K");
    out_.flush();
    line_open_ = false;
  }
}

}  // namespace iobench::cli
