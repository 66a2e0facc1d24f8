#pragma once

/// A filebench fileset: its layout drawn from the run's seed (directories, file names and
/// sizes, which files are preallocated), its creation on disk beneath the run directory, and the
/// shared state the flowops pick files from (exists / busy, filebench's rotors).

#include <cstdint>
#include <functional>
#include <iobench/confined_dir.hpp>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "plugins/filebench/shared_memory.hpp"
#include "plugins/filebench/wml_model.hpp"

namespace iobench::plugins::filebench {

/// Names and sizes of a fileset's directories and files, as filebench lays them out: the set's
/// directory <name> is the tree's root (depth 1; its subdirectories <name>/00000001.. are at
/// depth 2, as filebench's paths leave the root entry out); every directory draws a depth
/// and a width (gamma with shape dirgamma around the mean depth ln(entries)/ln(dirwidth) and the
/// mean dirwidth; fixed when dirgamma is 0) and holds files 00000001.. if it is as deep as its
/// draw, else subdirectories; the root fills subdirectories until all entries have a place.
/// Names are 8-digit serials within their directory. With leafdirs=N, every directory then
/// places its leaf directories the same way (a deep enough one holds empty directories
/// 00000001.., the others more subdirectories), the mean depth being ln(entries + leafdirs) /
/// ln(dirwidth), as filebench's fileset_populate_subdir. A `define file` is the single file
/// <name>.
///
/// Memory: 16 bytes per file and 8 per directory or leaf directory (FilesetLayout::
/// memory_bytes()); paths are built when needed.
struct FilesetLayout {
  static constexpr std::uint32_t kNoParent = UINT32_MAX;
  struct Dir {
    std::uint32_t parent = kNoParent;  ///< index into dirs; kNoParent for the root, <name> itself
    std::uint32_t serial = 1;
  };
  struct File {
    std::uint64_t size = 0;    ///< bytes (drawn once, as filebench's fse_size)
    std::uint32_t parent = 0;  ///< index into dirs (unused for a single file)
    std::uint32_t serial = 1;  ///< bit 31: preallocated
  };
  static constexpr std::uint32_t kPreallocBit = 1U << 31;
  /// An empty leaf directory (makedir/removedir): its parent directory and serial there (bit 31:
  /// preallocated, i.e. made before the run).
  struct LeafDir {
    std::uint32_t parent = 0;
    std::uint32_t serial = 1;
  };

  std::string name;
  bool single_file = false;
  std::vector<Dir> dirs;  ///< parents before children
  std::vector<File> files;
  std::vector<LeafDir> leafdirs;

  /// Path of directory `d` relative to the run directory ("<name>/00000001/00000004"; the
  /// root, directory 0, is "<name>").
  [[nodiscard]] std::string dir_path(std::uint32_t d) const;
  /// Path of file `f` relative to the run directory.
  [[nodiscard]] std::string file_path(std::uint32_t f) const;
  /// Path of leaf directory `l` relative to the run directory.
  [[nodiscard]] std::string leafdir_path(std::uint32_t l) const;
  [[nodiscard]] bool preallocated(std::uint32_t f) const noexcept {
    return (files[f].serial & kPreallocBit) != 0;
  }
  [[nodiscard]] bool leafdir_preallocated(std::uint32_t l) const noexcept {
    return (leafdirs[l].serial & kPreallocBit) != 0;
  }
  /// Bytes of the preallocated files.
  [[nodiscard]] std::uint64_t preallocated_bytes() const noexcept;
  /// Heap bytes this layout holds (the vectors' capacity).
  [[nodiscard]] std::size_t memory_bytes() const noexcept;
};

/// Draws fileset `def`'s layout from `seed` (same seed, same layout).
[[nodiscard]] FilesetLayout draw_layout(const FilesetDef& def, std::uint64_t seed);

/// Entries create_on_disk() walks for `layout`: its directories, leaf directories and files
/// (each one unit of progress, made or not).
[[nodiscard]] std::uint64_t creation_units(const FilesetLayout& layout) noexcept;

/// Most threads creating one fileset's files at once with paralloc (filebench's
/// MAX_PARALLOC_THREADS: its limit on simultaneous allocation threads).
inline constexpr std::uint32_t kMaxParallocThreads = 32;

/// Threads create_on_disk() uses for `layout` with paralloc: one per 64 files, 1 to
/// kMaxParallocThreads.
[[nodiscard]] std::uint32_t paralloc_threads(const FilesetLayout& layout) noexcept;

/// Creates `layout` beneath `run_dir`: every directory, each preallocated leaf directory, and
/// each preallocated file with O_CREAT|O_EXCL|O_NOFOLLOW (ConfinedDir::create) written to its
/// size in 1 MiB blocks of zeros. With `threads` > 1 (filebench's paralloc) the files are
/// created by that many threads, the directories first as without: the same names and sizes,
/// files 64 at a time, the c-th 64 by thread c % threads. `stop_requested` is asked, and
/// `progress` told the entries walked so far (of creation_units()), every 256 entries (with
/// threads: every 10 ms) and once more at the end; when it says true the creation ends there
/// (the run is being stopped; the runner removes the run directory). Throws IoError (errno,
/// call, path) on a failure (with threads: the first, the others stopped); returns the bytes
/// written.
std::uint64_t create_on_disk(const FilesetLayout& layout, const ConfinedDir& run_dir,
                             const std::function<bool()>& stop_requested,
                             const std::function<void(std::uint64_t)>& progress = {},
                             std::uint32_t threads = 1);

/// The state threads pick files from: which files exist and which a thread holds (busy), under
/// one mutex. Picks go as filebench's (fileset_pick): while every file of the set is busy the
/// picker waits for a release; then the first file at or after the rotor in the wanted state and
/// not busy, wrapping, is taken and the rotor moves past it; none such: no file. This state
/// (flags, counts, rotors, mutex) lies in shared mappings made by the constructor, so the worker
/// processes forked after it share it, as filebench's filesets in its shared memory; the layout
/// itself is read-only and each process has its copy. 1 byte per file and per directory.
class FilesetState {
 public:
  explicit FilesetState(FilesetLayout layout);
  /// A file that exists (`existing`) or does not, marked busy; nullopt when none is free
  /// (filebench's "could not obtain a file"), or when `keep_waiting()` turns false while every
  /// file is busy (checked every 10 ms).
  [[nodiscard]] std::optional<std::uint32_t> pick(bool existing,
                                                  const std::function<bool()>& keep_waiting);
  /// As pick(), but from file `from` (taken modulo the set's files) instead of the set's rotor,
  /// which stays where it is: the first file at or after `from` in the wanted state and not busy,
  /// wrapping (filebench's FILESET_PICKBYINDEX for indexed=, and its per-thread rotor of
  /// openfile with opennext).
  [[nodiscard]] std::optional<std::uint32_t> pick_from(bool existing, std::uint64_t from,
                                                       const std::function<bool()>& keep_waiting);
  /// Releases `file`, recording whether it now exists.
  void release(std::uint32_t file, bool exists);
  /// A leaf directory that exists (`existing`) or does not, marked busy, picked as files are
  /// (filebench's FILESET_PICKLEAFDIR, with its own rotors); nullopt as pick().
  [[nodiscard]] std::optional<std::uint32_t> pick_leafdir(
      bool existing, const std::function<bool()>& keep_waiting);
  /// Releases leaf directory `leafdir`, recording whether it now exists.
  void release_leafdir(std::uint32_t leafdir, bool exists);
  /// A directory of the layout (index into layout().dirs), marked busy: filebench's
  /// FILESET_PICKDIR, in rotation from the directory rotor, skipping busy ones, waiting while all
  /// are busy (nullopt when `keep_waiting()` turns false then, or when there is no directory).
  [[nodiscard]] std::optional<std::uint32_t> pick_dir(const std::function<bool()>& keep_waiting);
  /// Releases directory `dir`.
  void release_dir(std::uint32_t dir);
  /// Files that exist now.
  [[nodiscard]] std::uint64_t existing() const;
  /// Leaf directories that exist now.
  [[nodiscard]] std::uint64_t existing_leafdirs() const;
  [[nodiscard]] const FilesetLayout& layout() const noexcept { return layout_; }
  /// Bytes of the shared state (flags, counts): 1 per file, leaf directory and directory, plus
  /// the mappings' fixed part.
  [[nodiscard]] std::size_t shared_bytes() const noexcept;

 private:
  static constexpr std::uint8_t kExists = 1;
  static constexpr std::uint8_t kBusy = 2;
  /// Busy count and rotors of entries picked by state (files or leaf directories).
  struct PoolCounts {
    std::uint32_t busy = 0;
    std::uint32_t exist_rotor = 0;
    std::uint32_t noexist_rotor = 0;
  };
  struct Sync {
    SharedMutex mutex;
    SharedCondition released;
    PoolCounts files;
    PoolCounts leafdirs;
    std::uint32_t dirs_busy = 0;
    std::uint32_t dir_rotor = 0;
  };
  /// `from`: nullopt picks from (and moves) the pool's rotor.
  std::optional<std::uint32_t> pick_in(SharedArray<std::uint8_t>& flags, PoolCounts& counts,
                                       bool existing, std::optional<std::uint64_t> from,
                                       const std::function<bool()>& keep_waiting);
  void release_in(SharedArray<std::uint8_t>& flags, PoolCounts& counts, std::uint32_t index,
                  bool exists);
  [[nodiscard]] std::uint64_t existing_in(const SharedArray<std::uint8_t>& flags) const;
  FilesetLayout layout_;
  SharedArray<Sync> sync_;
  SharedArray<std::uint8_t> files_;
  SharedArray<std::uint8_t> leafdirs_;
  SharedArray<std::uint8_t> dir_busy_;
};

}  // namespace iobench::plugins::filebench
