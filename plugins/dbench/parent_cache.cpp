#include "plugins/dbench/parent_cache.hpp"

#include <fcntl.h>

namespace iobench::plugins::dbench {

ParentCache::ParentCache(ConfinedDir root, bool shared_removals)
    : root_(std::move(root)), shared_removals_(shared_removals) {
  // Room for a usual parent's name (a longer one grows its key once, on a miss): PATH_MAX
  // each would take a page of memory per entry in every client process.
  for (Entry& e : entries_) e.key.reserve(kKeyBytes);
}

ParentCache::~ParentCache() = default;

int ParentCache::find(std::string_view rel, const ConfinedDir*& dir, std::string_view& name) {
  if (const int err = ConfinedDir::check_name(rel); err != 0) return err;
  const std::size_t slash = rel.rfind('/');
  if (slash == std::string_view::npos) {
    dir = &root_;
    name = rel;
    return name == "." ? EINVAL : 0;
  }
  name = rel.substr(slash + 1);
  if (name.empty() || name == ".") return EINVAL;
  const std::string_view parent = rel.substr(0, slash);
  Entry* victim = &entries_[0];
  for (Entry& e : entries_) {
    if (e.dir && e.key == parent) {
      e.used = ++clock_;
      ++hits_;
      dir = &e.dir;
      return 0;
    }
    if (!e.dir || e.used < victim->used) victim = &e;
  }
  ++misses_;
  int fd = -1;
  if (const int err = root_.try_open(parent, O_PATH | O_DIRECTORY, 0, fd); err != 0) return err;
  UniqueFd owned(fd);
  victim->key.assign(parent);
  victim->dir = OwnedConfinedDir(std::move(owned), root_.shown(parent));
  victim->used = ++clock_;
  dir = &victim->dir;
  return 0;
}

void ParentCache::forget(const ConfinedDir* dir) noexcept {
  for (Entry& e : entries_) {
    if (&e.dir == dir) {
      e.dir = OwnedConfinedDir();
      e.used = 0;
    }
  }
}

void ParentCache::clear() noexcept {
  for (Entry& e : entries_) {
    e.dir = OwnedConfinedDir();
    e.used = 0;
  }
}

}  // namespace iobench::plugins::dbench
