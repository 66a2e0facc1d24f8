// bonnie++'s cells into ReportedFigures (bonnie_cells.hpp). Units, from bonnie++'s code (see
// /work/shared/docs/reference/bonnie_tiobench.md A.8): a rate is KiB/s (K = 1024 bytes; 1.98+
// text tables print k/m/g = 2^10/2^20/2^30 bytes/s); seeks and file tests are per second;
// CPU is % of one CPU; latency "<int>us|ms|s" is bonnie++'s maximum per unit of work.
// "+++++" (rate) and "+++" (CPU) mean the test took under 0.5 s: kept as too fast, never 0.
#include "report/classic/bonnie_cells.hpp"

#include <fmt/format.h>

#include <iobench/printable.hpp>

namespace iobench::detail::classic {

namespace {

bool too_fast(std::string_view cell) {
  return cell.size() >= 3 && cell.find_first_not_of('+') == std::string_view::npos;
}

// A rate cell in bytes/s (I/O tests) or per second (seeks, files).
ReportedFigure rate_of(std::string_view cell, bool bytes, std::string_view source, std::size_t line,
                       std::string_view test) {
  if (too_fast(cell)) return ReportedFigure{.value = 0, .too_fast = true};
  double scale = bytes ? 1024.0 : 1.0;  // K/sec: KiB/s
  std::string_view digits = cell;
  if (bytes && !cell.empty()) {
    switch (cell.back()) {
      case 'k':  // 1.98+ text: KiB/s
        digits.remove_suffix(1);
        break;
      case 'm':  // MiB/s
        scale = 1024.0 * 1024.0;
        digits.remove_suffix(1);
        break;
      case 'g':  // GiB/s
        scale = 1024.0 * 1024.0 * 1024.0;
        digits.remove_suffix(1);
        break;
      default:
        break;
    }
  }
  const auto value = number_of(digits);
  if (!value || *value < 0) {
    fail(source, line,
         fmt::format("bonnie++ {} rate: expected {} or +++++, got '{}'", test,
                     bytes ? "K/sec (a number, or with k/m/g)" : "a number per second",
                     printable(cell)));
  }
  return figure(*value * scale);
}

ReportedFigure cpu_of(std::string_view cell, std::string_view source, std::size_t line,
                      std::string_view test) {
  if (too_fast(cell)) return ReportedFigure{.value = 0, .too_fast = true};
  const auto value = number_of(cell);
  if (!value || *value < 0) {
    fail(
        source, line,
        fmt::format("bonnie++ {} %CPU: expected a number or +++, got '{}'", test, printable(cell)));
  }
  return figure(*value);
}

ReportedFigure latency_of(std::string_view cell, std::string_view source, std::size_t line,
                          std::string_view test) {
  double scale = 0;
  std::string_view digits = cell;
  if (cell.ends_with("us")) {
    scale = 1e3;
    digits.remove_suffix(2);
  } else if (cell.ends_with("ms")) {
    scale = 1e6;
    digits.remove_suffix(2);
  } else if (cell.ends_with("s")) {
    scale = 1e9;
    digits.remove_suffix(1);
  }
  const auto value = number_of(digits);
  if (scale == 0 || !value || *value < 0) {
    fail(source, line,
         fmt::format("bonnie++ {} latency: expected <number>us, ms or s, got '{}'", test,
                     printable(cell)));
  }
  return figure(*value * scale);
}

}  // namespace

void add_bonnie_phase(StepResult& step, std::size_t test, const BonnieCells& cells,
                      std::string_view source, std::size_t line) {
  if (cells.rate.empty() && cells.cpu.empty()) return;
  const std::string_view name = kBonniePhases[test];
  PhaseResult& phase = add_phase(step, std::string(name));
  ReportedFigures& f = figures(phase);
  if (!cells.rate.empty()) {
    const ReportedFigure rate = rate_of(cells.rate, test < kBonnieSeeks, source, line, name);
    if (test < kBonnieSeeks) {
      f.throughput_bytes_per_s = rate;
    } else {
      f.iops = rate;  // seeks/s or files/s
    }
  }
  if (!cells.cpu.empty()) f.cpu_percent = cpu_of(cells.cpu, source, line, name);
  if (!cells.latency.empty()) f.latency_max_ns = latency_of(cells.latency, source, line, name);
}

}  // namespace iobench::detail::classic
