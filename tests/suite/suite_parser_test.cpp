#include <algorithm>
#include <catch2/catch.hpp>
#include <iobench/error.hpp>
#include <iobench/suite.hpp>
#include <string>
#include <vector>

using iobench::parse_suite;

namespace {

// The ConfigError text of parsing `text`, or "" if it parses.
std::string error_of(const std::string& text) {
  try {
    (void)parse_suite(text, "t.json");
  } catch (const iobench::ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a suite file with comments parses into steps", "[suite]") {
  const auto suite = parse_suite(R"({
    // a comment
    "name": "mine", "description": "d", "targets": ["/a", "/b"],
    "params": {"size": "4m"}, "drop_caches": true, "pause": "2s",
    "steps": [
      /* block comment */
      {"workload": "disk", "params": {"bs": "4k", "iterations": 3, "prime": true},
       "repeat": 3, "time": "10s", "warmup": "1s", "ops": "1k", "seed": 7, "engine": "mmap"},
      {"name": "sweep", "workload": "disk", "targets": ["/c"],
       "sweep": {"param": "bs", "values": [4096, "8k"]}, "drop_caches": false}
    ]})",
                                 "x/mine.json");
  CHECK(suite.name == "mine");
  CHECK(suite.source == "x/mine.json");
  CHECK(suite.targets.size() == 2);
  CHECK(suite.params.at("size") == "4m");
  CHECK(suite.drop_caches);
  CHECK(suite.pause == std::chrono::seconds(2));
  REQUIRE(suite.steps.size() == 2);
  const auto& a = suite.steps[0];
  CHECK(a.name == "disk");
  CHECK(a.params.at("bs") == "4k");
  CHECK(a.params.at("iterations") == "3");
  CHECK(a.params.at("prime") == "true");
  CHECK(a.repeat == 3);
  CHECK(a.time_limit == std::chrono::seconds(10));
  CHECK(a.warmup == std::chrono::seconds(1));
  CHECK(a.ops_limit == 1024);  // sizes are binary: 1k = 1024
  CHECK(iobench::parse_suite(R"({"steps": [{"workload": "disk", "ops": 1000}]})", "n.json")
            .steps[0]
            .ops_limit == 1000);  // a JSON integer too
  CHECK(a.seed == 7);
  // A 64-bit seed as results write it: decimal text, exact where a JSON number is not.
  const iobench::Suite big = iobench::parse_suite(
      R"({"steps": [{"workload": "disk", "seed": "18446744073709551557"}]})", "s.json");
  CHECK(big.steps[0].seed == 18446744073709551557ULL);
  CHECK(big.text.find("18446744073709551557") != std::string::npos);
  CHECK(a.engine == "mmap");
  CHECK_FALSE(a.drop_caches.has_value());
  const auto& b = suite.steps[1];
  CHECK(b.name == "sweep");
  REQUIRE(b.sweep.has_value());
  CHECK(b.sweep->param == "bs");
  CHECK(b.sweep->values == std::vector<std::string>{"4096", "8k"});
  CHECK(b.drop_caches == false);
  CHECK(b.targets.at(0) == "/c");
}

TEST_CASE("default step names number repeated workloads and the suite name is the file name",
          "[suite]") {
  const auto suite = parse_suite(
      R"({"steps": [{"workload": "disk"}, {"workload": "disk"}, {"workload": "dbench"}]})",
      "dir/my-suite.json");
  CHECK(suite.name == "my-suite");
  CHECK(suite.steps[0].name == "disk 1");
  CHECK(suite.steps[1].name == "disk 2");
  CHECK(suite.steps[2].name == "dbench");
}

TEST_CASE("every kind of suite error names the file and JSON pointer", "[suite]") {
  struct Case {
    std::string text;
    std::string expected;
  };
  const std::vector<Case> cases{
      {R"({"steps": [{"workload": "disk"},]})", "t.json: line 1 column 33: not valid JSON"},
      {"{\n\"steps\": [\n{\"workload\" \"disk\"}]}", "t.json: line 3 column 18: not valid JSON"},
      // nlohmann_json throws out_of_range, not parse_error, for a number beyond a double: it
      // escaped as an internal error, exit 1 (fuzzing found it; corpus/suite/regression-*).
      {R"({"steps": [{"workload": "disk", "repeat": 1e400}]})",
       "t.json: not valid JSON: number overflow parsing '1e400'; numbers must be within +-1.7e308"},
      {R"([1, 2])", "t.json: /: a suite must be a JSON object"},
      {R"({})", "t.json: /: the suite has no 'steps'"},
      {R"({"steps": []})", "t.json: /steps: 'steps' must be a non-empty array, not an empty one"},
      {R"({"steps": {}})", "t.json: /steps: 'steps' must be a non-empty array, not an object"},
      {R"({"stepz": [], "steps": [{"workload": "disk"}]})",
       "t.json: /stepz: unknown key 'stepz'; did you mean 'steps'?"},
      {R"({"steps": [7]})", "t.json: /steps/0: a step must be an object, not an integer"},
      {R"({"steps": [{}]})", "t.json: /steps/0: step has no 'workload'"},
      {R"({"steps": [{"workload": 3}]})", "t.json: /steps/0/workload: 'workload' must be a string"},
      {R"({"steps": [{"workload": ""}]})", "t.json: /steps/0/workload: 'workload' is empty"},
      {R"({"steps": [{"workload": "disk", "param": {}}]})",
       "t.json: /steps/0/param: unknown key 'param'; did you mean 'params'?"},
      {R"({"steps": [{"workload": "disk", "params": [1]}]})",
       "t.json: /steps/0/params: 'params' must be an object"},
      {R"({"steps": [{"workload": "disk", "params": {"bs": [4]}}]})",
       "t.json: /steps/0/params/bs: parameter 'bs' must be a string, number or boolean"},
      {R"({"steps": [{"workload": "disk", "params": {"bs": null}}]})",
       "t.json: /steps/0/params/bs: parameter 'bs' must be a string, number or boolean, not null"},
      {R"({"steps": [{"workload": "disk", "targets": "/tmp"}]})",
       "t.json: /steps/0/targets: 'targets' must be an array"},
      {R"({"targets": [], "steps": [{"workload": "disk"}]})",
       "t.json: /targets: 'targets' is empty"},
      {R"({"steps": [{"workload": "disk", "targets": [""]}]})",
       "t.json: /steps/0/targets/0: a target must be a non-empty path string"},
      {R"({"steps": [{"workload": "disk", "repeat": 0}]})",
       "t.json: /steps/0/repeat: 'repeat' must be an integer from 1 to 1000, not 0"},
      {R"({"steps": [{"workload": "disk", "repeat": 2.5}]})", "t.json: /steps/0/repeat:"},
      {R"({"steps": [{"workload": "disk", "time": "ten"}]})", "t.json: /steps/0/time:"},
      {R"({"steps": [{"workload": "disk", "warmup": 5}]})",
       "t.json: /steps/0/warmup: 'warmup' must be a string, not an integer"},
      {R"({"steps": [{"workload": "disk", "warmup": 1.5}]})",
       "t.json: /steps/0/warmup: 'warmup' must be a string, not a fractional number"},
      {R"({"steps": [{"workload": "disk", "params": {"a/b~c": [1]}}]})",
       "t.json: /steps/0/params/a~1b~0c:"},
      {R"({"pause": "-1s", "steps": [{"workload": "disk"}]})", "t.json: /pause:"},
      {R"({"steps": [{"workload": "disk", "ops": "lots"}]})", "t.json: /steps/0/ops:"},
      {R"({"steps": [{"workload": "disk", "drop_caches": "yes"}]})",
       "t.json: /steps/0/drop_caches: 'drop_caches' must be true or false, not a string"},
      {R"({"steps": [{"workload": "disk", "seed": -1}]})",
       "t.json: /steps/0/seed: 'seed' must be an integer of 1 or more, as a number or its "
       "decimal text (leave it out for a random seed, which is reported), not -1"},
      {R"({"steps": [{"workload": "disk", "seed": "12x"}]})",
       "t.json: /steps/0/seed: 'seed' must be an integer of 1 or more, as a number or its "
       "decimal text (leave it out for a random seed, which is reported), not \"12x\""},
      {R"({"steps": [{"workload": "disk", "seed": 0}]})", "t.json: /steps/0/seed: 'seed' must be"},
      {R"({"steps": [{"workload": "disk", "ops": 0}]})",
       "t.json: /steps/0/ops: 'ops' must be at least 1"},
      {R"({"steps": [{"workload": "disk", "sweep": [1, 2]}]})",
       "t.json: /steps/0/sweep: 'sweep' must be an object"},
      {R"({"steps": [{"workload": "disk", "sweep": {"values": [1]}}]})",
       "t.json: /steps/0/sweep: 'sweep' needs 'param'"},
      {R"({"steps": [{"workload": "disk", "sweep": {"param": "bs"}}]})",
       "t.json: /steps/0/sweep: 'sweep' needs 'values'"},
      {R"({"steps": [{"workload": "disk", "sweep": {"param": "bs", "values": []}}]})",
       "t.json: /steps/0/sweep/values: 'values' must be a non-empty array, not an empty one"},
      {R"({"steps": [{"workload": "disk", "sweep": {"param": "bs", "values": [1, -2]}}]})",
       "t.json: /steps/0/sweep/values/1: a sweep value must be a non-negative integer"},
      {R"({"steps": [{"workload": "disk", "sweep": {"param": "bs", "values": [1, "x"]}}]})",
       "t.json: /steps/0/sweep/values/1: sweep value 'x' is neither an integer, a size (e.g. 64k) "
       "nor a size expression (e.g. ram/4)"},
      {R"({"steps": [{"workload": "disk", "sweep": {"param": "size", "values": ["ram/8", "RAM/8"]}}]})",
       "t.json: /steps/0/sweep/values/1: sweep value 'RAM/8' is repeated"},
      {R"({"steps": [{"workload": "disk", "sweep": {"param": "bs", "values": [1024, "1k"]}}]})",
       "t.json: /steps/0/sweep/values/1: sweep value '1k' is repeated"},
      {R"({"steps": [{"workload": "disk", "sweep": {"param": "bs", "valuez": [1]}}]})",
       "t.json: /steps/0/sweep/valuez: unknown key 'valuez'; did you mean 'values'?"},
      {R"({"steps": [{"workload": "disk", "params": {"bs": "4k"},
                      "sweep": {"param": "bs", "values": [1]}}]})",
       "t.json: /steps/0/params/bs: 'bs' is swept and also set in params"},
      {R"({"steps": [{"name": "a", "workload": "disk"}, {"name": "a", "workload": "disk"}]})",
       "t.json: /steps/1/name: step name 'a' is used twice"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const std::string error = error_of(c.text);
    CHECK_THAT(error, Catch::Contains(c.expected));
  }
}

TEST_CASE("all errors of a suite file are reported at once", "[suite]") {
  const std::string error = error_of(R"({
    "nme": "x",
    "steps": [
      {"workload": "disk", "repeat": 0},
      {"params": {"bs": "4k"}},
      {"workload": "disk", "time": "soon", "sweep": {"param": "bs", "values": []}}
    ]})");
  CHECK_THAT(error, Catch::Contains("t.json: /nme: unknown key 'nme'; did you mean 'name'?"));
  CHECK_THAT(error, Catch::Contains("t.json: /steps/0/repeat:"));
  CHECK_THAT(error, Catch::Contains("t.json: /steps/1: step has no 'workload'"));
  CHECK_THAT(error, Catch::Contains("t.json: /steps/2/time:"));
  CHECK_THAT(error, Catch::Contains("t.json: /steps/2/sweep/values:"));
  CHECK(std::count(error.begin(), error.end(), '\n') == 4);  // five lines
}

TEST_CASE("built-in suites parse and are listed", "[suite]") {
  std::vector<std::string> names;
  for (const auto& builtin : iobench::builtin_suites()) {
    names.emplace_back(builtin.name);
    const auto suite = iobench::builtin_suite(builtin.name);
    REQUIRE(suite.has_value());
    CHECK(suite->name == builtin.name);
    CHECK_FALSE(suite->steps.empty());
  }
  CHECK(names == std::vector<std::string>{"quick", "bonnie", "tiobench", "dbench", "seed-reports",
                                          "io500", "io500-quick", "pts-iops", "pts-throughput",
                                          "pts-latency", "pts-wsat", "pts-dirth"});
  CHECK_FALSE(iobench::builtin_suite("nope").has_value());
  const auto dbench = iobench::builtin_suite("dbench");
  REQUIRE(dbench->steps[0].sweep.has_value());
  CHECK(dbench->steps[0].sweep->param == "procs");
  CHECK(iobench::builtin_suite("seed-reports")->steps.size() == 5);
}

TEST_CASE("a key given twice in one object is refused with its JSON pointer", "[suite]") {
  // nlohmann_json kept the last value: suite "t" ran as if "s" had never been written.
  CHECK(error_of(R"({"name":"s","name":"t","steps":[{"workload":"disk"}]})") ==
        "t.json: /name: key 'name' is given twice in one object (only one of the values would "
        "count); give each key once");
  CHECK(error_of(R"({"steps":[{"workload":"disk"},
                             {"workload":"disk","params":{"bs":"4k","size":"1m","bs":"8k"}}]})")
            .starts_with("t.json: /steps/1/params/bs: key 'bs' is given twice"));
  CHECK(
      error_of(
          R"({"steps":[{"workload":"disk","sweep":{"param":"bs","values":[[1],{"a/b":1,"a/b":2}]}}]})")
          .starts_with("t.json: /steps/0/sweep/values/1/a~1b: key 'a/b' is given twice"));
  // The same key in different objects is fine.
  CHECK(error_of(R"({"name":"s","steps":[{"name":"a","workload":"disk"},
                                        {"name":"b","workload":"disk"}]})")
            .empty());
}
