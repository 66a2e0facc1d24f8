#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "plugins/dbench/loadfile_program.hpp"

namespace iobench::plugins::dbench {

/// What a client knows of one loadfile handle: its descriptor, or why it has none.
struct HandleSlot {
  int fd = -1;
  std::uint32_t path = kNoId;
  std::uint32_t open_line = 0;  ///< line of the NTCreateX that left the handle closed, or 0
  int open_errno = 0;           ///< its errno (0: it succeeded although failure was expected)
};

/// A client's handles by dense handle id, holding only the ids that differ from an unused
/// handle (HandleSlot{}): those open now and those whose last NTCreateX was not kept (their
/// line and errno, for the message if the handle is used). A Close erases its handle, so the
/// table is as large as the handles open at once plus the failed opens remembered (client.txt:
/// a few dozen), not one slot per handle id of the loadfile (4,862). Sorted by id: a lookup is a
/// binary search over those few.
class HandleTable {
 public:
  HandleTable() { entries_.reserve(64); }

  /// The slot of handle `id`, or nullptr when it is unused (as a HandleSlot{} would be).
  [[nodiscard]] const HandleSlot* find(std::uint32_t id) const noexcept {
    const auto it = lower(id);
    return it != entries_.end() && it->id == id ? &it->slot : nullptr;
  }
  /// The slot of handle `id`, made (unused, HandleSlot{}) if it had none.
  HandleSlot& slot(std::uint32_t id) {
    auto it = lower(id);
    if (it == entries_.end() || it->id != id) it = entries_.insert(it, Entry{id, HandleSlot{}});
    return it->slot;
  }
  /// Forgets handle `id` (it becomes unused); nothing if it was.
  void erase(std::uint32_t id) noexcept {
    const auto it = lower(id);
    if (it != entries_.end() && it->id == id) entries_.erase(it);
  }
  /// Handles held (open or remembered).
  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
  /// Calls f(slot) for each handle held, in id order.
  template <typename F>
  void for_each(F&& f) const {
    for (const Entry& e : entries_) f(e.slot);
  }

 private:
  struct Entry {
    std::uint32_t id;
    HandleSlot slot;
  };
  [[nodiscard]] std::vector<Entry>::iterator lower(std::uint32_t id) noexcept {
    return std::lower_bound(entries_.begin(), entries_.end(), id,
                            [](const Entry& e, std::uint32_t key) { return e.id < key; });
  }
  [[nodiscard]] std::vector<Entry>::const_iterator lower(std::uint32_t id) const noexcept {
    return std::lower_bound(entries_.begin(), entries_.end(), id,
                            [](const Entry& e, std::uint32_t key) { return e.id < key; });
  }

  std::vector<Entry> entries_;
};

}  // namespace iobench::plugins::dbench
