// Runs alone (SERIAL in CMakeLists.txt): kernel.io_uring_disabled refuses io_uring to every
// process of the machine while it is set.
#include <catch2/catch.hpp>
#include <fstream>

#include "tests/support/test_support.hpp"

using namespace iobench;

TEST_CASE("an io_uring the kernel refuses is reported, not crashed", "[disk][engine]") {
  // kernel.io_uring_disabled (Linux 6.6+) set to 2 refuses every new ring, as a locked-down
  // container does; restored whatever happens.
  const std::filesystem::path knob = "/proc/sys/kernel/io_uring_disabled";
  std::string before;
  {
    std::ifstream in(knob);
    if (!(in >> before)) {
      WARN("skipping: " << knob << " is not readable here");
      return;
    }
  }
  struct Restore {
    std::filesystem::path knob;
    std::string value;
    ~Restore() { std::ofstream(knob) << value; }
  } restore{knob, before};
  {
    std::ofstream out(knob);
    out << "2";
    out.flush();
    if (!out) {
      WARN("skipping: cannot write " << knob << " (not root?)");
      return;
    }
  }
  test::TempDir dir("uring-off");
  const test::CliResult result =
      test::run_cli({"run", "disk", "-d", dir.path().string(), "engine=io_uring"});
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains("engine io_uring is not available here") &&
                             Catch::Contains("io_uring_queue_init"));
  CHECK(dir.entries().empty());
}
