// `iobench run --again RESULT.json`: the same steps with the same seeds; refused (exit 2,
// nothing written) where the file cannot be repeated.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/test_support.hpp"

using iobench::test::read_file;
using iobench::test::run_cli;
using iobench::test::TempDir;
using Json = nlohmann::json;

namespace {

std::vector<std::string> worker_seeds(const Json& doc) {
  std::vector<std::string> seeds;
  for (const Json& step : doc.at("steps")) {
    seeds.push_back(step.at("seed").get<std::string>());
    for (const Json& phase : step.at("phases")) {
      for (const Json& worker : phase.at("workers")) seeds.push_back(worker.at("seed"));
    }
  }
  return seeds;
}

}  // namespace

TEST_CASE("run --again repeats the steps with their seeds and options", "[suite][again]") {
  TempDir dir("again");
  TempDir elsewhere("again-elsewhere");
  TempDir out("again-out");
  const auto first = out.path() / "first.json";
  // Random order with a random (reported) seed, two targets, an op limit.
  const auto a = run_cli({"run", "disk", "-d", dir.path().string(), "-d", dir.path().string(),
                          "operation=read", "size=64k", "bs=4k", "seek=random", "--ops", "8", "-q",
                          "--format", "json", "-o", first.string()});
  INFO(a.err);
  REQUIRE(a.exit_code == 0);
  const Json one = Json::parse(read_file(first));
  CHECK(one.at("invocation").at("argv").at(1) == "run");
  CHECK(one.at("invocation").at("params").at("seek") == "random");
  CHECK(one.at("invocation").at("ops_limit") == 8);
  CHECK(one.at("steps").at(0).at("ops_limit") == 8);
  CHECK(one.at("steps").at(0).at("engine") == "psync");

  const auto second = out.path() / "second.json";
  const auto b =
      run_cli({"run", "--again", first.string(), "-q", "--format", "json", "-o", second.string()});
  INFO(b.err);
  REQUIRE(b.exit_code == 0);
  const Json two = Json::parse(read_file(second));
  CHECK(worker_seeds(two) == worker_seeds(one));
  CHECK(two.at("steps").at(0).at("params") == one.at("steps").at(0).at("params"));
  CHECK(two.at("steps").at(0).at("targets") == one.at("steps").at(0).at("targets"));
  CHECK(two.at("steps").at(0).at("ops_limit") == 8);
  CHECK(two.at("steps").at(0).at("phases").at(0).at("ops") == 16);  // 8 per worker, as asked
  CHECK(two.at("invocation").at("repeated_from") == first.string());

  // -d replaces the targets; the seeds stay.
  const auto moved = run_cli({"run", "--again", first.string(), "-d", elsewhere.path().string(),
                              "-q", "--format", "json"});
  INFO(moved.err);
  REQUIRE(moved.exit_code == 0);
  const Json three = Json::parse(moved.out);
  CHECK(three.at("steps").at(0).at("targets") == Json::array({elsewhere.path().string()}));
  CHECK(three.at("steps").at(0).at("seed") == one.at("steps").at(0).at("seed"));
  CHECK(dir.entries().empty());
  CHECK(elsewhere.entries().empty());
}

TEST_CASE("run --again refuses what cannot be repeated with exit 2 and writes nothing",
          "[suite][again]") {
  TempDir dir("again-refused");
  TempDir out("again-refused-out");
  const auto doc_path = out.path() / "r.json";
  const auto a = run_cli({"run", "disk", "-d", dir.path().string(), "size=64k", "bs=4k", "-q",
                          "--format", "json", "-o", doc_path.string()});
  REQUIRE(a.exit_code == 0);
  const Json doc = Json::parse(read_file(doc_path));
  const auto write = [&](const std::string& name, const Json& j) {
    const auto path = out.path() / name;
    std::ofstream(path) << j.dump();
    return path.string();
  };
  const auto refused = [&](std::vector<std::string> args, const std::string& message) {
    const auto target = out.path() / "never.json";
    args.insert(args.end(), {"-q", "--format", "json", "-o", target.string()});
    const auto result = run_cli(args);
    INFO(result.err);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains(message));
    CHECK_FALSE(std::filesystem::exists(target));
  };
  // A schema-1 document (the golden file) has no invocation to repeat.
  refused({"run", "--again",
           std::string(IOBENCH_SOURCE_DIR) + "/tests/report/golden/sample_run.v1.json"},
          "did not record how it was run");
  Json newer = doc;
  newer["iobench_version"] = "99.0.0";
  refused({"run", "--again", write("newer.json", newer)}, "newer than this iobench");
  Json unknown = doc;
  unknown["schema"] = "iobench-result/7";
  refused({"run", "--again", write("unknown.json", unknown)},
          "/schema: \"iobench-result/7\" is not a result schema");
  refused({"run", "--again", doc_path.string(), "bs=8k"},
          "--again repeats " + doc_path.string() + " with its own steps");
  refused({"run", "--again", doc_path.string(), "--seed", "3"}, "drop --seed");
  refused({"run", "--again", (out.path() / "missing.json").string()}, "cannot read result file");
  Json gone = doc;
  gone["steps"][0]["targets"] = Json::array({(out.path() / "no-such-dir").string()});
  refused({"run", "--again", write("gone.json", gone)}, "give -d DIR for other targets");
  CHECK(dir.entries().empty());
}
