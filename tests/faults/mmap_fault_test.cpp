// The mmap engine's SIGBUS guard: faults inside its copies become IoErrors naming the offset and
// the errno; every other SIGBUS keeps its action.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>

#include "tests/faults/fault_fixtures.hpp"

using namespace iobench;

namespace {

constexpr std::size_t kChunk = 64 * 1024;

// A file of `bytes` written with pwrite and made durable.
void write_file(const std::filesystem::path& path, std::size_t bytes) {
  UniqueFd fd = create_file_exclusive(path, O_WRONLY);
  AlignedBuffer chunk(kChunk);
  for (std::size_t off = 0; off < bytes; off += kChunk) {
    write_all_at(fd.get(), chunk.span(), static_cast<off_t>(off), path);
  }
  REQUIRE(::fsync(fd.get()) == 0);
  REQUIRE(::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED) == 0);
}

// Runs `body` in a forked child and returns its wait status.
template <typename Body>
int in_child(Body body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    body();
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

// In the child: a file mapped directly (not through the engine) and truncated, so touching
// the mapping raises SIGBUS outside any guarded copy.
volatile const char* truncated_mapping(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || ::ftruncate(fd, 1 << 20) != 0) ::_exit(3);
  void* map = ::mmap(nullptr, 1 << 20, PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED || ::ftruncate(fd, 0) != 0) ::_exit(3);
  return static_cast<volatile const char*>(map);
}

// In the child: an open through the mmap engine, which installs its SIGBUS handler.
void open_through_engine(const std::filesystem::path& path) {
  const auto engine = make_mmap_engine();
  const OwnedConfinedDir dir = test::open_confined(path.parent_path());
  auto file = engine->open(FileLocation::beneath(dir, path.filename().string()),
                           {.read = true, .write = true, .create = true, .map_size_bytes = 4096});
  file->close();
}

extern "C" void exit_42(int) { ::_exit(42); }

}  // namespace

TEST_CASE("an mmap write on a full filesystem is ENOSPC at its offset, not a SIGBUS",
          "[faults][mmap]") {
  if (IOBENCH_TEST_UNDER_TSAN) {
    WARN(
        "skipped under ThreadSanitizer: its memcpy interceptor takes the SIGBUS of a full "
        "tmpfs before the mmap engine's guard does (the ASan build runs this test)");
    return;
  }
  const test::ScopedTmpfs small("1m");
  if (!small.mounted()) {
    WARN("skipped: mounting a 1 MiB tmpfs needs root");
    return;
  }
  const auto engine = make_mmap_engine();
  const auto path = small.path() / "sparse";
  const OwnedConfinedDir dir = test::open_confined(small.path());
  auto file = engine->open(FileLocation::beneath(dir, "sparse"),
                           {.read = true,
                            .write = true,
                            .create = true,
                            .map_size_bytes = 4 << 20});  // 4 MiB of holes on 1 MiB
  AlignedBuffer chunk(kChunk);
  std::uint64_t offset = 0;
  try {
    for (; offset < (4 << 20); offset += kChunk) file->write_at(chunk.span(), offset);
    FAIL("4 MiB fit on a 1 MiB tmpfs");
  } catch (const IoError& e) {
    CHECK(e.error_number() == ENOSPC);
    const std::string message = e.what();
    CHECK_THAT(message, Catch::Contains("mmap write (SIGBUS at offset ") &&
                            Catch::Contains(path.string()) &&
                            Catch::Contains("No space left on device"));
    // The offset named is the first page that did not fit, inside the chunk that failed.
    const std::string named = message.substr(message.find("offset ") + 7);
    const std::uint64_t fault_offset = std::stoull(named);
    CHECK(fault_offset >= offset);
    CHECK(fault_offset < offset + kChunk);
    CHECK(offset > 0);
    CHECK(offset <= (1 << 20));
  }
  // The file stays usable: what fitted reads back, the process is alive.
  AlignedBuffer back(kChunk);
  file->read_at(back.span(), 0);
  CHECK(std::equal(back.data(), back.data() + kChunk, chunk.data()));
  CHECK_THROWS_AS(file->write_at(chunk.span(), offset), IoError);
  file->close();
}

TEST_CASE("an mmap read of a file truncated meanwhile is EIO, not a SIGBUS", "[faults][mmap]") {
  test::TempDir dir("mmapfault");
  const auto path = dir.path() / "shrinks";
  write_file(path, 1 << 20);
  auto file = make_mmap_engine()->open(FileLocation::user_target(path), {.read = true});
  AlignedBuffer buffer(kChunk);
  file->read_at(buffer.span(), 512 * 1024);
  REQUIRE(::truncate(path.c_str(), 0) == 0);
  try {
    file->read_at(buffer.span(), 512 * 1024);
    FAIL("read past the end of a truncated mapping succeeded");
  } catch (const IoError& e) {
    CHECK(e.error_number() == EIO);
    CHECK_THAT(e.what(), Catch::Contains("mmap read (SIGBUS at offset 524288: the file is now 0 "
                                         "bytes, shorter than its mapping") &&
                             Catch::Contains("Input/output error"));
  }
}

TEST_CASE("an mmap read the device fails is EIO, not a SIGBUS", "[faults][mmap]") {
  test::LoopFs fs(64);
  if (!fs.ready()) {
    WARN("skipped: " << fs.skip_reason());
    return;
  }
  const auto path = fs.path() / "data";
  write_file(path, 4 << 20);
  auto file = make_mmap_engine()->open(FileLocation::user_target(path), {.read = true});
  INFO("EIO injected by " << fs.inject_eio());
  AlignedBuffer buffer(kChunk);
  try {
    for (std::uint64_t off = 0; off < (4 << 20); off += kChunk) file->read_at(buffer.span(), off);
    FAIL("every page read from a failing device");
  } catch (const IoError& e) {
    CHECK(e.error_number() == EIO);
    CHECK_THAT(e.what(), Catch::Contains("mmap read (SIGBUS at offset ") &&
                             Catch::Contains("the filesystem or device failed the page") &&
                             Catch::Contains("Input/output error"));
  }
}

TEST_CASE("a SIGBUS outside the mmap engine's copies keeps its action", "[faults][mmap]") {
  test::TempDir dir("mmapfault");
  const auto engine_file = dir.path() / "engine";
  const auto other_file = dir.path() / "other";

  SECTION("the default action when there was no handler") {
    const int status = in_child([&] {
      ::signal(SIGBUS, SIG_DFL);
      open_through_engine(engine_file);
      volatile const char* map = truncated_mapping(other_file);
      (void)map[4096];
    });
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGBUS);
  }
  SECTION("a SIGBUS sent with kill(2) also keeps the default action") {
    const int status = in_child([&] {
      ::signal(SIGBUS, SIG_DFL);
      open_through_engine(engine_file);
      ::kill(::getpid(), SIGBUS);
    });
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGBUS);
  }
  SECTION("the handler installed before the engine's gets the fault") {
    const int status = in_child([&] {
      ::signal(SIGBUS, exit_42);
      open_through_engine(engine_file);
      volatile const char* map = truncated_mapping(other_file);
      (void)map[4096];
    });
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 42);
  }
}
