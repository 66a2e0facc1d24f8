#pragma once

#include <iobench/workload.hpp>
#include <memory>

#include "plugins/disk/disk_config.hpp"

namespace iobench::plugins::disk {

/// The seeds' multi-target test (test_disk_performance): one worker per target, each writing or
/// reading its own file of `blocks` x `bs` sequentially or in random order, `iterations` times.
/// A read of a file the run did not write first creates it untimed and evicts it from the page
/// cache (posix_fadvise DONTNEED after fsync) unless prime=true, which reads it untimed instead.
class DiskWorkload final : public Workload {
 public:
  static constexpr OpId kRead = 0;
  static constexpr OpId kWrite = 0;
  static constexpr OpId kFsync = 1;

  explicit DiskWorkload(DiskConfig config, std::size_t target_count);

  [[nodiscard]] std::vector<PhaseSpec> phases() const override;
  [[nodiscard]] std::uint64_t planned_bytes(std::size_t target_index) const override;
  void prepare(PrepareContext& ctx) override;
  [[nodiscard]] std::unique_ptr<PhaseWorker> make_worker(std::size_t phase,
                                                         WorkerContext& ctx) override;

  /// Path of the file worker `target` works on.
  [[nodiscard]] std::filesystem::path file_path(const Target& target) const;

 private:
  DiskConfig config_;
  std::size_t target_count_;
  std::unique_ptr<Engine> mmap_engine_;
};

}  // namespace iobench::plugins::disk
