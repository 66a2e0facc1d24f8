#include <fcntl.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>

#include "tests/support/test_support.hpp"

using namespace iobench;

TEST_CASE("psync and mmap engines round-trip data at offsets", "[core][engine]") {
  test::TempDir dir("engine");
  for (const auto& engine : {make_psync_engine(), make_mmap_engine()}) {
    const auto path = dir.path() / ("f." + engine->name());
    AlignedBuffer out(8192);
    auto file = engine->open(
        path, {.read = true, .write = true, .create = true, .map_size_bytes = 3 * 8192});
    file->write_at(out.span(), 8192);
    file->sync();
    AlignedBuffer in(8192);
    std::fill(in.data(), in.data() + in.size(), std::byte{0});
    file->read_at(in.span(), 8192);
    CHECK(std::equal(in.data(), in.data() + in.size(), out.data()));
    CHECK(file->size() >= 2 * 8192);
    file->close();
  }
}

TEST_CASE("creating never reuses an existing path", "[core][engine]") {
  test::TempDir dir("engine");
  const auto path = dir.path() / "exists";
  { UniqueFd fd = create_file_exclusive(path, O_WRONLY); }
  try {
    (void)make_psync_engine()->open(path, {.write = true, .create = true});
    FAIL("no error");
  } catch (const IoError& e) {
    CHECK(e.error_number() == EEXIST);
  }
  // A symlink is not followed either.
  const auto link = dir.path() / "link";
  std::filesystem::create_symlink(path, link);
  CHECK_THROWS_AS(open_existing(link, O_RDONLY), IoError);
}

TEST_CASE("a read past the end of file is a short-read error", "[core][engine]") {
  test::TempDir dir("engine");
  const auto path = dir.path() / "small";
  auto file = make_psync_engine()->open(path, {.read = true, .write = true, .create = true});
  AlignedBuffer buffer(4096);
  file->write_at(buffer.span(), 0);
  CHECK_THROWS_WITH(file->read_at(buffer.span(), 4096), Catch::Contains("short read"));
}

TEST_CASE("aligned buffers are aligned for O_DIRECT and not zero", "[core][engine]") {
  AlignedBuffer buffer(10000);
  CHECK(reinterpret_cast<std::uintptr_t>(buffer.data()) % AlignedBuffer::kAlignment == 0);
  CHECK(buffer.size() == 10000);
  const auto zeros = std::count(buffer.data(), buffer.data() + buffer.size(), std::byte{0});
  CHECK(zeros < 200);
}
