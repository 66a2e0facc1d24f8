#include "live_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iobench/printable.hpp>
#include <iobench/runner.hpp>

namespace iobench::cli {
namespace {

std::string worker_state(const WorkerProgress& worker, ProgressState phase_state) {
  if (worker.ended) return "done";
  if (worker.in_fsync) return "fsync";
  return std::string(to_string(phase_state));
}

std::string rate(const std::optional<double>& value, double divisor, int decimals) {
  return value ? fmt::format("{:.{}f}", *value / divisor, decimals) : "-";
}

std::string micros(const std::optional<SeriesLatency>& latency,
                   std::uint64_t SeriesLatency::*member) {
  if (!latency) return "-";
  return fmt::format("{:.1f}", static_cast<double>((*latency).*member) / 1e3);
}

std::string binary_size(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  return unit == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", value, kUnits[unit]);
}

std::string row_line(const LiveRow& row) {
  return fmt::format("{:>6} {:<9} {:>10} {:>10} {:>9} {:>9} {:>9} {:>11}", row.worker, row.state,
                     rate(row.bytes_per_s, 1024.0 * 1024.0, 1), rate(row.ops_per_s, 1, 0),
                     micros(row.latency_ns, &SeriesLatency::p50),
                     micros(row.latency_ns, &SeriesLatency::p99),
                     micros(row.latency_ns, &SeriesLatency::p99_9), binary_size(row.bytes));
}

std::string header_line(const LiveFrame& frame) {
  std::string line = fmt::format("iobench  step {}/{} {}", frame.step_index + 1, frame.step_count,
                                 printable(frame.step_name, 64));
  if (frame.repeat > 1)
    line += fmt::format(" (repetition {}/{})", frame.repetition + 1, frame.repeat);
  if (!frame.phase_name.empty()) {
    line += fmt::format("  phase {}/{} {}", frame.phase_index + 1, frame.phase_count,
                        printable(frame.phase_name, 64));
  }
  line += fmt::format("  {}  elapsed {}", frame.state,
                      live_duration(static_cast<std::uint64_t>(frame.time_s * 1e9)));
  if (frame.done_fraction) line += fmt::format("  {:.0f}% done", *frame.done_fraction * 100);
  line +=
      fmt::format("  ETA {}", frame.eta_ns          ? live_duration(*frame.eta_ns)
                              : frame.phase_left_ns ? "phase " + live_duration(*frame.phase_left_ns)
                                                    : std::string("?"));
  return line;
}

// Cut to `width` bytes, never inside a UTF-8 sequence (the names are printable(): valid UTF-8).
std::string fitted(std::string line, std::size_t width) {
  if (line.size() <= width) return line;
  std::size_t cut = width;
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;
  line.resize(cut);
  return line;
}

}  // namespace

void LiveRates::advance(Sample& sample, bool fresh, bool interval, std::uint64_t bytes,
                        std::uint64_t ops, std::uint64_t time_ns) {
  if (fresh) {
    sample = Sample{.bytes = bytes, .ops = ops, .time_ns = time_ns};
    return;
  }
  if (!interval || time_ns <= sample.time_ns) return;
  const double seconds = static_cast<double>(time_ns - sample.time_ns) / 1e9;
  sample.bytes_per_s = static_cast<double>(bytes - sample.bytes) / seconds;
  sample.ops_per_s = static_cast<double>(ops - sample.ops) / seconds;
  sample.bytes = bytes;
  sample.ops = ops;
  sample.time_ns = time_ns;
}

LiveFrame LiveRates::update(const SuiteProgress& progress) {
  const ProgressSnapshot& snapshot = progress.phase;
  auto phase = std::tuple(snapshot.step_index, progress.repetition, snapshot.phase_index,
                          snapshot.phase_name);
  if (phase != phase_) {
    phase_ = std::move(phase);
    workers_.clear();
    total_.reset();
  }
  const bool interval = !snapshot.state_changed;
  const std::uint64_t now = progress.suite_elapsed_ns;
  LiveFrame frame{.time_s = static_cast<double>(now) / 1e9,
                  .step_index = snapshot.step_index,
                  .step_count = snapshot.step_count,
                  .step_name = snapshot.step_name,
                  .repetition = progress.repetition,
                  .repeat = progress.repeat,
                  .phase_name = snapshot.phase_name,
                  .phase_index = snapshot.phase_index,
                  .phase_count = snapshot.phase_count,
                  .state = std::string(to_string(snapshot.state)),
                  .done_fraction = snapshot.done_fraction,
                  .phase_left_ns = snapshot.phase_left_ns,
                  .eta_ns = progress.eta_ns,
                  .workers = {},
                  .total = {}};
  for (const WorkerProgress& worker : snapshot.worker_progress) {
    const auto found = workers_.find(worker.worker);
    const bool fresh = found == workers_.end() || worker.bytes < found->second.bytes ||
                       worker.ops < found->second.ops;
    Sample& sample = workers_[worker.worker];
    advance(sample, fresh, interval, worker.bytes, worker.ops, now);
    frame.workers.push_back(LiveRow{.worker = std::to_string(worker.worker),
                                    .state = worker_state(worker, snapshot.state),
                                    .bytes = worker.bytes,
                                    .ops = worker.ops,
                                    .bytes_per_s = sample.bytes_per_s,
                                    .ops_per_s = sample.ops_per_s,
                                    .latency_ns = worker.interval_latency_ns});
  }
  const bool fresh_total = !total_ || snapshot.bytes < total_->bytes || snapshot.ops < total_->ops;
  if (!total_)
    total_ = Sample{};  // (not emplace(): clang finds Sample not yet default-constructible)
  advance(*total_, fresh_total, interval, snapshot.bytes, snapshot.ops, now);
  frame.total = LiveRow{.worker = "total",
                        .state = frame.state,
                        .bytes = snapshot.bytes,
                        .ops = snapshot.ops,
                        .bytes_per_s = total_->bytes_per_s,
                        .ops_per_s = total_->ops_per_s,
                        .latency_ns = snapshot.interval_latency_ns};
  return frame;
}

std::vector<std::string> live_screen_lines(const LiveFrame& frame, std::size_t width,
                                           std::size_t height) {
  std::vector<std::string> lines;
  lines.push_back(header_line(frame));
  lines.emplace_back();
  lines.push_back(fmt::format("{:>6} {:<9} {:>10} {:>10} {:>9} {:>9} {:>9} {:>11}", "worker",
                              "state", "MiB/s", "IOPS", "p50 us", "p99 us", "p99.9 us", "done"));
  // Room for the worker rows: what the header, heads and total row leave.
  const std::size_t fixed = lines.size() + 1;
  const std::size_t room = height > fixed ? height - fixed : 0;
  std::size_t shown = frame.workers.size();
  if (shown > room) shown = room > 0 ? room - 1 : 0;  // one line says how many are left out
  for (std::size_t i = 0; i < shown; ++i) lines.push_back(row_line(frame.workers[i]));
  if (shown < frame.workers.size() && room > 0) {
    lines.push_back(fmt::format("   ... {} more workers", frame.workers.size() - shown));
  }
  lines.push_back(row_line(frame.total));
  for (std::string& line : lines) line = fitted(std::move(line), width);
  return lines;
}

std::string live_duration(std::uint64_t ns) {
  const std::uint64_t s = ns / 1'000'000'000;
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  if (s >= 10) return fmt::format("{}s", s);
  return fmt::format("{:.1f}s", static_cast<double>(ns) / 1e9);
}

}  // namespace iobench::cli
