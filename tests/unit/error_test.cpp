#include <catch2/catch.hpp>
#include <cerrno>
#include <iobench/error.hpp>
#include <string>

TEST_CASE("IoError names the call the path and the errno text", "[unit][error]") {
  const iobench::IoError e(ENOSPC, "pwrite", "/mnt/x/f");
  CHECK(std::string(e.what()) == "pwrite /mnt/x/f: No space left on device");
  CHECK(e.error_number() == ENOSPC);

  const iobench::IoError no_path(EIO, "fsync", "");
  CHECK(std::string(no_path.what()) == "fsync: Input/output error");
  CHECK(no_path.error_number() == EIO);

  // Caught as the library's base error like every other failure.
  try {
    throw iobench::IoError(EACCES, "open", "/root/secret");
  } catch (const iobench::Error& base) {
    CHECK(std::string(base.what()) == "open /root/secret: Permission denied");
  }
}
