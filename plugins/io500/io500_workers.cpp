#include "plugins/io500/io500_workers.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <iobench/clock.hpp>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <numeric>
#include <span>
#include <vector>

#include "plugins/common/mdtest_item_name.hpp"
#include "plugins/common/path_mode.hpp"
#include "plugins/io500/find.hpp"
#include "plugins/io500/score.hpp"

namespace iobench::plugins::io500 {

std::string ior_easy_file(std::uint32_t rank) {
  return fmt::format("ior-easy/ior_file_easy.{:08}", rank);
}

std::string mdtest_easy_dir(std::uint32_t rank) {
  return fmt::format("mdtest-easy/{}/mdtest_tree.{}.0", kMdtestTestDir, rank);
}

std::string_view phase_name(Io500Phase phase) noexcept {
  const auto i = static_cast<std::size_t>(phase);
  return i < kPhaseCount ? kPhaseOrder[i] : kExtendedPhaseOrder[i - kPhaseCount];
}

std::vector<std::string> phase_op_names(Io500Phase phase) {
  switch (phase) {
    case Io500Phase::kIorEasyWrite:
    case Io500Phase::kIorHardWrite:
      return {"write", "fsync"};
    case Io500Phase::kIorEasyRead:
    case Io500Phase::kIorHardRead:
    case Io500Phase::kMdtestHardRead:
    case Io500Phase::kIorRnd4kEasyRead:
      return {"read"};
    case Io500Phase::kMdtestEasyWrite:
    case Io500Phase::kMdtestHardWrite:
      return {"create", "sync"};
    case Io500Phase::kMdtestEasyStat:
    case Io500Phase::kMdtestHardStat:
      return {"stat"};
    case Io500Phase::kMdtestEasyDelete:
    case Io500Phase::kMdtestHardDelete:
      return {"unlink"};
    case Io500Phase::kFind:
    case Io500Phase::kFindEasy:
      return {"find"};
  }
  return {};
}

bool checks_pattern(Io500Phase phase) noexcept {
  return phase == Io500Phase::kIorEasyRead || phase == Io500Phase::kIorHardRead ||
         phase == Io500Phase::kMdtestHardRead;
}

namespace {

class Io500Worker final : public PhaseWorker {
 public:
  /// An mdtest phase opens its directory here, before the phase's barrier (untimed), and with
  /// paths=full checks that its whole path names it (full_prefix()).
  explicit Io500Worker(RankJob job) : job_(std::move(job)) {
    if (!is_mdtest()) return;
    md_dir_ =
        job_.data.open_dir(easy_md() ? mdtest_easy_dir(job_.owner) : std::string(kMdtestHardDir));
    if (job_.paths == PathMode::kFull) md_prefix_ = full_prefix(md_dir_.view());
  }

  void run(WorkerContext& ctx) override {
    switch (job_.phase) {
      case Io500Phase::kIorEasyWrite:
      case Io500Phase::kIorHardWrite:
        ior_write(ctx);
        return;
      case Io500Phase::kIorEasyRead:
      case Io500Phase::kIorHardRead:
        ior_read(ctx);
        return;
      case Io500Phase::kFind:
      case Io500Phase::kFindEasy:
        find(ctx);
        return;
      case Io500Phase::kIorRnd4kEasyRead:
        random_read(ctx);
        return;
      default:
        mdtest(ctx);
        return;
    }
  }

 private:
  [[nodiscard]] bool hard() const noexcept {
    return job_.phase == Io500Phase::kIorHardWrite || job_.phase == Io500Phase::kIorHardRead;
  }
  [[nodiscard]] std::uint64_t transfer() const noexcept {
    return hard() ? kIorHardTransferBytes : kIorEasyTransferBytes;
  }
  [[nodiscard]] std::string ior_file() const {
    return hard() ? std::string(kIorHardFile) : ior_easy_file(job_.owner);
  }
  // IOR -b = -t: the owner's transfer i is segment i of the file, interleaved over the ranks in
  // the shared file (ior-hard), consecutive in its own file (ior-easy).
  [[nodiscard]] off_t offset(std::uint64_t i) const noexcept {
    const std::uint64_t block = hard() ? i * job_.ranks + job_.owner : i;
    return static_cast<off_t>(block * transfer());
  }

  void ior_write(WorkerContext& ctx) {
    const std::string name = ior_file();
    const std::filesystem::path shown = job_.data.shown(name);
    // ior-easy: each rank creates its file; ior-hard: the workload created the shared one.
    UniqueFd fd = hard() ? job_.data.open(name, O_WRONLY) : job_.data.create(name, O_WRONLY);
    // IOR's timestamp pattern is the same in every transfer of a rank: made once, untimed, as
    // IOR makes it before its write loop.
    std::vector<std::byte> buf(transfer());
    fill_pattern(buf, pattern());
    ctx.plan_work(job_.count, job_.count * transfer());
    std::uint64_t i = 0;
    std::uint64_t start = monotonic_ns();
    const std::uint64_t first = start;
    std::uint64_t at_stonewall = UINT64_MAX;
    std::uint64_t stonewall_ns = 0;
    for (; i < job_.count && ctx.keep_going(); ++i) {
      // IOR's stoneWallingWearOut: the transfers done at the stonewall, then on to the most any
      // rank had done (the runner's wear-out, PhaseSpec::wear_out).
      if (at_stonewall == UINT64_MAX && ctx.wearing_out()) {
        at_stonewall = i;
        start = monotonic_ns();
        stonewall_ns = start - first;
        // The wait while the ranks agreed on the target (the runner's hold) is no transfer's.
        ctx.op_begins(start);
      }
      write_all_at(fd.get(), buf, offset(i), shown);
      const std::uint64_t end = monotonic_ns();
      ctx.record(0, transfer(), end - start, end);
      start = end;
    }
    // The rank(s) that had done the most stop as the wear-out begins: their stonewall is now,
    // and the hold while the ranks agreed on the target is not the fsync's time either.
    if (at_stonewall == UINT64_MAX && ctx.wearing_out()) {
      at_stonewall = i;
      start = monotonic_ns();
      stonewall_ns = start - first;
      ctx.op_begins(start);
    }
    ctx.add_counter(kDoneCounter, i);
    ctx.add_counter(kAtStonewallCounter, at_stonewall == UINT64_MAX ? i : at_stonewall);
    ctx.add_counter(kStonewallNsCounter, stonewall_ns);
    ctx.begin_fsync();  // IOR -e: fsync at close, inside the phase's time
    if (::fsync(fd.get()) != 0) throw IoError(errno, "fsync", shown.string());
    const std::uint64_t end = monotonic_ns();
    ctx.record(1, 0, end - start, end);
    fd.close(shown);
  }

  void ior_read(WorkerContext& ctx) {
    const std::string name = ior_file();
    const std::filesystem::path shown = job_.data.shown(name);
    UniqueFd fd = job_.data.open(name, O_RDONLY);
    std::vector<std::byte> buf(transfer());
    const IorPattern expected = pattern();
    ctx.plan_work(job_.count, job_.count * transfer());
    std::uint64_t i = 0;
    std::uint64_t mismatches = 0;
    std::uint64_t start = monotonic_ns();
    for (; i < job_.count && ctx.keep_going(); ++i) {
      // ior -R: the owner's pattern checked word by word inside the transfer's time; the first
      // byte changed before the read, as IOR does, so that the previous transfer's bytes cannot
      // pass for this one's.
      buf[0] = ~buf[0];
      read_all_at(fd.get(), buf, offset(i), shown);
      mismatches += matches_pattern(buf, expected) ? 0 : 1;
      const std::uint64_t end = monotonic_ns();
      ctx.record(0, transfer(), end - start, end);
      start = end;
    }
    ctx.add_counter(kDoneCounter, i);
    ctx.add_counter(kMismatchCounter, mismatches);
  }

  // The pattern of the owner's data (the one it writes, or the one a reader expects of it).
  [[nodiscard]] IorPattern pattern() const noexcept {
    return IorPattern{.rank = job_.owner, .seed = job_.pattern_seed};
  }

  // ior -z -t 4096 -b 4096 over the owner's ior-easy file: each of its job_.count 4 KiB blocks
  // once, in an order drawn from the worker's seed (block (k x stride + first) mod count, stride
  // coprime with count: a permutation computed, not stored), until the stonewall and wear-out.
  void random_read(WorkerContext& ctx) {
    const std::string name = ior_easy_file(job_.owner);
    const std::filesystem::path shown = job_.data.shown(name);
    UniqueFd fd = job_.data.open(name, O_RDONLY);
    std::vector<std::byte> buf(kRnd4kTransferBytes);
    const std::uint64_t n = job_.count;
    ctx.plan_work(n, n * kRnd4kTransferBytes);
    std::uint64_t stride = n == 0 ? 1 : (job_.seed % n) | 1;
    while (n > 1 && std::gcd(stride, n) != 1) stride += 2;
    const std::uint64_t first = n == 0 ? 0 : (job_.seed >> 32) % n;
    std::uint64_t k = 0;
    std::uint64_t start = monotonic_ns();
    bool worn = false;
    for (; k < n && ctx.keep_going(); ++k) {
      if (!worn && ctx.wearing_out()) {
        worn = true;  // the wait while the ranks agreed on the target is no read's
        start = monotonic_ns();
        ctx.op_begins(start);
      }
      // k, stride and first stay below about 10^7 (kRnd4kMaxTransfers): no overflow.
      const std::uint64_t block = (k * stride + first) % n;
      read_all_at(fd.get(), buf, static_cast<off_t>(block * kRnd4kTransferBytes), shown);
      const std::uint64_t end = monotonic_ns();
      ctx.record(0, kRnd4kTransferBytes, end - start, end);
      start = end;
    }
    ctx.add_counter(kDoneCounter, k);
  }

  [[nodiscard]] bool easy_md() const noexcept {
    return job_.phase == Io500Phase::kMdtestEasyWrite ||
           job_.phase == Io500Phase::kMdtestEasyStat || job_.phase == Io500Phase::kMdtestEasyDelete;
  }

  // One item op of an mdtest phase on file.mdtest.<owner>.<n>; returns the bytes it moved.
  // mdtest-hard-read counts in `mismatches` a file whose bytes are not the owner's pattern.
  std::uint64_t item_op(const ConfinedDir& dir, const std::string& name, std::byte* buf,
                        std::uint64_t& mismatches) {
    switch (job_.phase) {
      case Io500Phase::kMdtestEasyWrite:
      case Io500Phase::kMdtestHardWrite: {
        UniqueFd fd = dir.create(name, O_WRONLY);
        std::uint64_t bytes = 0;
        if (job_.phase == Io500Phase::kMdtestHardWrite) {
          write_all_at(fd.get(), {buf, kMdtestHardFileBytes}, 0, dir.shown(name));
          bytes = kMdtestHardFileBytes;
        }
        fd.close(dir.shown(name));
        return bytes;
      }
      case Io500Phase::kMdtestHardRead: {
        UniqueFd fd = dir.open(name, O_RDONLY);
        buf[0] = ~buf[0];  // as ior_read(): the previous file's bytes cannot pass for these
        read_all_at(fd.get(), {buf, kMdtestHardFileBytes}, 0, dir.shown(name));
        fd.close(dir.shown(name));
        // mdtest -X: the owner's pattern checked inside the item's time.
        mismatches += matches_pattern({buf, kMdtestHardFileBytes}, pattern()) ? 0 : 1;
        return kMdtestHardFileBytes;
      }
      case Io500Phase::kMdtestEasyStat:
      case Io500Phase::kMdtestHardStat:
        (void)dir.stat(name);
        return 0;
      default:
        dir.unlink(name);
        return 0;
    }
  }

  // As item_op(), by the file's whole path `path` (IO500's mdtest: open/stat/unlink of the path
  // string); no allocation unless a call fails.
  std::uint64_t item_op_by_path(const std::string& path, std::byte* buf,
                                std::uint64_t& mismatches) {
    const char* p = path.c_str();
    const std::span<std::byte> data(buf, kMdtestHardFileBytes);
    switch (job_.phase) {
      case Io500Phase::kMdtestEasyWrite:
      case Io500Phase::kMdtestHardWrite: {
        // O_EXCL | O_NOFOLLOW: never an existing name, never a link.
        const int fd = ::open(p, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) throw IoError(errno, "create", path);
        UniqueFd file(fd);
        std::uint64_t bytes = 0;
        if (job_.phase == Io500Phase::kMdtestHardWrite) {
          if (const int err = transfer_all(fd, data, true); err != 0)
            throw IoError(err, "write", path);
          bytes = kMdtestHardFileBytes;
        }
        if (::close(file.release()) != 0 && errno != EINTR) throw IoError(errno, "close", path);
        return bytes;
      }
      case Io500Phase::kMdtestHardRead: {
        const int fd = ::open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) throw IoError(errno, "open", path);
        UniqueFd file(fd);
        buf[0] = ~buf[0];  // as ior_read(): the previous file's bytes cannot pass for these
        if (const int err = transfer_all(fd, data, false); err != 0)
          throw IoError(err, "read", path);
        if (::close(file.release()) != 0 && errno != EINTR) throw IoError(errno, "close", path);
        mismatches += matches_pattern(data, pattern()) ? 0 : 1;
        return kMdtestHardFileBytes;
      }
      case Io500Phase::kMdtestEasyStat:
      case Io500Phase::kMdtestHardStat: {
        struct stat st {};
        if (::stat(p, &st) != 0) throw IoError(errno, "stat", path);
        return 0;
      }
      default:
        if (::unlink(p) != 0) throw IoError(errno, "unlink", path);
        return 0;
    }
  }

  // pwrite (`write`) or pread of all of `data` at offset 0: 0 or the errno (EIO for a file that
  // ends before it, ENOSPC for a write of nothing).
  static int transfer_all(int fd, std::span<std::byte> data, bool write) noexcept {
    for (std::size_t done = 0; done < data.size();) {
      const ssize_t n =
          write ? ::pwrite(fd, data.data() + done, data.size() - done, static_cast<off_t>(done))
                : ::pread(fd, data.data() + done, data.size() - done, static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return errno;
      if (n == 0) return write ? ENOSPC : EIO;
      done += static_cast<std::size_t>(n);
    }
    return 0;
  }

  void mdtest(WorkerContext& ctx) {
    const ConfinedDir dir = md_dir_.view();
    // paths=full: the files' whole paths, built in `path` after its prefix (checked, untimed,
    // when the worker was made).
    std::string path = md_prefix_;
    const std::size_t prefix_len = path.size();
    path.reserve(prefix_len + 64);
    // mdtest-hard-write: the owner's pattern, made once (mdtest's timestamp pattern is the same
    // in every file of a rank); mdtest-hard-read: overwritten by each file read.
    std::vector<std::byte> buf(kMdtestHardFileBytes);
    fill_pattern(buf, pattern());
    ctx.plan_work(job_.count, 0);
    std::string name;
    name.reserve(64);
    std::uint64_t n = 0;
    std::uint64_t mismatches = 0;
    std::uint64_t start = monotonic_ns();
    bool worn = false;
    for (; n < job_.count && ctx.keep_going(); ++n) {
      if (!worn && ctx.wearing_out()) {
        // The write phases' wear-out (mdtest -W): the hold while the ranks agreed on the target
        // is no item's.
        worn = true;
        start = monotonic_ns();
        ctx.op_begins(start);
      }
      name.clear();
      append_item_name(false, job_.owner, n, name);
      std::uint64_t bytes = 0;
      if (job_.paths == PathMode::kFull) {
        path.resize(prefix_len);
        path += name;
        bytes = item_op_by_path(path, buf.data(), mismatches);
      } else {
        bytes = item_op(dir, name, buf.data(), mismatches);
      }
      const std::uint64_t end = monotonic_ns();
      ctx.record(0, bytes, end - start, end);
      start = end;
    }
    ctx.add_counter(kDoneCounter, n);
    if (checks_pattern(job_.phase)) ctx.add_counter(kMismatchCounter, mismatches);
    if (job_.phase == Io500Phase::kMdtestEasyWrite || job_.phase == Io500Phase::kMdtestHardWrite) {
      // mdtest -Y as IO500 runs its write phases: sync(2) after the phase, inside its time (the
      // phase's wall time ends when its last worker returns). Skipped on the way out of a run
      // being stopped.
      if (ctx.stop_requested()) return;
      if (!worn && ctx.wearing_out()) {
        // The rank(s) that had made the most items stop as the wear-out begins: the hold while
        // the ranks agreed on the target is not the sync's time.
        start = monotonic_ns();
        ctx.op_begins(start);
      }
      ctx.begin_fsync();
      ::sync();
      const std::uint64_t end = monotonic_ns();
      ctx.record(1, 0, end - start, end);
    }
  }

  void find(WorkerContext& ctx) {
    FindQuery query;
    query.newer = job_.newer;
    if (job_.phase == Io500Phase::kFindEasy) {  // IO500's find-easy: -name *01* alone
      query.newer.reset();
      query.size_bytes.reset();
    }
    const std::uint64_t start = monotonic_ns();
    // The root beneath the data directory: by descriptor with paths=dirfd, by its whole path with
    // full (as pfind), inside the phase's time as pfind's opendir of its root.
    const FindCount count =
        find_matches(job_.data, job_.find_root, query, job_.find_part, job_.paths);
    const std::uint64_t end = monotonic_ns();
    ctx.record(0, 0, end - start, end);
    ctx.add_counter(kDoneCounter, count.scanned);
    ctx.add_counter(kMatchedCounter, count.matched);
  }

  [[nodiscard]] bool is_mdtest() const noexcept {
    switch (job_.phase) {
      case Io500Phase::kIorEasyWrite:
      case Io500Phase::kIorHardWrite:
      case Io500Phase::kIorEasyRead:
      case Io500Phase::kIorHardRead:
      case Io500Phase::kFind:
      case Io500Phase::kFindEasy:
      case Io500Phase::kIorRnd4kEasyRead:
        return false;
      default:
        return true;
    }
  }

  RankJob job_;
  OwnedConfinedDir md_dir_;  ///< mdtest phases: the phase's directory beneath `data`
  std::string md_prefix_;    ///< mdtest phases with paths=full: its whole path and '/'
};

}  // namespace

std::unique_ptr<PhaseWorker> make_io500_worker(RankJob job) {
  return std::make_unique<Io500Worker>(std::move(job));
}

}  // namespace iobench::plugins::io500
