// A fileset's creation on disk: its directories, then its preallocated leaf directories and
// files, the files by several threads at once with paralloc.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <exception>
#include <iobench/error.hpp>
#include <mutex>
#include <thread>
#include <vector>

#include "plugins/filebench/fileset.hpp"

namespace iobench::plugins::filebench {

namespace {

constexpr std::size_t kZeros = std::size_t{1} << 20;  // bytes written per write(2)
constexpr std::uint32_t kChunk = 64;                  // files a paralloc thread takes at a time

// Creates preallocated file `f` of `layout` written to its size from `zeros`: the bytes written.
std::uint64_t write_file(const FilesetLayout& layout, const ConfinedDir& run_dir, std::uint32_t f,
                         const std::vector<char>& zeros) {
  const std::string path = layout.file_path(f);
  const UniqueFd fd = run_dir.create(path, O_WRONLY);
  std::uint64_t written = 0;
  for (std::uint64_t left = layout.files[f].size; left > 0;) {
    const std::size_t chunk = left < zeros.size() ? static_cast<std::size_t>(left) : zeros.size();
    const ssize_t n = ::write(fd.get(), zeros.data(), chunk);
    if (n <= 0) throw IoError(n < 0 ? errno : ENOSPC, "write", run_dir.shown(path).string());
    left -= static_cast<std::uint64_t>(n);
    written += static_cast<std::uint64_t>(n);
  }
  return written;
}

// The files of `layout` by `threads` threads: chunk c of kChunk files goes to thread
// c % threads, so each has its share whatever the scheduling. The calling thread tells the
// progress every 10 ms and asks `stop_requested`; the first failure stops the others and is
// rethrown. Returns the bytes written.
std::uint64_t create_files_parallel(const FilesetLayout& layout, const ConfinedDir& run_dir,
                                    std::uint32_t threads,
                                    const std::function<bool()>& stop_requested,
                                    const std::function<void(std::uint64_t)>& progress,
                                    std::uint64_t walked_before) {
  const auto n = static_cast<std::uint32_t>(layout.files.size());
  std::atomic<std::uint64_t> walked{0};
  std::atomic<std::uint64_t> written{0};
  std::atomic<bool> stop{false};
  std::mutex failure_mutex;
  std::exception_ptr failure;
  const std::vector<char> zeros(kZeros, 0);  // read by every thread
  const auto work = [&](std::uint32_t t) {
    try {
      for (std::uint64_t c = t; c * kChunk < n && !stop.load(std::memory_order_relaxed);
           c += threads) {
        const auto first = static_cast<std::uint32_t>(c * kChunk);
        const std::uint32_t end = std::min(n, first + kChunk);
        for (std::uint32_t f = first; f < end && !stop.load(std::memory_order_relaxed); ++f) {
          if (layout.preallocated(f))
            written.fetch_add(write_file(layout, run_dir, f, zeros), std::memory_order_relaxed);
          walked.fetch_add(1, std::memory_order_relaxed);
        }
      }
    } catch (...) {
      const std::lock_guard lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      stop.store(true, std::memory_order_relaxed);
    }
  };
  std::vector<std::jthread> pool;
  pool.reserve(threads);
  for (std::uint32_t t = 0; t < threads; ++t) pool.emplace_back(work, t);
  while (walked.load(std::memory_order_relaxed) < n && !stop.load(std::memory_order_relaxed)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (progress) progress(walked_before + walked.load(std::memory_order_relaxed));
    if (stop_requested()) stop.store(true, std::memory_order_relaxed);
  }
  pool.clear();  // joins
  if (failure) std::rethrow_exception(failure);
  return written.load();
}

}  // namespace

std::uint32_t paralloc_threads(const FilesetLayout& layout) noexcept {
  const auto chunks = static_cast<std::uint32_t>((layout.files.size() + kChunk - 1) / kChunk);
  return std::clamp<std::uint32_t>(chunks, 1, kMaxParallocThreads);
}

std::uint64_t creation_units(const FilesetLayout& layout) noexcept {
  return (layout.single_file ? 0 : layout.dirs.size() + layout.leafdirs.size()) +
         layout.files.size();
}

std::uint64_t create_on_disk(const FilesetLayout& layout, const ConfinedDir& run_dir,
                             const std::function<bool()>& stop_requested,
                             const std::function<void(std::uint64_t)>& progress,
                             std::uint32_t threads) {
  std::uint64_t walked = 0;
  std::uint64_t told = 0;
  // Every 256 entries of each kind (the stop check's cadence): tells the progress; false once
  // the run is being stopped.
  const auto go_on = [&](std::uint32_t index) {
    ++walked;
    if (index % 256 != 255) return true;
    if (progress) progress(told = walked);
    return !stop_requested();
  };
  if (!layout.single_file) {
    run_dir.mkdir(layout.name);
    for (std::uint32_t d = 0; d < layout.dirs.size(); ++d) {
      if (!go_on(d)) return 0;
      if (layout.dirs[d].parent != FilesetLayout::kNoParent) run_dir.mkdir(layout.dir_path(d));
    }
    for (std::uint32_t l = 0; l < layout.leafdirs.size(); ++l) {
      if (!go_on(l)) return 0;
      if (layout.leafdir_preallocated(l)) run_dir.mkdir(layout.leafdir_path(l));
    }
  }
  std::uint64_t written = 0;
  if (threads > 1) {
    written = create_files_parallel(layout, run_dir, threads, stop_requested, progress, walked);
    if (stop_requested()) return written;
    walked += layout.files.size();
  } else {
    const std::vector<char> zeros(kZeros, 0);
    for (std::uint32_t f = 0; f < layout.files.size(); ++f) {
      if (!go_on(f)) return written;
      if (layout.preallocated(f)) written += write_file(layout, run_dir, f, zeros);
    }
  }
  if (progress && told != walked) progress(walked);  // the end, unless just told
  return written;
}

}  // namespace iobench::plugins::filebench
