#include "plugins/filebench/fileset.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <iobench/error.hpp>
#include <iterator>

#include "plugins/filebench/cvar.hpp"
#include "plugins/filebench/gamma.hpp"
#include "plugins/filebench/randvar.hpp"
#include "plugins/filebench/wml_limits.hpp"

namespace iobench::plugins::filebench {

namespace {

struct Drawer {
  const FilesetDef& def;
  FilesetLayout& out;
  Rng rng;
  double mean_depth = 1;

  std::uint64_t draw_size() {
    if (def.size.kind == SizeSpec::Kind::kFixed) return def.size.fixed_bytes;
    if (def.size.kind == SizeSpec::Kind::kRandVar) return draw_randvar(*def.size.randvar, rng);
    if (def.size.kind == SizeSpec::Kind::kCvar) return draw_cvar(*def.size.cvar, rng);
    const double g = def.size.gamma;
    const double drawn = rng.gamma(g, def.size.mean_bytes / g);
    // A draw far above the mean (or inf x 0 = NaN at extreme shapes) must not reach the cast.
    if (!(drawn >= 0)) return 0;
    return drawn < static_cast<double>(kMaxSizeBytes) ? static_cast<std::uint64_t>(drawn)
                                                      : kMaxSizeBytes;
  }

  void add_file(std::uint32_t parent, std::uint32_t serial) {
    out.files.push_back(FilesetLayout::File{draw_size(), parent, serial});
  }
  [[nodiscard]] bool files_left() const { return out.files.size() < def.entries; }
  [[nodiscard]] bool leafdirs_left() const { return out.leafdirs.size() < def.leafdirs; }

  // One directory at `depth` (1 for the root): filebench's fileset_populate_subdir.
  void add_dir(std::uint32_t parent, std::uint32_t serial, int depth) {
    const auto self = static_cast<std::uint32_t>(out.dirs.size());
    out.dirs.push_back(FilesetLayout::Dir{parent, serial});
    const double g = def.dir_gamma;
    int rand_depth = static_cast<int>(g > 0 ? rng.gamma(g, mean_depth / g) : mean_depth);
    double rand_width = g > 0 ? rng.gamma(g, def.dir_width / g) : def.dir_width;
    if (rand_depth == 0) rand_depth = 1;
    if (rand_width == 0) rand_width = 1;
    const bool root = parent == FilesetLayout::kNoParent;
    const bool leaf = depth >= rand_depth;
    std::uint32_t used = 0;  // serials taken by the first loop
    for (std::uint32_t i = 1; (root || static_cast<double>(i) < rand_width + 1) && files_left();
         ++i, ++used) {
      if (!root && leaf) {
        add_file(self, i);
      } else {
        add_dir(self, i, depth + 1);
      }
    }
    // Then the leaf directories, placed alike (filebench's second loop of populate_subdir). Their
    // serials follow the first loop's, where filebench restarts at 1 and so names a leaf
    // directory (or a second subdirectory) as a file of the same directory.
    for (std::uint32_t i = 1; (root || static_cast<double>(i) < rand_width + 1) && leafdirs_left();
         ++i) {
      if (!root && leaf) {
        out.leafdirs.push_back(FilesetLayout::LeafDir{self, used + i});
      } else {
        add_dir(self, used + i, depth + 1);
      }
    }
  }
};

}  // namespace

std::string FilesetLayout::dir_path(std::uint32_t d) const {
  // The root is the set's directory <name> itself (its serial is in no path), as filebench
  // resolves a path from the entry up to, not including, the root entry.
  std::vector<std::uint32_t> chain;
  for (std::uint32_t at = d; dirs[at].parent != kNoParent; at = dirs[at].parent)
    chain.push_back(at);
  std::string path = name;
  path.reserve(name.size() + chain.size() * 9);  // "/" and 8 digits a level
  for (auto it = chain.rbegin(); it != chain.rend(); ++it)
    fmt::format_to(std::back_inserter(path), "/{:08d}", dirs[*it].serial);
  return path;
}

std::string FilesetLayout::file_path(std::uint32_t f) const {
  if (single_file) return name;
  std::string path = dir_path(files[f].parent);
  fmt::format_to(std::back_inserter(path), "/{:08d}", files[f].serial & ~kPreallocBit);
  return path;
}

std::string FilesetLayout::leafdir_path(std::uint32_t l) const {
  std::string path = dir_path(leafdirs[l].parent);
  fmt::format_to(std::back_inserter(path), "/{:08d}", leafdirs[l].serial & ~kPreallocBit);
  return path;
}

std::uint64_t FilesetLayout::preallocated_bytes() const noexcept {
  std::uint64_t bytes = 0;
  for (std::uint32_t f = 0; f < files.size(); ++f) {
    if (preallocated(f)) bytes += files[f].size;
  }
  return bytes;
}

std::size_t FilesetLayout::memory_bytes() const noexcept {
  return dirs.capacity() * sizeof(Dir) + files.capacity() * sizeof(File) +
         leafdirs.capacity() * sizeof(LeafDir);
}

FilesetLayout draw_layout(const FilesetDef& def, std::uint64_t seed) {
  FilesetLayout out;
  out.name = def.name;
  out.single_file = def.single_file;
  Drawer drawer{def, out, Rng(seed), 1};
  out.files.reserve(def.entries);
  if (def.single_file) {
    drawer.add_file(0, 1);
  } else {
    drawer.mean_depth =
        std::log(static_cast<double>(def.entries + def.leafdirs)) / std::log(def.dir_width);
    out.leafdirs.reserve(def.leafdirs);
    drawer.add_dir(FilesetLayout::kNoParent, 1, 1);
  }
  // Preallocation: each file with probability prealloc percent, in file order.
  for (FilesetLayout::File& f : out.files) {
    if (drawer.rng.below(100) < def.prealloc_pct) f.serial |= FilesetLayout::kPreallocBit;
  }
  // Then the leaf directories, with the same percentage (filebench's fileset_create).
  for (FilesetLayout::LeafDir& l : out.leafdirs) {
    if (drawer.rng.below(100) < def.prealloc_pct) l.serial |= FilesetLayout::kPreallocBit;
  }
  out.files.shrink_to_fit();
  out.dirs.shrink_to_fit();
  out.leafdirs.shrink_to_fit();
  return out;
}

FilesetState::FilesetState(FilesetLayout layout)
    : layout_(std::move(layout)),
      sync_(1),
      files_(layout_.files.size()),
      leafdirs_(layout_.leafdirs.size()),
      dir_busy_(layout_.dirs.size()) {
  for (std::uint32_t f = 0; f < files_.size(); ++f) {
    if (layout_.preallocated(f)) files_[f] = kExists;
  }
  for (std::uint32_t l = 0; l < leafdirs_.size(); ++l) {
    if (layout_.leafdir_preallocated(l)) leafdirs_[l] = kExists;
  }
}

std::size_t FilesetState::shared_bytes() const noexcept {
  return sizeof(Sync) + files_.size() + leafdirs_.size() + dir_busy_.size();
}

std::optional<std::uint32_t> FilesetState::pick(bool existing,
                                                const std::function<bool()>& keep_waiting) {
  return pick_in(files_, sync_[0].files, existing, std::nullopt, keep_waiting);
}

std::optional<std::uint32_t> FilesetState::pick_from(bool existing, std::uint64_t from,
                                                     const std::function<bool()>& keep_waiting) {
  return pick_in(files_, sync_[0].files, existing, from, keep_waiting);
}

std::optional<std::uint32_t> FilesetState::pick_leafdir(bool existing,
                                                        const std::function<bool()>& keep_waiting) {
  return pick_in(leafdirs_, sync_[0].leafdirs, existing, std::nullopt, keep_waiting);
}

std::optional<std::uint32_t> FilesetState::pick_in(SharedArray<std::uint8_t>& flags,
                                                   PoolCounts& counts, bool existing,
                                                   std::optional<std::uint64_t> from,
                                                   const std::function<bool()>& keep_waiting) {
  Sync& sync = sync_[0];
  std::unique_lock lock(sync.mutex);
  const auto n = static_cast<std::uint32_t>(flags.size());
  if (n == 0) return std::nullopt;  // a set of leaf directories alone has no file, and vice versa
  while (counts.busy == n) {
    if (!keep_waiting()) return std::nullopt;
    sync.released.wait_for(lock, std::chrono::milliseconds(10));
  }
  std::uint32_t& rotor = existing ? counts.exist_rotor : counts.noexist_rotor;
  const auto first = from ? static_cast<std::uint32_t>(*from % n) : rotor;
  const std::uint8_t want = existing ? kExists : 0;
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::uint32_t f = (first + k) % n;
    if ((flags[f] & (kExists | kBusy)) == want) {
      flags[f] = static_cast<std::uint8_t>(flags[f] | kBusy);
      ++counts.busy;
      if (!from) rotor = f + 1 == n ? 0 : f + 1;
      return f;
    }
  }
  return std::nullopt;
}

std::optional<std::uint32_t> FilesetState::pick_dir(const std::function<bool()>& keep_waiting) {
  Sync& sync = sync_[0];
  std::unique_lock lock(sync.mutex);
  const auto n = static_cast<std::uint32_t>(dir_busy_.size());
  if (n == 0) return std::nullopt;
  while (sync.dirs_busy == n) {
    if (!keep_waiting()) return std::nullopt;
    sync.released.wait_for(lock, std::chrono::milliseconds(10));
  }
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::uint32_t d = (sync.dir_rotor + k) % n;
    if (dir_busy_[d] == 0) {
      dir_busy_[d] = 1;
      ++sync.dirs_busy;
      sync.dir_rotor = d + 1 == n ? 0 : d + 1;
      return d;
    }
  }
  return std::nullopt;
}

void FilesetState::release_dir(std::uint32_t dir) {
  Sync& sync = sync_[0];
  {
    const std::lock_guard lock(sync.mutex);
    if (dir_busy_[dir] != 0) --sync.dirs_busy;
    dir_busy_[dir] = 0;
  }
  sync.released.notify_all();
}

void FilesetState::release(std::uint32_t file, bool exists) {
  release_in(files_, sync_[0].files, file, exists);
}

void FilesetState::release_leafdir(std::uint32_t leafdir, bool exists) {
  release_in(leafdirs_, sync_[0].leafdirs, leafdir, exists);
}

void FilesetState::release_in(SharedArray<std::uint8_t>& flags, PoolCounts& counts,
                              std::uint32_t index, bool exists) {
  Sync& sync = sync_[0];
  {
    const std::lock_guard lock(sync.mutex);
    if ((flags[index] & kBusy) != 0) --counts.busy;
    flags[index] = exists ? kExists : 0;
  }
  sync.released.notify_all();
}

std::uint64_t FilesetState::existing() const { return existing_in(files_); }

std::uint64_t FilesetState::existing_leafdirs() const { return existing_in(leafdirs_); }

std::uint64_t FilesetState::existing_in(const SharedArray<std::uint8_t>& flags) const {
  const std::lock_guard lock(sync_[0].mutex);
  std::uint64_t n = 0;
  for (const std::uint8_t f : flags) n += (f & kExists) != 0;
  return n;
}

}  // namespace iobench::plugins::filebench
