// io500's one prepare message under mpirun: rank 0's timestamp file's time (find's -newer, the
// pattern seeds) and its run directory's name, decoded strictly (the names by the decoder mdtest
// and disk's shared_file use), so a message cut short or garbled between the processes is
// refused with what is wrong, never read as another time or directory.
#include <catch2/catch.hpp>
#include <string>

#include "plugins/io500/io500_workload.hpp"

using iobench::plugins::io500::decode_io500_setup;
using iobench::plugins::io500::encode_io500_setup;
using iobench::plugins::io500::Io500Setup;

TEST_CASE("io500's prepare message carries rank 0's time and run directory", "[io500][mpi-names]") {
  const std::string text = encode_io500_setup(
      Io500Setup{.newer = {.tv_sec = 1765000000, .tv_nsec = 999999999}, .names = "iobench.1.a\n"});
  CHECK(text == "1765000000 999999999\niobench.1.a\n");
  const Io500Setup back = decode_io500_setup(text);
  CHECK(back.newer.tv_sec == 1765000000);
  CHECK(back.newer.tv_nsec == 999999999);
  CHECK(back.names == "iobench.1.a\n");
  CHECK(decode_io500_setup("0 0\nd\n").newer.tv_sec == 0);
}

TEST_CASE("io500's prepare message decoder refuses each malformed form with one error",
          "[io500][mpi-names]") {
  const std::string expected =
      "io500: rank 0's setup message is not 'SEC NSEC\\nNAME\\n' (its timestamp file's time in "
      "decimal seconds and nanoseconds, then its run directory's name, every line ending in a "
      "newline): ";
  const auto refused = [&](const std::string& text, const std::string& what) {
    INFO(text);
    CHECK_THROWS_WITH(decode_io500_setup(text), expected + what);
  };
  // Cut short.
  refused("", "'' has no newline after the time (cut short)");
  refused("17 5", "'17 5' has no newline after the time (cut short)");
  refused("17 5\n", "no run directory name after the time (cut short)");
  refused("17 5\niobench.1", "the last run directory name 'iobench.1' has no newline (cut short)");
  // Times that are not one (the old reader took "17 5x", "-1 5" and "17 5 9").
  for (const char* stamp : {"17", "17 5x", "-1 5", "+1 5", "17  5", " 17 5", "17 5 9",
                            "17 1000000000", "99999999999999999999 0", "x y"}) {
    refused(std::string(stamp) + "\nd\n", "'" + std::string(stamp) + "' is not a time 'SEC NSEC'");
  }
  // Names: the shared decoder's rules, and one name only.
  refused("17 5\n\n", "run directory name 1 is empty");
  refused("17 5\n..\n", "run directory name 1 '..' is not one directory's name");
  refused("17 5\na/b\n", "run directory name 1 'a/b' is not one directory's name");
  refused(std::string("17 5\na\0b\n", 9),
          "run directory name 1 'a\\x00b' is not one directory's name");
  refused("17 5\na\nb\n",
          "more than one run directory name (io500 works in its first target only)");
}
