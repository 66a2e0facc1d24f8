#pragma once

#include <cstddef>
#include <cstdint>
#include <iobench/suite.hpp>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace iobench::cli {

/// One row of the live view (--live) and of --live-csv: a worker or the total of the workers
/// running now.
struct LiveRow {
  std::string worker;       ///< the worker's index ("0", "1", ...) or "total"
  std::string state;        ///< set-up, warm-up, measuring, fsync, clean-up, pause, or done
  std::uint64_t bytes = 0;  ///< so far in the phase (warm-up included)
  std::uint64_t ops = 0;
  /// Over the time since the previous progress interval's snapshot of the same phase and
  /// worker; nullopt at its first one.
  std::optional<double> bytes_per_s;
  std::optional<double> ops_per_s;
  /// The newest complete time-series interval's latency (ProgressSnapshot), ns.
  std::optional<SeriesLatency> latency_ns;
};

/// What the live view shows at one refresh: where the run is and a row per worker.
struct LiveFrame {
  double time_s = 0;  ///< since the suite started (SuiteProgress::suite_elapsed_ns)
  std::size_t step_index = 0;
  std::size_t step_count = 0;
  std::string step_name;
  std::size_t repetition = 0;  ///< 0-based
  std::size_t repeat = 1;
  std::string phase_name;  ///< empty outside a phase
  std::size_t phase_index = 0;
  std::size_t phase_count = 0;
  std::string state;
  std::optional<double> done_fraction;         ///< of the phase, 0..1
  std::optional<std::uint64_t> phase_left_ns;  ///< ProgressSnapshot::phase_left_ns
  std::optional<std::uint64_t> eta_ns;         ///< to the end of the suite (SuiteProgress)
  std::vector<LiveRow> workers;
  LiveRow total;
};

/// Turns the runner's successive SuiteProgress into LiveFrames. Rates come from the difference
/// of two snapshots' counters (per worker and total) over their suite_elapsed_ns, taken at the
/// progress intervals only: a state change, reported at once, shows the last interval's rates.
/// Counters of another phase, step or repetition (or that went back, as a serial phase's next
/// worker group starts) begin anew with no rate.
class LiveRates {
 public:
  [[nodiscard]] LiveFrame update(const SuiteProgress& progress);

 private:
  struct Sample {
    std::uint64_t bytes = 0;
    std::uint64_t ops = 0;
    std::uint64_t time_ns = 0;
    std::optional<double> bytes_per_s;
    std::optional<double> ops_per_s;
  };
  // Updates `sample` (a new one if `fresh`) from the counters and returns it.
  static void advance(Sample& sample, bool fresh, bool interval, std::uint64_t bytes,
                      std::uint64_t ops, std::uint64_t time_ns);

  std::tuple<std::size_t, std::size_t, std::size_t, std::string> phase_{SIZE_MAX, 0, 0, ""};
  std::map<std::size_t, Sample> workers_;
  std::optional<Sample> total_;
};

/// The view's text: a header line (step, phase, state, elapsed, done, ETA), a blank line, the
/// column heads, a row per worker and the total row, each at most `width` columns; with fewer
/// than `height` lines free, the last worker rows give way to one "... N more workers" line
/// (the total row stays). Figures: MiB/s (1 MiB = 2^20 bytes), IOPS, latency in us, bytes so far
/// in binary units; "-" where a figure is not known yet.
[[nodiscard]] std::vector<std::string> live_screen_lines(const LiveFrame& frame, std::size_t width,
                                                         std::size_t height);

/// "1h02m", "3m05s", "42s", "0.5s": a duration for the view.
[[nodiscard]] std::string live_duration(std::uint64_t ns);

}  // namespace iobench::cli
