#include "plugins/disk/shared_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>

#include <iobench/error.hpp>
#include <iobench/file_util.hpp>

#include "plugins/common/rank0_dirs.hpp"

namespace iobench::plugins::disk {

BlockPlacement BlockPlacement::of(SharedFile layout, std::uint64_t blocks, int rank,
                                  int ranks) noexcept {
  const auto r = static_cast<std::uint64_t>(rank);
  switch (layout) {
    case SharedFile::kRegions:
      return {.stride = 1, .first = r * blocks};
    case SharedFile::kInterleaved:
      return {.stride = static_cast<std::uint64_t>(ranks), .first = r};
    case SharedFile::kOff:
      break;
  }
  return {};
}

std::string create_shared_files(std::span<const Target> targets, const std::string& file_name) {
  for (const Target& target : targets) {
    UniqueFd fd = target.run_dir.create(file_name, O_WRONLY);
    fd.close(target.run_dir.shown(file_name));
  }
  return run_dir_names(targets);
}

}  // namespace iobench::plugins::disk
