// Where each rank's blocks lie in a file the ranks share (IOR's N-1 layouts): the ranks' blocks
// together cover the file's blocks exactly once, in the order each layout promises.
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "plugins/disk/shared_file.hpp"

using iobench::plugins::disk::BlockPlacement;
using iobench::plugins::disk::SharedFile;

namespace {

// How often each file block is some rank's, for `ranks` ranks of `blocks` blocks each.
std::vector<int> coverage(SharedFile layout, std::uint64_t blocks, int ranks) {
  std::vector<int> seen(blocks * static_cast<std::uint64_t>(ranks), 0);
  for (int r = 0; r < ranks; ++r) {
    const BlockPlacement placement = BlockPlacement::of(layout, blocks, r, ranks);
    for (std::uint64_t b = 0; b < blocks; ++b) ++seen.at(placement.file_block(b));
  }
  return seen;
}

}  // namespace

TEST_CASE("shared file layouts: every file block belongs to exactly one rank", "[disk]") {
  for (const SharedFile layout : {SharedFile::kRegions, SharedFile::kInterleaved}) {
    for (const int ranks : {1, 2, 3, 7}) {
      const std::vector<int> seen = coverage(layout, 5, ranks);
      CHECK(seen == std::vector<int>(seen.size(), 1));
    }
  }
}

TEST_CASE("shared file layouts: regions are contiguous, interleaved blocks alternate by rank",
          "[disk]") {
  const BlockPlacement region = BlockPlacement::of(SharedFile::kRegions, 10, 2, 3);
  CHECK(region.file_block(0) == 20);
  CHECK(region.file_block(9) == 29);
  const BlockPlacement interleaved = BlockPlacement::of(SharedFile::kInterleaved, 10, 2, 3);
  CHECK(interleaved.file_block(0) == 2);
  CHECK(interleaved.file_block(1) == 5);
  CHECK(interleaved.file_block(9) == 29);
  // A file of its own: blocks in place, whatever the rank.
  const BlockPlacement own = BlockPlacement::of(SharedFile::kOff, 10, 2, 3);
  CHECK(own.file_block(0) == 0);
  CHECK(own.file_block(9) == 9);
}
