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
  const OwnedConfinedDir confined = test::open_confined(dir.path());
  for (const auto& engine : {make_psync_engine(), make_mmap_engine()}) {
    const auto location = FileLocation::beneath(confined, "f." + engine->name());
    AlignedBuffer out(8192);
    auto file = engine->open(
        location, {.read = true, .write = true, .create = true, .map_size_bytes = 3 * 8192});
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
  const OwnedConfinedDir confined = test::open_confined(dir.path());
  const auto path = dir.path() / "exists";
  { UniqueFd fd = create_file_exclusive(path, O_WRONLY); }
  try {
    (void)make_psync_engine()->open(FileLocation::beneath(confined, "exists"),
                                    {.write = true, .create = true});
    FAIL("no error");
  } catch (const IoError& e) {
    CHECK(e.error_number() == EEXIST);
  }
  // A symlink is not followed either.
  const auto link = dir.path() / "link";
  std::filesystem::create_symlink(path, link);
  CHECK_THROWS_AS(open_existing(link, O_RDONLY), IoError);
}

TEST_CASE("engines never follow a link beneath a run directory but follow the user's own",
          "[core][engine]") {
  test::TempDir dir("engine");
  const OwnedConfinedDir confined = test::open_confined(dir.path());
  test::TempDir outside("engine-out");
  const auto file = outside.path() / "data";
  {
    UniqueFd fd = create_file_exclusive(file, O_WRONLY);
    AlignedBuffer buffer(4096);
    write_all_at(fd.get(), buffer.span(), 0, file);
  }
  std::filesystem::create_symlink(file, dir.path() / "planted");
  std::filesystem::create_directory(outside.path() / "sub");
  std::filesystem::create_directory_symlink(outside.path() / "sub", dir.path() / "subdir");
  for (const auto& engine : {make_psync_engine(), make_mmap_engine()}) {
    INFO(engine->name());
    for (const char* name : {"planted", "subdir/new", "../" /* escape */}) {
      INFO(name);
      for (const bool create : {false, true}) {
        try {
          (void)engine->open(
              FileLocation::beneath(confined, name),
              {.read = true, .write = create, .create = create, .map_size_bytes = 4096});
          FAIL("opened");
        } catch (const IoError& e) {
          // O_CREAT | O_EXCL meets the planted link itself: EEXIST, never followed.
          if (create && std::string_view(name) == "planted") {
            CHECK(e.error_number() == EEXIST);
          } else {
            CHECK((e.error_number() == ELOOP || e.error_number() == EXDEV));
            CHECK_THAT(e.what(), Catch::Contains("refused"));
          }
        }
      }
    }
    CHECK(!std::filesystem::exists(outside.path() / "sub" / "new"));
    // The user's own link to a file (as /dev/disk/by-id/... is to a device) is followed.
    auto opened = engine->open(FileLocation::user_target(dir.path() / "planted"),
                               {.read = true, .map_size_bytes = 4096});
    CHECK(opened->size() == 4096);
    opened->close();
    // ...but never created.
    CHECK_THROWS_AS(engine->open(FileLocation::user_target(outside.path() / "absent"),
                                 {.read = true, .write = true, .create = true}),
                    IoError);
    CHECK(!std::filesystem::exists(outside.path() / "absent"));
  }
}

TEST_CASE("a read past the end of file is a short-read error", "[core][engine]") {
  test::TempDir dir("engine");
  const OwnedConfinedDir confined = test::open_confined(dir.path());
  auto file = make_psync_engine()->open(FileLocation::beneath(confined, "small"),
                                        {.read = true, .write = true, .create = true});
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
