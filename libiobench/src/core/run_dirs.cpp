#include "core/run_dirs.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <iobench/error.hpp>
#include <random>

namespace iobench::detail {

RunDirs::RunDirs(std::span<const std::filesystem::path> targets, bool keep) : keep_(keep) {
  std::random_device entropy;
  for (const auto& path : targets) {
    Target target;
    target.user_path = path;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
      target.is_existing_file = true;
      targets_.push_back(std::move(target));
      continue;
    }
    for (int attempt = 0;; ++attempt) {
      auto dir = path / fmt::format("iobench.{}.{:08x}", ::getpid(), entropy());
      if (::mkdir(dir.c_str(), 0755) == 0) {
        target.run_dir = std::move(dir);
        break;
      }
      if (errno != EEXIST || attempt == 100) {
        const int err = errno;
        std::string ignored;
        remove(ignored);
        throw IoError(err, "mkdir", dir.string());
      }
    }
    targets_.push_back(std::move(target));
  }
}

RunDirs::~RunDirs() {
  std::string ignored;
  remove(ignored);
}

bool RunDirs::remove(std::string& error) noexcept {
  if (keep_) return true;
  bool ok = true;
  for (Target& target : targets_) {
    if (target.run_dir.empty()) continue;
    std::error_code ec;
    std::filesystem::remove_all(target.run_dir, ec);
    if (ec) {
      ok = false;
      error = fmt::format("cannot remove {}: {}", target.run_dir.string(), ec.message());
    } else {
      target.run_dir.clear();
    }
  }
  return ok;
}

}  // namespace iobench::detail
