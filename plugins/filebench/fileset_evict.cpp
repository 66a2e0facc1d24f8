#include "plugins/filebench/fileset_evict.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iobench/file_util.hpp>
#include <vector>

namespace iobench::plugins::filebench {

namespace {

// Pages of the open file `fd` of `size` bytes resident in the page cache; sets `error` on
// failure.
std::uint64_t resident_pages(int fd, std::uint64_t size, std::uint64_t page,
                             std::vector<unsigned char>& vec, std::string& error) {
  if (size == 0) return 0;
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) {
    error = fmt::format("mmap: {}", std::strerror(errno));
    return 0;
  }
  vec.assign((size + page - 1) / page, 0);
  std::uint64_t n = 0;
  if (::mincore(map, size, vec.data()) != 0) {
    error = fmt::format("mincore: {}", std::strerror(errno));
  } else {
    for (const unsigned char r : vec) n += r & 1U;
  }
  if (::munmap(map, size) != 0 && error.empty())
    error = fmt::format("munmap: {}", std::strerror(errno));
  return n;
}

}  // namespace

EvictResult evict_fileset(const FilesetLayout& layout, const ConfinedDir& run_dir) {
  EvictResult out;
  const long page_size = ::sysconf(_SC_PAGESIZE);
  const std::uint64_t page = page_size > 0 ? static_cast<std::uint64_t>(page_size) : 4096;
  std::vector<unsigned char> vec;
  for (std::uint32_t f = 0; f < layout.files.size(); ++f) {
    if (!layout.preallocated(f)) continue;
    const std::string rel = layout.file_path(f);
    int raw = -1;
    if (const int e = run_dir.try_open(rel, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0, raw); e != 0) {
      out.error = fmt::format("open {}: {}", run_dir.shown(rel).string(), std::strerror(e));
      return out;
    }
    const UniqueFd fd(raw);
    struct stat st {};
    std::string error;
    if (::fstat(fd.get(), &st) != 0) {
      error = fmt::format("fstat: {}", std::strerror(errno));
    } else if (::fdatasync(fd.get()) != 0) {
      error = fmt::format("fdatasync: {}", std::strerror(errno));
    } else if (const int e = ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED); e != 0) {
      error = fmt::format("posix_fadvise DONTNEED: {}", std::strerror(e));
    } else {
      const auto size = static_cast<std::uint64_t>(st.st_size);
      ++out.files;
      out.pages += (size + page - 1) / page;
      out.resident += resident_pages(fd.get(), size, page, vec, error);
    }
    if (!error.empty()) {
      out.error = fmt::format("{} {}", run_dir.shown(rel).string(), error);
      return out;
    }
  }
  return out;
}

}  // namespace iobench::plugins::filebench
