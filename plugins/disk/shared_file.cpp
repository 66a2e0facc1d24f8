#include "plugins/disk/shared_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>

#include <cerrno>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <sstream>

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
  std::string names;
  for (const Target& target : targets) {
    UniqueFd fd = target.run_dir.create(file_name, O_WRONLY);
    fd.close(target.run_dir.shown(file_name));
    names += target.run_dir.path().filename().string();
    names += '\n';
  }
  return names;
}

std::vector<OwnedConfinedDir> open_rank0_dirs(std::span<const Target> targets,
                                              const std::string& rank0_dirs) {
  std::vector<OwnedConfinedDir> dirs;
  std::istringstream lines(rank0_dirs);
  for (const Target& target : targets) {
    std::string name;
    if (!std::getline(lines, name) || name.empty() || name.find('/') != std::string::npos ||
        name == "." || name == "..") {
      throw Error(fmt::format("shared_file: rank 0 sent no run directory name for target '{}'",
                              target.user_path.string()));
    }
    const std::filesystem::path shown = target.user_path / name;
    // The user's directory, their own link followed (as the run directories are made); rank 0's
    // run directory beneath it, never through a link.
    const UniqueFd parent(::open(target.user_path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!parent) throw IoError(errno, "open directory", target.user_path.string());
    try {
      dirs.push_back(ConfinedDir(parent.get(), target.user_path).open_dir(name));
    } catch (const IoError& e) {
      if (e.error_number() != ENOENT) throw;
      throw IoError(ENOENT,
                    "open rank 0's run directory (shared_file needs every rank to name the same "
                    "directory, on a filesystem all ranks see: no {rank} or {host} in -d)",
                    shown.string());
    }
  }
  return dirs;
}

}  // namespace iobench::plugins::disk
