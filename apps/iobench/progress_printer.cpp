#include "progress_printer.hpp"

#include <ostream>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace iobench::cli {

void ProgressPrinter::update(const ProgressSnapshot& s) {
  const std::string line = fmt::format(
      "[{}/{} {}] {}{}: {:.0f} s, {:.1f} MiB, {:.2f} MiB/s, {:.0f} IOPS, {} worker(s)",
      s.step_index + 1, s.step_count, s.step_name, s.phase_name, s.warming_up ? " (warm-up)" : "",
      static_cast<double>(s.elapsed_ns) / 1e9, static_cast<double>(s.bytes) / (1 << 20),
      s.interval_bytes_per_s / (1 << 20), s.interval_ops_per_s, s.workers);
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
