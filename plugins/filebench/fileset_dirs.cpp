#include "plugins/filebench/fileset_dirs.hpp"

#include <fcntl.h>
#include <fmt/format.h>

namespace iobench::plugins::filebench {

FilesetDirs::FilesetDirs(ConfinedDir run_dir, std::span<FilesetState* const> filesets) noexcept
    : run_dir_(std::move(run_dir)), filesets_(filesets) {}

std::string_view FilesetDirs::serial_name(std::uint32_t serial) noexcept {
  if (serial >= 100'000'000) {  // more than 8 digits (at most 10: a 31-bit serial)
    char* const begin = name_;
    char* const end = fmt::format_to(begin, "{:08d}", serial);
    return {begin, static_cast<std::size_t>(end - begin)};
  }
  // "{:08d}" by hand: once per op, with no format string to parse.
  for (int i = 7; i >= 0; --i, serial /= 10) name_[i] = static_cast<char>('0' + serial % 10);
  return {name_, 8};
}

std::string_view FilesetDirs::file_path(std::uint32_t fileset, std::uint32_t file) {
  const FilesetLayout& layout = filesets_[fileset]->layout();
  path_.assign(layout.name);
  if (layout.single_file) return path_;
  // The root, directory 0, is <name> itself; every directory below it adds "/" and its serial.
  const FilesetLayout::File& f = layout.files[file];
  chain_.clear();
  for (std::uint32_t at = f.parent; layout.dirs[at].parent != FilesetLayout::kNoParent;
       at = layout.dirs[at].parent)
    chain_.push_back(layout.dirs[at].serial);
  for (auto it = chain_.rbegin(); it != chain_.rend(); ++it) {
    path_ += '/';
    path_ += serial_name(*it);
  }
  path_ += '/';
  path_ += serial_name(f.serial & ~FilesetLayout::kPreallocBit);
  return path_;
}

int FilesetDirs::find(std::uint32_t fileset, std::uint32_t dir, const ConfinedDir*& out) {
  Entry* victim = &entries_[0];
  for (Entry& e : entries_) {
    if (e.handle && e.fileset == fileset && e.dir == dir) {
      e.used = ++clock_;
      ++hits_;
      out = &e.handle;
      return 0;
    }
    if (!e.handle || e.used < victim->used) victim = &e;
  }
  ++misses_;
  const std::string path = filesets_[fileset]->layout().dir_path(dir);
  int fd = -1;
  int err = run_dir_.try_open(path, O_PATH | O_DIRECTORY, 0, fd);
  if (err == EMFILE || err == ENFILE) {
    // Out of descriptors: hold none but this one (what resolving the parent per op needs).
    clear();
    victim = &entries_[0];
    err = run_dir_.try_open(path, O_PATH | O_DIRECTORY, 0, fd);
  }
  if (err != 0) return err;
  victim->handle = OwnedConfinedDir(UniqueFd(fd), run_dir_.shown(path));
  victim->fileset = fileset;
  victim->dir = dir;
  victim->used = ++clock_;
  out = &victim->handle;
  return 0;
}

void FilesetDirs::forget(const ConfinedDir* dir) noexcept {
  for (Entry& e : entries_) {
    if (&e.handle == dir) e = Entry{};
  }
}

void FilesetDirs::clear() noexcept {
  for (Entry& e : entries_) e = Entry{};
}

}  // namespace iobench::plugins::filebench
