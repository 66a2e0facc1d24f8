// IoDriver's one-at-a-time loops over the psync engine's queue make the pread/pwrite inline
// (detail/psync_fast_path.hpp): the same bytes, counts and failures as through the queue.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <iobench/detail/psync_fast_path.hpp>
#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <iobench/io_driver.hpp>
#include <iobench/testing.hpp>
#include <vector>

#include "tests/support/test_support.hpp"

using namespace iobench;

namespace {

constexpr std::size_t kBlock = 4096;

// `count` requests of kBlock bytes in `direction`, block i at offset i * kBlock.
class BlockSource {
 public:
  BlockSource(IoDirection direction, std::uint64_t count) : direction_(direction), count_(count) {}
  bool next(IoRequest& request, OpId& op) {
    if (issued_ == count_) return false;
    request.direction = direction_;
    request.offset = issued_ * kBlock;
    request.length = kBlock;
    op = 0;
    ++issued_;
    return true;
  }
  void completed(const IoRequest& /*request*/, OpId /*op*/) { ++completed_; }
  [[nodiscard]] std::uint64_t completed_count() const { return completed_; }

 private:
  IoDirection direction_;
  std::uint64_t count_;
  std::uint64_t issued_ = 0;
  std::uint64_t completed_ = 0;
};

struct Fixture {
  test::TempDir dir;
  std::unique_ptr<Engine> engine = make_psync_engine();
  PhaseSpec spec{.name = "fast path", .op_names = {"op"}};
  testing::WorkerHarness harness{spec, {}, *engine};
  WorkerContext& ctx = (harness.start_measuring(), harness.context());
  AlignedBuffer buffer{kBlock};

  // A file of `blocks` blocks, block i filled with byte 'a' + i.
  std::filesystem::path make_file(std::size_t blocks) {
    const std::filesystem::path path = dir.path() / "data";
    UniqueFd fd = create_file_exclusive(path, O_RDWR);
    std::vector<std::byte> block(kBlock);
    for (std::size_t i = 0; i < blocks; ++i) {
      std::memset(block.data(), 'a' + static_cast<int>(i), kBlock);
      write_all_at(fd.get(), block, static_cast<off_t>(i * kBlock), path);
    }
    return path;
  }

  void drive(IoFile& file, BlockSource& source, std::uint32_t latency_sample = 1) {
    const std::unique_ptr<IoQueue> queue = file.make_queue({.depth = 1});
    IoDriver driver(file, *queue, buffer.span(), kBlock,
                    {.latency_sample = latency_sample, .sample_seed = 1});
    driver.run(ctx, source);
  }
};

}  // namespace

TEST_CASE("psync_queue_fd finds psync's queue and no other", "[core][driver]") {
  Fixture f;
  const std::filesystem::path path = f.make_file(1);
  const std::unique_ptr<IoFile> file = f.engine->open(FileLocation::user_target(path), {});
  const std::unique_ptr<IoQueue> psync = file->make_queue({.depth = 1});
  CHECK(detail::psync_queue_fd(*psync) == file->fd());

  const std::unique_ptr<Engine> pvsync2 = make_pvsync2_engine(EngineSpec{.name = "pvsync2"});
  const std::unique_ptr<IoFile> other = pvsync2->open(FileLocation::user_target(path), {});
  CHECK(detail::psync_queue_fd(*other->make_queue({.depth = 1})) == -1);
}

TEST_CASE("the psync fast path reads every block and counts each op once", "[core][driver]") {
  for (const std::uint32_t sample : {1U, 4U}) {
    Fixture f;
    const std::filesystem::path path = f.make_file(8);
    const std::unique_ptr<IoFile> file = f.engine->open(FileLocation::user_target(path), {});
    BlockSource source(IoDirection::kRead, 8);
    f.drive(*file, source, sample);
    CHECK(source.completed_count() == 8);
    const std::span<const OpStats> ops = f.harness.ops();
    CHECK(ops[0].ops == 8);
    CHECK(ops[0].bytes == 8 * kBlock);
    CHECK(ops[0].latency.count() == (sample == 1 ? 8 : 2));
    // The last read was block 7's.
    CHECK(static_cast<char>(f.buffer.span()[0]) == 'a' + 7);
    CHECK(static_cast<char>(f.buffer.span()[kBlock - 1]) == 'a' + 7);
  }
}

TEST_CASE("the psync fast path writes every block", "[core][driver]") {
  Fixture f;
  const std::filesystem::path path = f.make_file(0);
  const std::unique_ptr<IoFile> file =
      f.engine->open(FileLocation::user_target(path), {.read = true, .write = true});
  std::memset(f.buffer.span().data(), 'w', kBlock);
  BlockSource source(IoDirection::kWrite, 5);
  f.drive(*file, source);
  CHECK(f.harness.ops()[0].bytes == 5 * kBlock);
  REQUIRE(std::filesystem::file_size(path) == 5 * kBlock);
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  std::vector<char> back(5 * kBlock);
  REQUIRE(::pread(fd.get(), back.data(), back.size(), 0) == static_cast<ssize_t>(back.size()));
  CHECK(std::all_of(back.begin(), back.end(), [](char c) { return c == 'w'; }));
}

TEST_CASE("the psync fast path fails a read that meets the end of the file, as the queue does",
          "[core][driver]") {
  // A file of 2.5 blocks: the third read gets half a block, and the queue's read_at of the
  // rest meets the end of the file.
  Fixture f;
  const std::filesystem::path path = f.make_file(3);
  std::filesystem::resize_file(path, 2 * kBlock + kBlock / 2);
  const std::unique_ptr<IoFile> file = f.engine->open(FileLocation::user_target(path), {});
  BlockSource source(IoDirection::kRead, 3);
  CHECK_THROWS_WITH(f.drive(*file, source), Catch::Contains("pread (short read: end of file)") &&
                                                Catch::Contains(path.string()));
  CHECK(source.completed_count() == 2);
  CHECK(f.harness.ops()[0].ops == 2);
}

TEST_CASE("the psync fast path's failed call throws naming pwrite and the file", "[core][driver]") {
  Fixture f;
  const std::filesystem::path path = f.make_file(1);
  const std::unique_ptr<IoFile> file = f.engine->open(FileLocation::user_target(path), {});
  BlockSource source(IoDirection::kWrite, 1);  // the file is open for reading only: EBADF
  try {
    f.drive(*file, source);
    FAIL("no IoError");
  } catch (const IoError& e) {
    CHECK_THAT(e.what(), Catch::Contains("pwrite") && Catch::Contains(path.string()) &&
                             Catch::Contains(std::strerror(EBADF)));
  }
  CHECK(f.harness.ops()[0].ops == 0);
}

TEST_CASE("psync_finish_request moves the rest of a short read and retries EINTR",
          "[core][driver]") {
  Fixture f;
  const std::filesystem::path path = f.make_file(2);
  const std::unique_ptr<IoFile> file = f.engine->open(FileLocation::user_target(path), {});
  const std::unique_ptr<IoQueue> queue = file->make_queue({.depth = 1});
  std::byte* const buffer = f.buffer.span().data();
  const IoRequest r{
      .direction = IoDirection::kRead, .length = kBlock, .buffer = buffer, .offset = kBlock};

  // Half of block 1 arrived ('b'), the rest did not (zeros): the rest is read.
  std::memset(buffer, 'b', kBlock / 2);
  std::memset(buffer + kBlock / 2, 0, kBlock / 2);
  detail::psync_finish_request(*queue, r, kBlock / 2);
  CHECK(static_cast<char>(buffer[kBlock / 2]) == 'b');
  CHECK(static_cast<char>(buffer[kBlock - 1]) == 'b');

  // Interrupted before any byte: the whole request again.
  std::memset(buffer, 0, kBlock);
  errno = EINTR;
  detail::psync_finish_request(*queue, r, -1);
  CHECK(static_cast<char>(buffer[0]) == 'b');
  CHECK(static_cast<char>(buffer[kBlock - 1]) == 'b');

  // Another errno is the call's failure.
  errno = EIO;
  CHECK_THROWS_WITH(detail::psync_finish_request(*queue, r, -1),
                    Catch::StartsWith("pread") && Catch::Contains(std::strerror(EIO)));
}

TEST_CASE("psync_finish_request refuses a queue that is not psync's", "[core][driver]") {
  Fixture f;
  const std::filesystem::path path = f.make_file(1);
  const std::unique_ptr<Engine> pvsync2 = make_pvsync2_engine(EngineSpec{.name = "pvsync2"});
  const std::unique_ptr<IoFile> file = pvsync2->open(FileLocation::user_target(path), {});
  const std::unique_ptr<IoQueue> queue = file->make_queue({.depth = 1});
  const IoRequest r{.direction = IoDirection::kRead, .length = kBlock, .buffer = f.buffer.data()};
  CHECK_THROWS_WITH(detail::psync_finish_request(*queue, r, 0),
                    Catch::Contains("not the psync engine's"));
}
