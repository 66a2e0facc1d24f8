#pragma once

#include <sys/stat.h>

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <iobench/confined_dir.hpp>
#include <string>
#include <string_view>

namespace iobench::plugins::dbench {

/// A dbench client's few most recently used directories, each opened once beneath the run
/// directory, so that a path operation costs one *at(2) call on its final component instead of
/// resolving the parent again (openat2 + the call + close). Confinement is unchanged: every
/// cached descriptor was resolved beneath the run directory by the kernel (no link, no '..'),
/// and the final component is acted on by a call that follows no link.
///
/// Staleness: a cached descriptor follows its directory, not its name. The client clears the
/// cache whenever it renames or removes a directory (Rename, Rmdir); a directory removed by
/// another client is noticed (st_nlink 0 after an ENOENT) and resolved again. A directory that
/// another client renames away keeps being used under its new name, which is still beneath the
/// run directory (dbench's clients share no directories in its loadfiles).
class ParentCache {
 public:
  static constexpr std::size_t kEntries = 8;
  /// Capacity each entry's key reserves, in bytes.
  static constexpr std::size_t kKeyBytes = 256;

  /// `shared_removals`: another process may remove a directory this cache holds (a removed
  /// one then answers ENOENT for every name, which apply() checks); without them only this
  /// client removes its directories, and clears the cache when it does.
  explicit ParentCache(ConfinedDir root, bool shared_removals = true);
  ~ParentCache();
  ParentCache(const ParentCache&) = delete;
  ParentCache& operator=(const ParentCache&) = delete;

  /// Runs `op(const ConfinedDir& dir, std::string_view name) -> errno` on `rel`'s final
  /// component `name` in its parent `dir`. Returns the errno of resolving the parent (EXDEV,
  /// ELOOP, ENOENT...) or op's. Allocates only on a miss (the directory's path, for messages).
  template <typename Op>
  int apply(std::string_view rel, Op&& op) {
    const ConfinedDir* dir = nullptr;
    std::string_view name;
    int err = find(rel, dir, name);
    if (err != 0) return err;
    err = op(*dir, name);
    if (err == ENOENT && shared_removals_ && dir != &root_ && removed(*dir)) {
      forget(dir);
      err = find(rel, dir, name);
      if (err == 0) err = op(*dir, name);
    }
    return err;
  }

  /// The parent of `rel` (the root for a name without '/') and its final component, which
  /// must not be empty, "." or ".." (EINVAL, EXDEV). Returns 0 or the errno.
  int find(std::string_view rel, const ConfinedDir*& dir, std::string_view& name);
  /// Forgets every directory (after this client renamed or removed one).
  void clear() noexcept;

  [[nodiscard]] std::uint64_t hits() const noexcept { return hits_; }
  [[nodiscard]] std::uint64_t misses() const noexcept { return misses_; }

 private:
  struct Entry {
    std::string key;  ///< the parent's name beneath the root (kKeyBytes reserved)
    OwnedConfinedDir dir;
    std::uint64_t used = 0;
  };

  static bool removed(const ConfinedDir& dir) noexcept {
    struct stat st {};
    return ::fstat(dir.fd(), &st) == 0 && st.st_nlink == 0;
  }
  void forget(const ConfinedDir* dir) noexcept;

  ConfinedDir root_;
  bool shared_removals_;
  std::array<Entry, kEntries> entries_;
  std::uint64_t clock_ = 0;
  std::uint64_t hits_ = 0;
  std::uint64_t misses_ = 0;
};

}  // namespace iobench::plugins::dbench
