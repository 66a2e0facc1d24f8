#include "plugins/bonnie/config.hpp"

#include <catch2/catch.hpp>
#include <iobench/error.hpp>
#include <string>

#include "tests/support/test_support.hpp"

using iobench::ConfigError;
using namespace iobench::plugins::bonnie;

namespace {

using ::iobench::test::kMiB;

HostFacts host(std::uint64_t ram_mib, std::size_t targets = 1) {
  return HostFacts{.physical_memory_bytes = ram_mib * kMiB,
                   .hostname = "testhost",
                   .target_count = targets,
                   .open_files_limit = 1024};
}

std::string error_of(const RawOptions& raw, const HostFacts& facts) {
  try {
    (void)make_config(raw, facts);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return {};
}

std::vector<PhaseId> ids(const BonnieConfig& config) {
  std::vector<PhaseId> out;
  for (const PlannedPhase& p : config.plan) out.push_back(p.id);
  return out;
}

}  // namespace

TEST_CASE("bonnie default size follows bonnie plus plus from the RAM", "[bonnie][config]") {
  CHECK(default_size_mib(0) == 300);
  CHECK(default_size_mib(100) == 300);
  CHECK(default_size_mib(300) == 1024);  // 600 MiB: 600 % 1024 > 512, up to 1 GiB
  CHECK(default_size_mib(200) == 400);   // 400 % 1024 <= 512: kept
  CHECK(default_size_mib(700) == 1400);  // 1400 % 1024 = 376: kept
  CHECK(default_size_mib(800) == 2048);  // 1600 % 1024 = 576: up to 2 GiB
  CHECK(default_size_mib(24105) == 48210);
}

TEST_CASE("bonnie config applies the defaults", "[bonnie][config]") {
  RawOptions raw;
  raw.size = "64";
  raw.ram_mib = 16;
  const BonnieConfig config = make_config(raw, host(24000));
  CHECK(config.io == IoSpec{.size_mib = 64});
  CHECK(config.files == FileSpec{});
  CHECK(config.ram_mib == 16);
  CHECK(config.per_char_mib == 3);
  CHECK(config.copies == 1);
  CHECK(config.repetitions == 1);
  CHECK(config.machine == "testhost");
  CHECK_FALSE(config.seed.has_value());
  CHECK(config.warnings.empty());
  CHECK(ids(config) == std::vector<PhaseId>(kAllPhases.begin(), kAllPhases.end()));
  for (const PlannedPhase& p : config.plan) CHECK(p.measured);
}

TEST_CASE("bonnie config enforces the twice RAM rule", "[bonnie][config]") {
  RawOptions raw;
  raw.size = "1000";
  const std::string message = error_of(raw, host(1024));
  CHECK(message.find("size") == 0);
  CHECK(message.find("twice the RAM (1024 MiB)") != std::string::npos);
  CHECK(message.find("size=2048") != std::string::npos);
  CHECK(message.find("force=true") != std::string::npos);

  raw.size = "2048";
  CHECK_NOTHROW(make_config(raw, host(1024)));

  raw.size = "1000";
  raw.ram_mib = 0;  // -r 0: no RAM checks
  CHECK_NOTHROW(make_config(raw, host(1024)));

  raw.ram_mib = 400;  // ram overrides the machine's
  CHECK_NOTHROW(make_config(raw, host(1024 * 1024)));

  raw.ram_mib.reset();
  raw.force = true;
  const BonnieConfig forced = make_config(raw, host(1024));
  REQUIRE(forced.warnings.size() == 1);
  CHECK(forced.warnings[0].find("force=true") != std::string::npos);

  // Copies multiply the size, as bonnie++'s concurrency does.
  raw.force = false;
  raw.processes = 3;
  raw.size = "700";
  CHECK_NOTHROW(make_config(raw, host(1024)));
  raw.processes = 2;
  CHECK(error_of(raw, host(1024)).find("2 copies") != std::string::npos);
}

TEST_CASE("bonnie config enforces the file count rules", "[bonnie][config]") {
  RawOptions raw;
  raw.size = "0";
  raw.files = "200";
  const std::string message = error_of(raw, host(8));
  CHECK(message.find("files") == 0);
  CHECK(message.find("200K files in 8 MiB") != std::string::npos);
  CHECK(message.find("files=110") != std::string::npos);
  raw.ram_mib = 0;
  CHECK_NOTHROW(make_config(raw, host(8)));
  raw.ram_mib.reset();
  raw.force = true;
  CHECK(make_config(raw, host(8)).warnings.size() == 1);
  raw.files = "110";
  raw.force = false;
  CHECK_NOTHROW(make_config(raw, host(8)));
  raw.files = "28340";
  raw.ram_mib = 0;
  CHECK(error_of(raw, host(8)).find("more than bonnie++ can name") != std::string::npos);
}

TEST_CASE("bonnie config rejects bad combinations before any I/O", "[bonnie][config]") {
  RawOptions raw;
  raw.ram_mib = 0;
  raw.size = "0";
  raw.files = "0";
  CHECK(error_of(raw, host(0)).find("size: 0 and files: 0") == 0);

  raw = RawOptions{};
  raw.ram_mib = 0;
  raw.size = "64:1k";
  raw.direct = true;
  CHECK(error_of(raw, host(0)).find("direct") == 0);
  raw.size = "64:8k";
  CHECK_NOTHROW(make_config(raw, host(0)));

  raw = RawOptions{};
  raw.ram_mib = 0;
  raw.machine = "a,b";
  CHECK(error_of(raw, host(0)).find("machine") == 0);
  raw.machine = "line\nbreak";
  CHECK(error_of(raw, host(0)).find("machine") == 0);
  raw.machine = "";
  CHECK(error_of(raw, host(0)).find("machine") == 0);
  raw.machine = std::string(256, 'x');
  CHECK(error_of(raw, host(0)).find("machine") == 0);

  raw = RawOptions{};
  raw.ram_mib = 0;
  raw.processes = 1;
  CHECK(error_of(raw, host(0, 2)).find("processes: 1 copies for 2 targets") == 0);
  raw.processes.reset();
  CHECK(make_config(raw, host(0, 2)).copies == 2);
  raw.processes = 0;
  CHECK(error_of(raw, host(0)).find("processes") == 0);

  raw = RawOptions{};
  raw.ram_mib = 0;
  raw.repetitions = 0;
  CHECK(error_of(raw, host(0)).find("repetitions") == 0);

  raw = RawOptions{};
  raw.ram_mib = 0;
  raw.fsync = true;
  raw.files = "1:0:0:2000";
  CHECK(error_of(raw, host(0)).find("files: fsync=true") == 0);
  raw.fsync = false;
  CHECK_NOTHROW(make_config(raw, host(0)));
}

TEST_CASE("bonnie per char size is capped by the file size", "[bonnie][config]") {
  RawOptions raw;
  raw.ram_mib = 0;
  raw.size = "2";
  raw.per_char_mib = 3;
  CHECK(make_config(raw, host(0)).per_char_mib == 2);
  raw.per_char_mib = 0;
  const BonnieConfig no_char = make_config(raw, host(0));
  CHECK(no_char.per_char_mib == 0);
  CHECK(ids(no_char).front() == PhaseId::kPutBlock);
}

TEST_CASE("bonnie names a bad value before any check between values and the RAM",
          "[bonnie][config]") {
  // size=4m is less than twice the 1024 MiB of RAM: that check alone would fail too.
  RawOptions raw;
  raw.size_mib = 4;
  raw.phases = "nope";
  CHECK(error_of(raw, host(1024)).starts_with("phases: unknown phase 'nope'"));
  raw.phases = "all";
  raw.machine = "a,b";
  CHECK(error_of(raw, host(1024)).starts_with("machine: 'a,b' contains a comma"));
  raw.machine.reset();
  CHECK(error_of(raw, host(1024)).starts_with("size: 4 MiB x "));
}
