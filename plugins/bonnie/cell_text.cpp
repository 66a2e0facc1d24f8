#include "plugins/bonnie/cell_text.hpp"

#include <fmt/format.h>

namespace iobench::plugins::bonnie {
namespace {

constexpr std::uint64_t kNsPerUs = 1000;
constexpr std::uint64_t kNsPerMs = 1000 * kNsPerUs;
constexpr std::uint64_t kNsPerS = 1000 * kNsPerMs;

}  // namespace

std::string print_size(std::uint64_t value, std::string_view units) {
  std::size_t unit = 0;
  if (value != 0) {
    while (value % 1024 == 0 && unit + 1 < units.size()) {
      value /= 1024;
      ++unit;
    }
  }
  std::string text = std::to_string(value);
  if (!units.empty() && units[unit] != ' ') text += units[unit];
  return text;
}

std::string format_latency(std::uint64_t latency_ns) {
  // bonnie++ compares seconds with 99.999999 and 0.099999 and truncates; in whole ns that is
  // "more than 99'999'999'000 ns" and "more than 99'999'000 ns".
  if (latency_ns == 0) return {};
  if (latency_ns > 99'999'999'000ULL) return fmt::format("{}s", latency_ns / kNsPerS);
  if (latency_ns > 99'999'000ULL) return fmt::format("{}ms", latency_ns / kNsPerMs);
  return fmt::format("{}us", latency_ns / kNsPerUs);
}

std::string text_rate(PhaseId id, const Cell& cell, bool legacy) {
  switch (cell.state) {
    case Cell::State::kNotRun:
      return "      ";
    case Cell::State::kTooFast:
      return " +++++";
    case Cell::State::kValue:
      break;
  }
  const double rate = cell.rate;
  if (id == PhaseId::kSeeks) {
    return rate >= 1000.0 ? fmt::format(" {:5.0f}", rate) : fmt::format(" {:5.1f}", rate);
  }
  if (!is_io_phase(id) || legacy) return fmt::format(" {:5d}", static_cast<int>(rate));
  if (rate < 10000.0) return fmt::format(" {:4d}k", static_cast<int>(rate));
  const double mib = rate / 1024.0;
  if (mib < 1000.0) {
    if (mib < 100.0) return fmt::format(" {:4.1f}m", mib);
    return fmt::format(" {:4d}m", static_cast<int>(mib + 0.5));
  }
  return fmt::format(" {:4.1f}g", mib / 1024.0);
}

std::string text_cpu(const Cell& cell) {
  switch (cell.state) {
    case Cell::State::kNotRun:
      return "    ";
    case Cell::State::kTooFast:
      return " +++";
    case Cell::State::kValue:
      break;
  }
  return fmt::format(" {:3d}", cell.cpu_percent);
}

std::string csv_rate(PhaseId id, const Cell& cell) {
  switch (cell.state) {
    case Cell::State::kNotRun:
      return {};
    case Cell::State::kTooFast:
      return "+++++";
    case Cell::State::kValue:
      break;
  }
  if (id == PhaseId::kSeeks) {
    return cell.rate >= 1000.0 ? fmt::format("{:.0f}", cell.rate)
                               : fmt::format("{:.1f}", cell.rate);
  }
  return std::to_string(static_cast<long long>(cell.rate));
}

std::string csv_cpu(const Cell& cell) {
  switch (cell.state) {
    case Cell::State::kNotRun:
      return {};
    case Cell::State::kTooFast:
      return "+++";
    case Cell::State::kValue:
      break;
  }
  return std::to_string(cell.cpu_percent);
}

std::string name_size_cell(std::string_view name, std::string_view size_text) {
  constexpr std::size_t kWidth = 18;
  if (size_text.size() > kWidth) return std::string(size_text);
  const std::size_t name_width = kWidth - size_text.size();
  std::string cell(name.substr(0, name_width));
  cell.resize(name_width, ' ');
  cell += ' ';
  cell += size_text;
  return cell;
}

}  // namespace iobench::plugins::bonnie
