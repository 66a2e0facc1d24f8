#include "plugins/tiotest/tiotest_config.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <iobench/error.hpp>
#include <iobench/params.hpp>
#include <iobench/workload.hpp>

namespace iobench::plugins::tiotest {

const char* phase_label(PhaseKind kind) noexcept {
  switch (kind) {
    case PhaseKind::kWrite:
      return "Write";
    case PhaseKind::kRandomWrite:
      return "Random Write";
    case PhaseKind::kRead:
      return "Read";
    case PhaseKind::kRandomRead:
      return "Random Read";
  }
  return "?";
}

const char* terse_key(PhaseKind kind) noexcept {
  switch (kind) {
    case PhaseKind::kWrite:
      return "write";
    case PhaseKind::kRandomWrite:
      return "rwrite";
    case PhaseKind::kRead:
      return "read";
    case PhaseKind::kRandomRead:
      return "rread";
  }
  return "?";
}

PhaseMask parse_skip_list(std::string_view text, std::string_view field) {
  PhaseMask run{true, true, true, true};
  if (text.empty()) return run;
  for (const std::string_view item :
       split_list_param(text, field, "write,random_read", ListSeparators::kCommasOrBlanks)) {
    PhaseKind kind{};
    if (item == "0" || item == "write") {
      kind = PhaseKind::kWrite;
    } else if (item == "1" || item == "random_write" || item == "rwrite") {
      kind = PhaseKind::kRandomWrite;
    } else if (item == "2" || item == "read") {
      kind = PhaseKind::kRead;
    } else if (item == "3" || item == "random_read" || item == "rread") {
      kind = PhaseKind::kRandomRead;
    } else {
      throw ConfigError(
          fmt::format("{}: '{}' is not a tiotest phase; use write, random_write, read, random_read "
                      "(or tiotest's -k numbers 0-3), separated by commas",
                      field, item));
    }
    run[index_of(kind)] = false;
  }
  return run;
}

TargetProbe probe_target(const std::filesystem::path& path) {
  TargetProbe probe;
  probe.path = path;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return probe;
  probe.exists = true;
  probe.is_directory = S_ISDIR(st.st_mode);
  probe.is_regular_file = S_ISREG(st.st_mode);
  probe.is_block_device = S_ISBLK(st.st_mode);
  if (probe.is_regular_file) {
    probe.size_bytes = static_cast<std::uint64_t>(st.st_size);
  } else if (probe.is_block_device) {
    // A read-only descriptor is enough for the size query; no data is read.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      std::uint64_t bytes = 0;
      if (::ioctl(fd, BLKGETSIZE64, &bytes) == 0) probe.size_bytes = bytes;
      ::close(fd);
    }
  }
  return probe;
}

std::uint64_t raw_region_offset(const RunPlan& plan, const IoOptions& io, std::size_t thread,
                                std::size_t target_count) noexcept {
  if (!io.raw || target_count == 0) return 0;
  const std::uint64_t rank = thread / target_count;  // k-th thread on its target
  const std::uint64_t stride = plan.file_bytes() + io.raw_gap_bytes;
  return rank * stride + (io.raw_offset_first ? io.raw_gap_bytes : 0);
}

namespace {

void validate_targets(const RunPlan& plan, const IoOptions& io,
                      std::span<const TargetProbe> targets) {
  if (targets.empty()) throw ConfigError("targets: at least one target is needed");
  if (targets.size() > kMaxTargets) {
    throw ConfigError(fmt::format(
        "targets: {} targets given but tiotest takes at most {}; run several steps instead",
        targets.size(), kMaxTargets));
  }
  for (const TargetProbe& t : targets) {
    if (!t.exists) {
      throw ConfigError(fmt::format("targets: '{}' does not exist", t.path.string()));
    }
    if (io.raw && !t.is_block_device && !t.is_regular_file) {
      throw ConfigError(fmt::format(
          "raw: target '{}' is not a block device or regular file; raw mode works on existing "
          "devices or files (set raw=false to create files in a directory)",
          t.path.string()));
    }
    if (!io.raw && !t.is_directory) {
      throw ConfigError(fmt::format(
          "targets: '{}' is not a directory; tiotest creates its files in directories (set "
          "raw=true to use an existing device or file)",
          t.path.string()));
    }
  }
  if (!io.raw) return;
  // Every region must fit inside its target.
  for (std::size_t thread = 0; thread < plan.threads; ++thread) {
    const TargetProbe& t = targets[target_index_of(thread, targets.size())];
    const std::uint64_t end =
        raw_region_offset(plan, io, thread, targets.size()) + plan.file_bytes();
    if (end > t.size_bytes) {
      throw ConfigError(fmt::format(
          "raw: thread {} needs bytes up to {} of '{}' but it holds only {} bytes; lower threads, "
          "the file size or raw_gap",
          thread, end, t.path.string(), t.size_bytes));
    }
  }
}

}  // namespace

void validate_plan(const RunPlan& plan, const IoOptions& io, std::span<const TargetProbe> targets,
                   std::string_view size_field, bool can_skip) {
  if (plan.threads < 1 || plan.threads > kMaxThreads) {
    throw ConfigError(
        fmt::format("threads: {} is out of range; use 1 to {}", plan.threads, kMaxThreads));
  }
  if (plan.block_size < 1) throw ConfigError("block_size: must be at least 1 byte");
  if (plan.blocks < 1) {
    throw ConfigError(fmt::format(
        "{}: the file of each thread is smaller than one block of {} bytes; raise {} or lower "
        "block_size",
        size_field, plan.block_size, size_field));
  }
  // Files are addressed with off_t, and the free-space check sums them over the threads.
  if (plan.file_bytes() > static_cast<std::uint64_t>(INT64_MAX) / plan.threads) {
    throw ConfigError(fmt::format(
        "{}: {} bytes per thread x {} threads is more than 2^63 bytes; use a smaller {}",
        size_field, plan.file_bytes(), plan.threads, size_field));
  }
  const bool any_random = plan.run_phase[index_of(PhaseKind::kRandomWrite)] ||
                          plan.run_phase[index_of(PhaseKind::kRandomRead)];
  if (any_random && plan.random_ops < 1) {
    throw ConfigError(fmt::format(
        "random_ops: random phases need at least 1 op per thread; {}",
        can_skip ? "raise random_ops or skip=random_write,random_read" : "raise random_ops"));
  }
  bool any_phase = false;
  for (const bool run : plan.run_phase) any_phase = any_phase || run;
  if (!any_phase) {
    throw ConfigError(
        "skip: every phase is skipped; leave at least one of write, random_write, "
        "read, random_read");
  }
  if (io.direct && plan.block_size % 512 != 0) {
    throw ConfigError(fmt::format(
        "block_size: {} is not a multiple of 512, which O_DIRECT (direct=true) needs; use e.g. "
        "4096",
        plan.block_size));
  }
  if (io.direct && io.mmap) {
    throw ConfigError(
        "mmap: mapped I/O always goes through the page cache; it cannot be combined "
        "with direct=true");
  }
  if (io.raw && io.mmap) {
    throw ConfigError(
        "mmap: mapped I/O works on files iobench creates; it cannot be combined with "
        "raw=true");
  }
  const bool writes = plan.run_phase[index_of(PhaseKind::kWrite)] ||
                      plan.run_phase[index_of(PhaseKind::kRandomWrite)];
  if (io.raw && writes && !io.raw_overwrite) {
    throw ConfigError(fmt::format(
        "raw_overwrite: the write phases overwrite the raw targets' data; set raw_overwrite=true "
        "to allow it{}",
        can_skip ? ", or skip=write,random_write to only read"
                 : " (tiobench.pl always runs its write phases; to only read a device, use the "
                   "tiotest workload with raw=true skip=write,random_write)"));
  }
  if (io.raw && io.verify && !plan.run_phase[index_of(PhaseKind::kWrite)]) {
    throw ConfigError(
        "consistency_check: on raw targets the check needs the write phase to lay down known "
        "data; do not skip write");
  }
  if (!io.raw && (io.raw_gap_bytes != 0 || io.raw_offset_first)) {
    throw ConfigError(
        "raw_gap: region offsets apply to raw targets only; set raw=true or drop "
        "raw_gap/raw_offset_first");
  }
  validate_targets(plan, io, targets);
}

}  // namespace iobench::plugins::tiotest
