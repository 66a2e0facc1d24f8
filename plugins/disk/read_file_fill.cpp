#include "plugins/disk/read_file_fill.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <iobench/data_pattern.hpp>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <optional>
#include <utility>

namespace iobench::plugins::disk {
namespace {

constexpr std::size_t kFillChunkBytes = 1 << 20;

// Chunks of the file being created that may wait for writeback at once (see below).
constexpr std::size_t kWriteBehindChunks = 16;

}  // namespace

// Fills the file a read or mixed phase works on, untimed: the worker's `blocks` blocks, where
// `placement` puts them (the whole file, or this rank's part of a shared one), with what a write
// phase with the same block size, data pattern and seed writes, or with verify the pattern reads
// check. A file of the worker's own is created here; a shared one exists already (rank 0 made it
// in prepare()).
// Returns false if the run is stopped meanwhile, with no file of its own left (a shared one is
// rank 0's, removed with its run directory): that is checked every chunk (1 MiB or one block),
// and writeback is kept at most 16 chunks behind (each chunk's writeback starts as it is
// written; the one 16 chunks back is waited for), so neither the loop nor the closing fsync can
// hold a stop up for long, however large the file. The file's data is on the device at the end.
bool fill_read_file(const ConfinedDir& dir, const FileLocation& location, const std::string& name,
                    bool shared, BlockPlacement placement, std::uint64_t blocks,
                    const DiskConfig& config, VerifyPattern* pattern, std::uint64_t seed,
                    const WorkerContext& ctx) {
  const std::filesystem::path& path = location.path();
  UniqueFd fd = location.open(O_WRONLY, !shared);
  const std::uint64_t bs = config.block_size_bytes;
  // Whole blocks per chunk, so a verify pattern is stamped block by block.
  const std::uint64_t chunk_blocks = std::max<std::uint64_t>(1, kFillChunkBytes / bs);
  AlignedBuffer chunk(static_cast<std::size_t>(chunk_blocks * bs));
  std::optional<PatternBuffer> data;
  if (pattern == nullptr) data.emplace(config.data, static_cast<std::size_t>(bs), seed);
  // The file range each recent chunk spans (its blocks, and between them other ranks' ones).
  std::array<std::pair<off_t, off_t>, kWriteBehindChunks> spans{};
  std::size_t chunk_index = 0;
  for (std::uint64_t first = 0; first < blocks; first += chunk_blocks, ++chunk_index) {
    if (ctx.stop_requested()) {
      fd.close(path);
      if (!shared) dir.unlink(name);  // half a file must not pass for the file to read
      return false;
    }
    const std::uint64_t count = std::min(chunk_blocks, blocks - first);
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::uint64_t block = first + i;
      const auto bytes =
          chunk.span().subspan(static_cast<std::size_t>(i * bs), static_cast<std::size_t>(bs));
      if (pattern != nullptr) {
        pattern->fill(bytes, placement.file_block(block) * bs, 0);
      } else {
        const auto source = data->block(block);
        std::memcpy(bytes.data(), source.data(), source.size());
      }
    }
    if (placement.stride == 1) {
      write_all_at(fd.get(), chunk.span().first(static_cast<std::size_t>(count * bs)),
                   static_cast<off_t>(placement.file_block(first) * bs), path);
    } else {
      for (std::uint64_t i = 0; i < count; ++i) {
        write_all_at(
            fd.get(),
            chunk.span().subspan(static_cast<std::size_t>(i * bs), static_cast<std::size_t>(bs)),
            static_cast<off_t>(placement.file_block(first + i) * bs), path);
      }
    }
    // Hints only (errors surface in the fsync below): start this chunk's writeback, wait for
    // the one kWriteBehindChunks back.
    const auto begin = static_cast<off_t>(placement.file_block(first) * bs);
    const auto length =
        static_cast<off_t>(placement.file_block(first + count - 1) * bs + bs) - begin;
    (void)::sync_file_range(fd.get(), begin, length, SYNC_FILE_RANGE_WRITE);
    auto& slot = spans[chunk_index % kWriteBehindChunks];
    if (chunk_index >= kWriteBehindChunks) {
      (void)::sync_file_range(
          fd.get(), slot.first, slot.second,
          SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
    }
    slot = {begin, length};
  }
  if (::fsync(fd.get()) != 0) throw IoError(errno, "fsync", path.string());
  // Written data is clean after fsync, so DONTNEED really evicts it: the timed reads then come
  // from the device, as the seeds' "read back" tests intend.
  (void)::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
  fd.close(path);
  return true;
}

}  // namespace iobench::plugins::disk
