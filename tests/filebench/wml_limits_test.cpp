// The bounds on what a .f file asks: attributes without a value, delays, cvar means, fileset
// plans, run lengths, names used as paths and thread counts, each refused (with its position
// where it has one) instead of overflowing later.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>

#include "plugins/filebench/filebench_workload.hpp"
#include "plugins/filebench/fileset.hpp"
#include "plugins/filebench/wml_parser.hpp"
#include "tests/filebench/wml_test_helpers.hpp"
#include "tests/support/test_support.hpp"

namespace fb = iobench::plugins::filebench;

TEST_CASE("a count attribute without a value is refused at its own position") {
  CHECK(filebench_test::wml_error_of(
            "define process name=p,instances { thread name=t { flowop delay name=d,"
            "value=0.01 } }\n") == "t.f:1:23: attribute 'instances' needs a value: instances=...");
  CHECK(filebench_test::wml_error_of(
            "define process name=p {\n thread name=t,instances {\n  flowop delay "
            "name=d,value=1 } }\n") ==
        "t.f:2:16: attribute 'instances' needs a value: instances=...");
  CHECK(filebench_test::wml_error_of(
            "define process name=p {\n thread name=t {\n  flowop delay name=d,iters,"
            "value=1 } }\n") == "t.f:3:23: attribute 'iters' needs a value: iters=...");
}

TEST_CASE("a delay above one day is refused and one day is accepted") {
  CHECK(filebench_test::wml_error_of(
            "define process name=p {thread name=t {flowop delay name=d,value=1e30}}\n") ==
        "t.f:1:65: delay value=1e30 is above one day; give at most 86400 seconds");
  CHECK(filebench_test::wml_error_of(
            "define process name=p {thread name=t {flowop delay name=d,value=86400.5}}\n") ==
        "t.f:1:65: delay value=86400.5 is above one day; give at most 86400 seconds");
  const fb::WmlModel m = fb::parse_wml(
      "define process name=p {thread name=t {flowop delay name=d,value=86400}}\n", "t.f");
  CHECK(m.processes.at(0).threads.at(0).flowops.at(0).value == 86400.0);
}

TEST_CASE("a cvar mean above 2^44 bytes is refused like a fixed size") {
  CHECK(filebench_test::wml_error_of("set $s=cvar(type=cvar-gamma,parameters=mean:1e300)\n") ==
        "t.f:1:40: cvar mean:1e300 is too large; give a mean of at most 2^44 bytes");
  const fb::WmlModel m = fb::parse_wml(
      "define fileset name=s,entries=1,dirwidth=2,"
      "size=cvar(type=cvar-gamma,parameters=mean:17592186044416)\n",
      "t.f");
  CHECK(m.filesets.at(0).size.mean_bytes == 17592186044416.0);
}

TEST_CASE("gamma size draws far above 2^44 bytes are capped at 2^44 bytes") {
  fb::FilesetDef def;
  def.name = "huge";
  def.size.kind = fb::SizeSpec::Kind::kGamma;
  def.size.mean_bytes = 1e300;  // what the parser now refuses: the draws must still stay defined
  def.size.gamma = 1.5;
  def.entries = 8;
  def.dir_width = 4;
  const fb::FilesetLayout layout = fb::draw_layout(def, 7);
  REQUIRE(layout.files.size() == 8);
  for (const auto& f : layout.files) CHECK(f.size == 1ULL << 44);
}

TEST_CASE("a fileset plan of 2^64 bytes or more saturates and the file is refused") {
  const std::string big =
      "define fileset name=s,entries=100000000,dirwidth=2,size=1t\n"
      "define process name=p {thread name=t {flowop delay name=d,value=1}}\n";
  const fb::FilebenchWorkload w(fb::parse_wml(big, "t.f"), std::chrono::seconds(1));
  CHECK(w.planned_bytes(0) == UINT64_MAX);
  CHECK_FALSE(fb::fileset_plan_bytes(w.model()).has_value());
  const fb::WmlModel fits = fb::parse_wml(
      "define fileset name=s,entries=1000000,dirwidth=2,size=1t\n"
      "define fileset name=u,entries=3,dirwidth=2,size=1k\n",
      "t.f");
  CHECK(fb::fileset_plan_bytes(fits) ==
        std::optional<std::uint64_t>(1000000ULL * (1ULL << 40) + 3072));

  const iobench::test::TempDir target("fbplan");
  const iobench::test::TempDir files("fbplanf");
  const std::filesystem::path f = files.path() / "big.f";
  filebench_test::write_file(f, big);
  const auto result = iobench::test::run_cli(
      {"run", "filebench", "-d", target.path().string(), "file=" + f.string()});
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("plans filesets of 2^64 bytes or more (entries x size)") !=
        std::string::npos);
  CHECK(target.entries().empty());
}

TEST_CASE("run above 30 days is refused and 30 days is accepted") {
  CHECK(filebench_test::wml_error_of("run 99999999999\n") ==
        "t.f:1:5: run 99999999999 is out of range; give 1 to 2592000 seconds (30 days)");
  CHECK(filebench_test::wml_error_of("set $t=2592001\nrun $t\n") ==
        "t.f:2:5: run 2592001 is out of range; give 1 to 2592000 seconds (30 days)");
  CHECK(filebench_test::wml_error_of("run 0\n") ==
        "t.f:1:5: run 0 is out of range; give 1 to 2592000 seconds (30 days)");
  CHECK(fb::parse_wml("run 2592000\n", "t.f").run_seconds == std::optional<std::uint64_t>(2592000));
}

TEST_CASE("fileset and file names are one path component and flowop names hold no comma") {
  CHECK(filebench_test::wml_error_of("define fileset name=../esc,entries=1,dirwidth=2\n") ==
        "t.f:1:21: define fileset name '../esc' holds a '/'; give one path component");
  CHECK(filebench_test::wml_error_of("define file name=/tmp/x\n") ==
        "t.f:1:18: define file name '/tmp/x' holds a '/'; give one path component");
  CHECK(filebench_test::wml_error_of("define file name=a/b\n") ==
        "t.f:1:18: define file name 'a/b' holds a '/'; give one path component");
  CHECK(filebench_test::wml_error_of("define file name=.\n") ==
        "t.f:1:18: define file name '.' is '.' or '..'; give a plain file name");
  CHECK(filebench_test::wml_error_of("define fileset name=\"..\",entries=1,dirwidth=2\n") ==
        "t.f:1:21: define fileset name '..' is '.' or '..'; give a plain file name");
  CHECK(filebench_test::wml_error_of(
            "define process name=p {thread name=t {flowop delay name=\"a,b\",value=1}}\n") ==
        "t.f:1:57: flowop name 'a,b' holds a ','");
  CHECK(filebench_test::wml_error_of(std::string("define file name=\"a\0b\"\n", 23)) ==
        "t.f:1:20: control byte 0x00 in a string; write printable text");
  CHECK(filebench_test::wml_error_of("echo \"a\tb\"\n") ==
        "t.f:1:8: control byte 0x09 in a string; write printable text");
  CHECK(fb::parse_wml("define file name=\"a b\"\n", "t.f").filesets.at(0).name == "a b");
}

TEST_CASE("more than 4096 threads or thread buffers above half of the RAM are refused") {
  const iobench::test::TempDir target("fbthr");
  const iobench::test::TempDir files("fbthrf");
  const auto refused = [&](const std::string& text) {
    const std::filesystem::path f = files.path() / "t.f";
    filebench_test::write_file(f, text);
    const auto result = iobench::test::run_cli(
        {"run", "filebench", "-d", target.path().string(), "file=" + f.string()});
    CHECK(result.exit_code == 2);
    CHECK(target.entries().empty());
    return result.err;
  };
  CHECK(refused("define process name=p,instances=2 {thread name=t,instances=2049 {flowop delay "
                "name=d,value=1}}\nrun 1\n")
            .find("asks for 4098 threads (processes x instances x thread instances); give at "
                  "most 4096") != std::string::npos);
  // 4096 threads x 1 GiB = 4 TiB of buffers: above half of any test machine's RAM.
  CHECK(refused("define process name=p,instances=4 {thread name=t,instances=1024,memsize=1g "
                "{flowop delay name=d,value=1}}\nrun 1\n")
            .find("asks for 4194304 MiB of thread buffers (memsize x thread instances), above "
                  "half of the RAM") != std::string::npos);
}
