#pragma once

#include <cstdint>
#include <iobench/rate_pacer.hpp>
#include <iobench/workload.hpp>
#include <memory>
#include <optional>
#include <vector>

#include "plugins/dbench/fileio_client.hpp"
#include "plugins/dbench/loadfile_program.hpp"
#include "plugins/dbench/loadfile_stream.hpp"

namespace iobench::plugins::dbench {

/// Timing rules of a replay (dbench.md §3.2).
struct ReplayTiming {
  /// Per-client target rate in bytes/s (dbench -R, MB/s x 1e6); 0: none. Overrides timestamps.
  double rate_bytes_per_s = 0;
  /// Warm-up length; the execute period starts this long after the clients are released.
  std::uint64_t warmup_ns = 0;
  /// From the execute start to dbench's last printed execute tick (whole seconds, ceil(T) - 1);
  /// bytes completed in that window go to kCounterTickBytes. 0: none.
  std::uint64_t tick_window_ns = 0;
  /// Stop at the end of the loadfile instead of starting it over.
  bool run_once = false;
};

/// One worker process of the "execute" phase: replays its loadfile for its clients in lock-step
/// (each line is executed for every client in turn, as dbench does with --clients-per-process),
/// reading it as it goes (LoadfileStream) and again from its start at the end, until
/// keep_going() turns false. Reading and parsing happen between operations, never inside one's
/// time, as dbench reads its lines.
///
/// Pacing per client, before each operation, as dbench does: with a target rate (or on a line
/// without timestamp) it sleeps until the bytes moved since the previous operation fit the rate;
/// on a timestamped line without a rate it sleeps until the timestamp, measured from the start of
/// the current pass. Each operation is recorded once, with OpTimes: its service time (from just
/// before its arguments are evaluated to just after the call, what dbench times; never the pacing
/// sleep) and its latency, which for a paced operation runs from its intended start instead
/// (from its actual start if that was earlier, from the recording start if that was later), so
/// a late client shows its lateness and the latency is never below the service time. The phase
/// records the service part when it is paced (PhaseSpec::latency_parts); otherwise only the
/// latency, which is then the service time.
///
/// Before every line the process checks, as dbench does with kill(getppid(), 0), that the process
/// which started it is still alive, and stops with a ReplayError if not: orphaned clients never
/// run on alone.
class ReplayWorker final : public PhaseWorker {
 public:
  /// `clients` replay `stream`'s tables (FileioClient's `loadfile`: stream->tables()). REQUIRES:
  /// `clients` is not empty. Built in the worker process: its parent is the process the liveness
  /// check watches.
  ReplayWorker(std::unique_ptr<LoadfileStream> stream, const ReplayTiming& timing,
               std::vector<std::unique_ptr<FileioClient>> clients);
  void run(WorkerContext& ctx) override;

 private:
  struct Pacing {
    std::uint64_t pass_start_ns = 0;
    std::optional<RatePacer> rate;  ///< with a target rate: the client's schedule
    std::uint64_t last_bytes = 0;   ///< the client's bytes at the previous paced op
    bool rate_started = false;
  };
  struct LoopFrame {
    std::uint32_t begin = 0;
    std::int64_t remaining = 0;
  };

  /// Runs operation line `ins` once for every client. False once the run must stop.
  bool run_line(const Instruction& ins, WorkerContext& ctx);
  /// Paces client `c` before `ins`; sets `intended_ns` (0: not paced). False if stopped meanwhile.
  bool pace(std::size_t c, const Instruction& ins, WorkerContext& ctx, std::uint64_t& intended_ns);
  void start_pass(std::uint64_t now);

  std::unique_ptr<LoadfileStream> stream_;
  ReplayTiming timing_;
  std::vector<std::unique_ptr<FileioClient>> clients_;
  std::vector<Pacing> pacing_;
  std::vector<LoopFrame> loops_;
  int parent_pid_ = 0;  ///< getppid() at construction
  std::uint64_t measure_start_ns_ = 0;
  std::uint64_t tick_end_ns_ = 0;
};

}  // namespace iobench::plugins::dbench
