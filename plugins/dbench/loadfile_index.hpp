#pragma once

// The lookups a parse builds from a loadfile's texts to their dense ids (handle numbers, paths).
// A validated Loadfile keeps them, so a replay of the same file finds the ids in them instead of
// building its own copy in every client process.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace iobench::plugins::dbench {

struct PathEntry;

/// "none" for the id fields of an Instruction, and an empty slot of the indexes below.
inline constexpr std::uint32_t kNoId = 0xffffffffU;

/// The dense ids of a loadfile's handle numbers: an open-addressing table of ids (4 bytes a
/// slot, linear probing, at most 3/4 full) whose keys are read from the id -> number table the
/// loadfile keeps anyway (Loadfile::handles). client.txt's 4,862 handle numbers take 32 KiB.
class HandleIndex {
 public:
  /// The id of handle `number`: i with numbers[i] == number, appending `number` to `numbers`
  /// (id numbers.size()) when it has none yet. `inserted` tells which. REQUIRES: `numbers` is
  /// the table every earlier call was given, changed only by this class.
  std::uint32_t intern(std::int64_t number, std::vector<std::int64_t>& numbers, bool& inserted);

  /// The id of handle `number`, or kNoId when it has none. Reads only (a replay's lookups in
  /// the validation's index, shared by the client processes). REQUIRES: as for intern().
  [[nodiscard]] std::uint32_t find(std::int64_t number,
                                   const std::vector<std::int64_t>& numbers) const noexcept;

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

/// The dense ids of a loadfile's paths, keyed through Loadfile::paths as HandleIndex is through
/// the handle numbers: a path is its text and whether it is a template (a template's text holds
/// kRandomRef markers, so "$1" before any RANDOMSTRING is a plain path apart from the template).
class PathIndex {
 public:
  /// The id of the path `text` (a template if `is_template`), or kNoId when it has none.
  /// REQUIRES: `paths` is the table every insert() was given.
  [[nodiscard]] std::uint32_t find(std::string_view text, bool is_template,
                                   const std::vector<PathEntry>& paths) const noexcept;

  /// Adds the last entry of `paths` (id paths.size() - 1), which find() does not hold yet.
  void insert(const std::vector<PathEntry>& paths);

  /// Bytes of the table (its capacity).
  [[nodiscard]] std::size_t memory_bytes() const noexcept {
    return slots_.capacity() * sizeof(std::uint32_t);
  }

 private:
  [[nodiscard]] std::size_t home(std::string_view text, bool is_template) const noexcept;
  void place(std::uint32_t id, const std::vector<PathEntry>& paths) noexcept;

  std::vector<std::uint32_t> slots_;  ///< id, or kNoId for an empty slot; size a power of 2
  std::size_t size_ = 0;
};

}  // namespace iobench::plugins::dbench
