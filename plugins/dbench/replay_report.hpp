#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iobench/error.hpp>
#include <new>
#include <string>
#include <string_view>

#include "plugins/dbench/replay_counters.hpp"

namespace iobench::plugins::dbench {

/// What the clients of the execute phase tell the runner's process beyond the phase counters:
/// how many operations did not go as the loadfile expects (per ReplayCounter, warm-up included)
/// and the description of the first one. Lives in shared memory (ReplayReportMapping) so that
/// forked clients write it and the workload's after_phase() reads it. Lock-free; a client writes
/// the text only for the first problem of the run.
struct ReplayReport {
  std::atomic<std::uint64_t> problems[kCounterCount];
  std::atomic<std::uint32_t> first_claimed;
  std::atomic<std::uint32_t> first_ready;
  char first[512];

  /// True for the one caller that may write the first problem's text.
  [[nodiscard]] bool claim_first() noexcept {
    std::uint32_t expected = 0;
    return first_claimed.load(std::memory_order_relaxed) == 0 &&
           first_claimed.compare_exchange_strong(expected, 1, std::memory_order_acq_rel);
  }
  /// Stores the first problem's text (cut to fit). REQUIRES: claim_first() returned true.
  void set_first(std::string_view text) noexcept {
    const std::size_t n = std::min(text.size(), sizeof first - 1);
    std::memcpy(first, text.data(), n);
    first[n] = '\0';
    first_ready.store(1, std::memory_order_release);
  }
  /// The first problem's text, or "" if none was stored.
  [[nodiscard]] std::string_view first_text() const noexcept {
    return first_ready.load(std::memory_order_acquire) != 0 ? std::string_view(first)
                                                            : std::string_view();
  }
  /// Clears everything (before a phase).
  void reset() noexcept {
    for (auto& p : problems) p.store(0, std::memory_order_relaxed);
    first_ready.store(0, std::memory_order_relaxed);
    first_claimed.store(0, std::memory_order_release);
    first[0] = '\0';
  }
};

/// A ReplayReport in a MAP_SHARED | MAP_ANONYMOUS mapping, made before the clients are forked.
class ReplayReportMapping {
 public:
  /// Throws IoError if the mapping cannot be made.
  ReplayReportMapping() {
    void* memory = ::mmap(nullptr, sizeof(ReplayReport), PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) throw IoError(errno, "mmap (dbench report)", "shared memory");
    report_ = new (memory) ReplayReport;
    report_->reset();
  }
  ~ReplayReportMapping() { ::munmap(report_, sizeof(ReplayReport)); }
  ReplayReportMapping(const ReplayReportMapping&) = delete;
  ReplayReportMapping& operator=(const ReplayReportMapping&) = delete;

  [[nodiscard]] ReplayReport& report() const noexcept { return *report_; }

 private:
  ReplayReport* report_ = nullptr;
};

}  // namespace iobench::plugins::dbench
