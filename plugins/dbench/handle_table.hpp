#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "plugins/dbench/loadfile_program.hpp"

namespace iobench::plugins::dbench {

/// The dense ids of a loadfile's handle numbers, for the parser: an open-addressing table of
/// ids (4 bytes a slot, linear probing, at most 3/4 full) whose keys are read from the id ->
/// number table the loadfile keeps anyway (Loadfile::handles). client.txt's 4,862 handle
/// numbers take 32 KiB here, where a node-based map took about 200 KiB in every client process.
class HandleIndex {
 public:
  /// The id of handle `number`: i with numbers[i] == number, appending `number` to `numbers`
  /// (id numbers.size()) when it has none yet. `inserted` tells which. REQUIRES: `numbers` is
  /// the table every earlier call was given, changed only by this class.
  std::uint32_t intern(std::int64_t number, std::vector<std::int64_t>& numbers, bool& inserted);

  /// Makes room for `count` handles in all without growing again (`numbers`: as for intern()).
  void reserve(std::size_t count, const std::vector<std::int64_t>& numbers);

  /// Bytes of the table (its capacity).
  [[nodiscard]] std::size_t memory_bytes() const noexcept {
    return slots_.capacity() * sizeof(std::uint32_t);
  }

 private:
  [[nodiscard]] std::size_t home(std::int64_t number) const noexcept;
  void rebuild(std::size_t slot_count, const std::vector<std::int64_t>& numbers);

  std::vector<std::uint32_t> slots_;  ///< id, or kNoId for an empty slot; size a power of 2
  std::size_t size_ = 0;
};

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
