// Every engine's queue, driven directly: what it reads and writes is what was asked, at every depth
// it takes, with tags and byte counts coming back in the completions.
#include <catch2/catch.hpp>
#include <cstring>
#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <iobench/registry.hpp>
#include <map>
#include <set>

#include "tests/support/test_support.hpp"

using namespace iobench;

namespace {

constexpr std::size_t kBlock = 4096;
constexpr std::size_t kBlocks = 64;

// Writes kBlocks blocks (block i filled with byte i+1) through `queue` in batches of its depth,
// in a scattered order, then reads them back the same way and compares.
void round_trip(IoFile& file, std::uint32_t depth) {
  AlignedBuffer buffers(kBlock * depth);
  auto queue = file.make_queue(
      QueueOptions{.depth = depth, .buffers = buffers.span(), .buffer_bytes = kBlock});
  REQUIRE(queue->depth() == depth);
  for (const IoDirection direction : {IoDirection::kWrite, IoDirection::kRead}) {
    std::size_t next = 0;
    std::set<std::uint64_t> seen;
    std::vector<IoCompletion> done(depth);
    while (seen.size() < kBlocks) {
      std::vector<IoRequest> batch;
      std::vector<std::uint32_t> free_slots;
      for (std::uint32_t slot = 0; slot < depth && next < kBlocks; ++slot, ++next) {
        const std::uint64_t block = (next * 37) % kBlocks;  // 37 is coprime with 64
        std::byte* buffer = buffers.data() + slot * kBlock;
        if (direction == IoDirection::kWrite) {
          std::memset(buffer, static_cast<int>(block + 1), kBlock);
        } else {
          std::memset(buffer, 0, kBlock);
        }
        batch.push_back({.direction = direction,
                         .length = kBlock,
                         .buffer = buffer,
                         .offset = block * kBlock,
                         .tag = block,
                         .buffer_index = slot});
      }
      queue->submit(batch);
      CHECK(queue->in_flight() == batch.size());
      std::size_t reaped = 0;
      while (reaped < batch.size()) {
        const std::size_t n = queue->reap(done, 1);
        REQUIRE(n >= 1);
        for (std::size_t i = 0; i < n; ++i) {
          CHECK(done[i].result == static_cast<std::int64_t>(kBlock));
          CHECK(seen.insert(done[i].tag).second);
          if (direction == IoDirection::kRead) {
            // The buffer of the request with this tag holds the block's byte.
            const auto it = std::find_if(batch.begin(), batch.end(),
                                         [&](const IoRequest& r) { return r.tag == done[i].tag; });
            REQUIRE(it != batch.end());
            const auto expected = static_cast<std::byte>(done[i].tag + 1);
            CHECK(std::all_of(it->buffer, it->buffer + kBlock,
                              [&](std::byte b) { return b == expected; }));
          }
        }
        reaped += n;
      }
      CHECK(queue->in_flight() == 0);
    }
  }
}

}  // namespace

TEST_CASE("every engine's queue moves exactly the bytes asked at each depth", "[core][engine]") {
  const Registry registry = test::make_full_registry();
  struct Case {
    std::string spec;
    bool direct;
    std::vector<std::uint32_t> depths;
  };
  const std::vector<Case> cases{
      {"psync", false, {1}},
      {"pvsync2", false, {1}},
      {"mmap", false, {1}},
      {"io_uring", false, {1, 4, 32}},
      {"io_uring", true, {1, 8, 64}},
      {"io_uring:fixedbufs,registerfiles", false, {1, 16}},
      {"libaio", true, {1, 4, 32}},
  };
  test::TempDir dir("queue");
  const OwnedConfinedDir confined = test::open_confined(dir.path());
  int n = 0;
  for (const Case& c : cases) {
    const auto engine = registry.create_engine(c.spec);
    if (const std::string why = engine->unavailable_reason(); !why.empty()) {
      WARN("skipping " << c.spec << ": " << why);
      continue;
    }
    for (const std::uint32_t depth : c.depths) {
      INFO(c.spec << (c.direct ? " O_DIRECT" : "") << " at depth " << depth);
      const std::string name = "f" + std::to_string(n++);
      const auto path = dir.path() / name;
      std::unique_ptr<IoFile> file;
      try {
        file = engine->open(FileLocation::beneath(confined, name), {.read = true,
                                   .write = true,
                                   .create = true,
                                   .direct = c.direct,
                                   .map_size_bytes = kBlock * kBlocks});
      } catch (const IoError& e) {
        if (c.direct && e.error_number() == EINVAL) {
          WARN("skipping O_DIRECT here: " << e.what());
          continue;
        }
        throw;
      }
      round_trip(*file, depth);
      file->close();
      CHECK(std::filesystem::file_size(path) == kBlock * kBlocks);
    }
  }
}

TEST_CASE("the null engine completes every request at once and writes nothing",
          "[core][engine]") {
  test::TempDir dir("null");
  const OwnedConfinedDir confined = test::open_confined(dir.path());
  auto file = make_null_engine()->open(FileLocation::beneath(confined, "f"),
                                       {.write = true, .create = true});
  CHECK(dir.entries().empty());
  AlignedBuffer buffers(kBlock * 8);
  auto queue = file->make_queue({.depth = 8, .buffers = buffers.span(), .buffer_bytes = kBlock});
  std::vector<IoRequest> batch;
  for (std::uint64_t i = 0; i < 8; ++i) {
    batch.push_back({.direction = IoDirection::kWrite,
                     .length = kBlock,
                     .buffer = buffers.data() + i * kBlock,
                     .offset = i * kBlock,
                     .tag = 100 + i});
  }
  queue->submit(batch);
  std::vector<IoCompletion> done(8);
  REQUIRE(queue->reap(done, 0) == 8);  // no waiting: already complete
  for (std::uint64_t i = 0; i < 8; ++i) {
    CHECK(done[i].tag == 100 + i);
    CHECK(done[i].result == static_cast<std::int64_t>(kBlock));
  }
  CHECK(dir.entries().empty());
}

TEST_CASE("a synchronous engine refuses a queue deeper than one", "[core][engine]") {
  test::TempDir dir("sync");
  const OwnedConfinedDir confined = test::open_confined(dir.path());
  auto file = make_psync_engine()->open(FileLocation::beneath(confined, "f"),
                                        {.write = true, .create = true});
  CHECK_THROWS_WITH(file->make_queue({.depth = 4}),
                    Catch::Contains("iodepth=4") && Catch::Contains("synchronous"));
}

TEST_CASE("an asynchronous read past the end of file completes short, not as an error",
          "[core][engine]") {
  test::TempDir dir("short");
  const auto engine = make_io_uring_engine(EngineSpec{.name = "io_uring"});
  if (const std::string why = engine->unavailable_reason(); !why.empty()) {
    WARN("skipping: " << why);
    return;
  }
  const OwnedConfinedDir confined = test::open_confined(dir.path());
  auto file = engine->open(FileLocation::beneath(confined, "f"),
                           {.read = true, .write = true, .create = true});
  AlignedBuffer buffer(kBlock);
  file->write_at(buffer.span().first(100), 0);
  auto queue = file->make_queue({.depth = 2});
  queue->submit(std::vector<IoRequest>{
      {.direction = IoDirection::kRead, .length = kBlock, .buffer = buffer.data(), .tag = 1}});
  std::vector<IoCompletion> done(2);
  REQUIRE(queue->reap(done, 1) == 1);
  CHECK(done[0].result == 100);
}

TEST_CASE("psync's queue fails a read past the end of file and a refused write as its file does",
          "[core][engine]") {
  test::TempDir dir("psync-queue");
  const OwnedConfinedDir confined = test::open_confined(dir.path());
  const auto engine = make_psync_engine();
  auto file = engine->open(FileLocation::beneath(confined, "f"),
                           {.read = true, .write = true, .create = true});
  AlignedBuffer buffer(kBlock);
  file->write_at(buffer.span().first(100), 0);
  auto queue = file->make_queue({.depth = 1});
  // A short read at the end: the rest is asked for once more and the end of file reported.
  const IoRequest read{.direction = IoDirection::kRead, .length = kBlock, .buffer = buffer.data()};
  CHECK_THROWS_WITH(queue->submit({&read, 1}),
                    Catch::Contains("pread (short read: end of file)") && Catch::Contains("/f"));
  CHECK(queue->in_flight() == 0);
  // The whole file moves: exactly its 100 bytes.
  const IoRequest exact{
      .direction = IoDirection::kRead, .length = 100, .buffer = buffer.data(), .tag = 7};
  queue->submit({&exact, 1});
  std::vector<IoCompletion> done(1);
  REQUIRE(queue->reap(done, 1) == 1);
  CHECK(done[0].tag == 7);
  CHECK(done[0].result == 100);
  // A write the descriptor does not allow fails with the errno of pwrite.
  auto read_only =
      engine->open(FileLocation::beneath(confined, "f"), {.read = true, .write = false});
  auto read_only_queue = read_only->make_queue({.depth = 1});
  const IoRequest write{
      .direction = IoDirection::kWrite, .length = kBlock, .buffer = buffer.data()};
  CHECK_THROWS_WITH(read_only_queue->submit({&write, 1}),
                    Catch::StartsWith("pwrite") && Catch::Contains("Bad file descriptor"));
}
