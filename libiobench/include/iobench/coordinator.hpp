#pragma once

/// Runs across ranks (`mpirun -n N iobench run ...`): what the runner asks of the other ranks
/// (collectives with a bounded wait, a stop flag, a common clock), without any MPI type. The MPI
/// implementation is inside libiobench (built with IOBENCH_WITH_MPI); a process started without
/// mpirun gets the single-process one, and runs exactly as it would without MPI.

#include <chrono>
#include <cstdint>
#include <iobench/error.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iobench {

/// Who this process is among the ranks of a run.
struct RankIdentity {
  int rank = 0;        ///< 0..size-1; rank 0 reduces and reports
  int size = 1;        ///< number of ranks (1: alone)
  int local_rank = 0;  ///< index among the ranks on the same host
  std::string host;    ///< this rank's host name
};

/// Another rank did not answer a collective within the bounded wait (it was killed, hangs, or
/// its node is gone), or the coordination itself failed. After one, every later collective of the
/// same coordinator throws it at once (Coordinator::lost()).
class CoordinationError : public Error {
 public:
  using Error::Error;
};

/// Why a rank stops the others mid-phase.
enum class StopKind {
  kFailure,    ///< it failed: the others' phase fails, naming it
  kStonewall,  ///< its first worker is done (stonewalling): the others end their phase normally
};

/// A stop another rank raised (Coordinator::stop_raised).
struct RaisedStop {
  StopKind kind = StopKind::kFailure;
  std::string text;  ///< "rank R: reason"
};

/// What the runner needs of the other ranks. Every collective (all_gather, gather) must be called
/// by every rank in the same order; each waits at most timeout() and then throws
/// CoordinationError. Only the thread that runs the Runner calls these.
class Coordinator {
 public:
  virtual ~Coordinator() = default;
  /// This rank's place in the run.
  [[nodiscard]] virtual const RankIdentity& identity() const noexcept = 0;
  /// Collective: every rank gives `mine`; every rank gets all ranks' texts, indexed by rank.
  [[nodiscard]] virtual std::vector<std::string> all_gather(std::string_view mine) = 0;
  /// Collective: rank 0 gets all ranks' texts, indexed by rank; the others get an empty vector.
  [[nodiscard]] virtual std::vector<std::string> gather(std::string_view mine) = 0;
  /// Starts a new stop epoch (every rank at the same point, before a collective: the runner,
  /// before each phase's barrier): stops raised in earlier epochs are forgotten.
  virtual void begin_epoch() = 0;
  /// Tells every other rank, without waiting, to stop in the current epoch (`reason`: what
  /// failed, or why a stonewall); only the first call of an epoch sends anything.
  virtual void raise_stop(std::string_view reason, StopKind kind) = 0;
  /// Without blocking: the first stop another rank raised in this epoch ("rank R: reason"), or
  /// nullopt. Cheap enough for a loop that polls every few ms, never per I/O.
  [[nodiscard]] virtual std::optional<RaisedStop> stop_raised() = 0;
  /// This rank's CLOCK_MONOTONIC minus rank 0's, in ns, as measured at start by ping-pong (0 on
  /// rank 0 and alone): a time t on this rank is t - clock_offset_ns() on rank 0's clock.
  [[nodiscard]] virtual std::int64_t clock_offset_ns() const noexcept = 0;
  /// Bound on the error of clock_offset_ns(): half the fastest ping-pong's round trip, ns.
  [[nodiscard]] virtual std::uint64_t clock_residual_ns() const noexcept = 0;
  /// How long a collective waits for the other ranks before it throws CoordinationError.
  [[nodiscard]] virtual std::chrono::nanoseconds timeout() const noexcept = 0;
  /// True after a collective threw CoordinationError: the other ranks cannot be relied on.
  [[nodiscard]] virtual bool lost() const noexcept = 0;
  /// Why the ranks were lost (the first CoordinationError's message); empty unless lost().
  [[nodiscard]] virtual std::string lost_reason() const = 0;
  /// Ends the coordination at the process's end: after a clean run, a last bounded barrier and
  /// the MPI finalisation; after lost(), or with `abort_status` != 0 on a broken run, an abort
  /// of every rank (MPI_Abort) with that status. Nothing is called on it afterwards.
  virtual void finish(int abort_status) noexcept = 0;

  /// True when there are other ranks.
  [[nodiscard]] bool ranked() const noexcept { return identity().size > 1; }
};

/// A process alone: rank 0 of 1; collectives return its own text; no stop is ever raised.
[[nodiscard]] std::unique_ptr<Coordinator> make_single_process_coordinator();

/// True if this process was started by mpirun (OpenMPI's OMPI_COMM_WORLD_SIZE or PMIx's
/// PMIX_RANK in the environment), whether or not this build has MPI.
[[nodiscard]] bool launched_by_mpirun() noexcept;

/// The coordinator of this process: under mpirun (launched_by_mpirun()) the MPI one, which
/// calls MPI_Init_thread here, measures the clock offsets and takes its timeout from
/// IOBENCH_RANK_TIMEOUT (seconds, 1..86400; default 600); otherwise the single-process one and
/// MPI is never initialised. Throws ConfigError under mpirun when this build has no MPI
/// (IOBENCH_WITH_MPI=OFF) or IOBENCH_RANK_TIMEOUT is not a number in range.
[[nodiscard]] std::unique_ptr<Coordinator> make_coordinator(int& argc, char**& argv);

/// `pattern` with {rank}, {size}, {local_rank} and {host} replaced by `who`'s; "{{" and "}}"
/// stand for "{" and "}". Throws ConfigError naming the pattern for an unknown name, a lone
/// brace or an unclosed one (e.g. "/mnt/x/{ranks}": "use {rank}, {size}, {local_rank} or
/// {host}").
[[nodiscard]] std::string expand_rank_template(std::string_view pattern, const RankIdentity& who);

}  // namespace iobench
