#pragma once

#include <cstdint>
#include <iobench/confined_dir.hpp>
#include <iobench/result.hpp>
#include <iobench/worker_context.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

// mdtest's ranks across MPI processes (`mpirun -n N iobench run mdtest ...`): every process's
// workers are mdtest ranks numbered process by process, all working in rank 0's run directory
// (mdtest's one test directory), and what each made travels between the processes.
namespace iobench::plugins::mdtest {

/// What rank 0 sends the other processes in prepare(), in its one from_rank0() call: what every
/// process needs of rank 0 before anything that may throw.
struct Rank0Setup {
  std::uint32_t data_seed = 0;  ///< the IOR pattern's seed every rank writes and checks (-G)
  std::string names;            ///< run_dir_names() of rank 0's targets
};

/// `setup` as text for PrepareContext::from_rank0(): the seed in decimal on the first line, then
/// the names (rank 0's run directories, opened with plugins::open_rank0_dirs()).
[[nodiscard]] std::string encode_rank0_setup(const Rank0Setup& setup);
/// encode_rank0_setup()'s text back: "SEED\nNAME\n..." with at least one name. Strict, as a
/// message cut short or garbled between the processes must not read as fewer names: throws one
/// Error, naming the expected form and what is wrong, for a text without a newline after the
/// seed, a seed that is not a decimal fitting 32 bits, no name, or names that
/// plugins::dir_names_problem() refuses (the decoder disk's shared_file and io500 use too: a
/// last name without its newline, an empty name, a name that is not one directory's: ".", "..",
/// a '/' or a NUL in it). The part of the message quoted in the error is shown through
/// printable() in at most 64 bytes (a longer part cut in the middle).
[[nodiscard]] Rank0Setup decode_rank0_setup(const std::string& text);

/// What one worker (mdtest rank) of a creation phase did, as its counters say (workers.hpp).
struct RankMade {
  std::uint64_t done = 0;          ///< items (tree directories) made
  std::uint64_t at_stonewall = 0;  ///< items made when the stonewall fell (-W)
  std::uint64_t stonewall_ns = 0;  ///< 0: the stonewall never fell for it
};

/// This process's workers' figures of `result`, as text for PrepareContext::all_ranks().
[[nodiscard]] std::string encode_made(const PhaseResult& result);
/// Every process's encode_made() text back, in rank order: one entry per mdtest rank. Throws
/// Error for a text that does not read as figures.
[[nodiscard]] std::vector<RankMade> decode_made(const std::vector<std::string>& texts);

}  // namespace iobench::plugins::mdtest
