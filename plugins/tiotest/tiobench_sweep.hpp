#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/tiotest/tiotest_config.hpp"

namespace iobench::plugins::tiotest {

/// The tiobench.pl sweep: every size x block size x thread count (in that nesting order), each
/// run `repetitions` times (--numruns).
struct SweepSettings {
  std::vector<std::uint64_t> threads{1, 2, 4, 8};  ///< --threads
  std::vector<std::uint64_t> sizes_mb;             ///< --size: total over all threads, MiB
  std::vector<std::uint64_t> block_sizes{4096};    ///< --block, bytes
  std::uint64_t random_ops_total = 4000;           ///< --random: total over all threads
  std::uint64_t repetitions = 1;                   ///< --numruns
};

/// One point of the sweep, as tiobench.pl's report keys it.
struct SweepPoint {
  std::uint64_t size_mb = 0;  ///< total file size as given (the "File Size" column)
  std::uint64_t block_size = 0;
  std::uint64_t threads = 0;
  friend bool operator==(const SweepPoint&, const SweepPoint&) = default;
};

/// A result phase name of a sweep, taken apart.
struct SweepPhaseName {
  PhaseKind kind = PhaseKind::kWrite;
  SweepPoint point;
  std::uint64_t repetition = 1;  ///< 1-based
};

/// Phase-name suffix of a sweep run: " size=<MiB>M bs=<bytes> threads=<n> run=<r>".
[[nodiscard]] std::string sweep_suffix(const SweepPoint& point, std::uint64_t repetition);

/// Parses "<tiotest phase label> size=<n>M bs=<n> threads=<n> run=<n>"; nullopt for anything
/// else (e.g. the unmeasured prepare phase or a plain tiotest name).
[[nodiscard]] std::optional<SweepPhaseName> parse_sweep_phase_name(std::string_view name);

/// The runs of the sweep, in tiobench.pl's order (size, block, threads, repetition), each as
/// tiotest -t T -f max(1, size/T) -r random/T -b B runs it: per-thread file max(1, floor(size_mb
/// / T)) MiB, truncated to whole blocks; random ops floor(random_ops_total / T) per thread; all
/// four phases. Throws ConfigError for an empty list, a zero entry, or fewer random ops than
/// threads (tiotest refuses -r 0).
[[nodiscard]] std::vector<RunPlan> plan_sweep(const SweepSettings& settings);

/// Parses a list of counts ("1,2,4,8", "1 2 4 8"; suffixes as in "1k") for parameter `field`.
/// Throws ConfigError for an empty list, junk, or a zero.
[[nodiscard]] std::vector<std::uint64_t> parse_count_list(std::string_view text,
                                                          std::string_view field);
/// tiobench's total sizes (a kSizeList param, in bytes) as MiB; each must be a whole number of
/// MiB, as tiobench.pl's --size takes MiB. Throws ConfigError naming `field` and the entry.
[[nodiscard]] std::vector<std::uint64_t> whole_mib_list(std::span<const std::uint64_t> bytes,
                                                        std::string_view field);

}  // namespace iobench::plugins::tiotest
