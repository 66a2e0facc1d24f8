// The JSON result reader: the exact inverse of the writer, old documents read, bad ones refused
// with the JSON pointer of the bad field.
#include <catch2/catch.hpp>
#include <iobench/result_json.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/report/golden.hpp"
#include "tests/report/sample_run.hpp"

namespace iobench {
namespace {

using Json = nlohmann::ordered_json;

std::string error_of(const std::string& text) {
  try {
    (void)parse_result_json(text);
  } catch (const ResultFormatError& e) {
    return e.what();
  }
  return "no error";
}

std::string pointer_of(const std::string& text) {
  try {
    (void)parse_result_json(text);
  } catch (const ResultFormatError& e) {
    return e.pointer();
  }
  return "no error";
}

// The sample document with one change made by `edit`.
std::string edited(void (*edit)(Json&)) {
  Json doc = Json::parse(to_json(test::make_sample_run()));
  edit(doc);
  return doc.dump(2);
}

// Every key and value of `old` (a schema-1 document) is in `now`, equal; seeds written as
// numbers then are decimal text now.
void check_contains(const Json& now, const Json& old, const std::string& where) {
  INFO("at " << where);
  if (old.is_object()) {
    REQUIRE(now.is_object());
    for (const auto& item : old.items()) {
      if (where.empty() && item.key() == "schema") continue;
      REQUIRE(now.contains(item.key()));
      check_contains(now.at(item.key()), item.value(), where + "/" + item.key());
    }
  } else if (old.is_array()) {
    REQUIRE(now.is_array());
    REQUIRE(now.size() == old.size());
    for (std::size_t i = 0; i < old.size(); ++i) {
      check_contains(now[i], old[i], where + "/" + std::to_string(i));
    }
  } else if (where.size() >= 5 && where.substr(where.size() - 5) == "/seed") {
    CHECK(now.get<std::string>() == std::to_string(old.get<std::uint64_t>()));
  } else {
    CHECK(now == old);
  }
}

TEST_CASE("write read write is byte identical for the sample run", "[report][json]") {
  const std::string first = to_json(test::make_sample_run());
  const ResultDocument document = parse_result_json(first);
  CHECK(to_json(document) == first);
  CHECK(to_json(document, -1) == to_json(test::make_sample_run(), -1));
  // The data itself, not just its text: seeds beyond 2^53, histograms, options.
  const RunResult& run = document.run;
  REQUIRE(run.steps.size() == 3);
  CHECK(document.schema == kResultSchema);
  CHECK(run.status == Status::kInterrupted);
  CHECK(run.environment.iobench_version == "0.1.0");
  CHECK(run.environment.targets[1].path == "/mnt/b,\"x\"");
  const StepResult& seqwrite = run.steps[0];
  CHECK(seqwrite.seed == 42);
  CHECK(seqwrite.engine == "psync");
  CHECK(seqwrite.given_params == std::vector<std::string>{"blocks", "bs", "operation"});
  CHECK(std::get<double>(*seqwrite.attribute("ram_ratio")) == 0.5);
  CHECK(std::get<std::int64_t>(*seqwrite.attribute("file_bytes")) == 67'108'864);
  const PhaseResult& write = seqwrite.phases[0];
  CHECK(write.workers[1].seed == 18'446'744'073'709'551'557ULL);
  CHECK(write.counter_names == std::vector<std::string>{"fsyncs"});
  CHECK(write.counters == std::vector<std::uint64_t>{2});
  // The merged histogram comes back bucket for bucket: any percentile, not only the saved ones.
  const RunResult sample = test::make_sample_run();
  const CompactLatencyHistogram& original = sample.steps[0].phases[0].ops[0].latency;
  const CompactLatencyHistogram& restored = write.ops[0].latency;
  for (const double p : {1.0, 25.0, 95.0, 97.0, 99.5})
    CHECK(restored.percentile(p) == original.percentile(p));
  for (std::size_t i = 0; i < LatencyHistogram::kBucketCount; ++i) {
    if (restored.bucket_count(i) != original.bucket_count(i)) FAIL("bucket " << i << " differs");
  }
  const StepResult& meta = run.steps[1];
  CHECK(meta.engine == "mmap");
  CHECK(meta.time_limit_ns == 15'000'000'000ULL);
  CHECK(meta.warmup_ns == 2'000'000'000ULL);
  CHECK(meta.ops_limit == 1000);
  CHECK(meta.drop_caches);
  CHECK(meta.phases[0].mode == WorkerMode::kProcesses);
  CHECK(meta.phases[0].ops[0].errors == 2);
  CHECK(run.steps[2].status == Status::kFailed);
}

TEST_CASE("schema 1 documents read back with every figure they hold", "[report][json]") {
  const std::string v1 = test::golden_text("sample_run.v1.json");
  const Json old = Json::parse(v1);
  REQUIRE(old.at("schema") == "iobench-result/1");
  const ResultDocument document = parse_result_json(v1);
  CHECK(document.schema == "iobench-result/1");
  CHECK_FALSE(document.invocation.has_value());
  CHECK(document.run.steps[0].seed == 42);  // a JSON number then
  CHECK(document.run.steps[0].phases[0].workers[1].seed == 1002);
  CHECK(document.run.steps[0].engine.empty());  // not recorded in schema 1
  // Written again (in the current shape), every figure of the old document is there, equal:
  // the rebuilt histograms have its count, min, max, mean, stddev and percentiles exactly.
  const std::string now = to_json(document);
  check_contains(Json::parse(now), old, "");
  // And the current shape reads back to itself.
  CHECK(to_json(parse_result_json(now)) == now);
}

TEST_CASE("a document without buckets gets histograms with its exact figures", "[report][json]") {
  // Strip what schema 2 adds to every latency object: the reader rebuilds sums from mean and
  // stddev and places samples at the saved percentiles.
  const std::string text = edited([](Json& doc) {
    for (Json& step : doc["steps"]) {
      for (Json& phase : step["phases"]) {
        for (auto& op : phase["ops_by_kind"].items()) {
          op.value()["latency_ns"].erase("sum");
          op.value()["latency_ns"].erase("sum_squares");
          op.value()["latency_ns"].erase("buckets");
        }
      }
    }
  });
  const ResultDocument document = parse_result_json(text);
  const RunResult original = test::make_sample_run();
  for (std::size_t s = 0; s < 2; ++s) {
    for (std::size_t o = 0; o < original.steps[s].phases[0].ops.size(); ++o) {
      const CompactLatencyHistogram& a = original.steps[s].phases[0].ops[o].latency;
      const CompactLatencyHistogram& b = document.run.steps[s].phases[0].ops[o].latency;
      INFO("step " << s << " op " << o);
      CHECK(b.count() == a.count());
      CHECK(b.min() == a.min());
      CHECK(b.max() == a.max());
      CHECK(b.sum() == a.sum());
      CHECK(b.mean() == a.mean());
      CHECK(b.stddev() == a.stddev());
      for (const double p : {50.0, 90.0, 99.0, 99.9, 99.99})
        CHECK(b.percentile(p) == a.percentile(p));
    }
  }
}

TEST_CASE("a document whose keys a tool sorted still reads", "[report][json]") {
  // jq -S or Python's sort_keys put "1548288" before "99840" in the buckets.
  const std::string sorted = nlohmann::json::parse(to_json(test::make_sample_run())).dump();
  const ResultDocument document = parse_result_json(sorted);
  const RunResult sample = test::make_sample_run();
  CHECK(document.run.steps[0].phases[0].ops[0].latency.percentile(95) ==
        sample.steps[0].phases[0].ops[0].latency.percentile(95));
  CHECK(document.run.steps[1].phases[0].ops.size() == 3);
}

TEST_CASE("the reader accepts seeds as numbers and as text", "[report][json]") {
  const std::string text = edited([](Json& doc) { doc["steps"][0]["seed"] = 42; });
  CHECK(parse_result_json(text).run.steps[0].seed == 42);
  CHECK_THAT(error_of(edited([](Json& doc) { doc["steps"][0]["seed"] = "18446744073709551616"; })),
             Catch::StartsWith("/steps/0/seed: must be a seed"));
  CHECK_THAT(error_of(edited([](Json& doc) { doc["steps"][0]["seed"] = "-1"; })),
             Catch::StartsWith("/steps/0/seed: must be a seed"));
  CHECK_THAT(error_of(edited([](Json& doc) { doc["steps"][0]["seed"] = 1.5; })),
             Catch::StartsWith("/steps/0/seed: must be a seed"));
}

TEST_CASE("bad result documents are refused with the pointer of the bad field", "[report][json]") {
  CHECK_THAT(error_of("{\"schema\": "), Catch::StartsWith("/: byte 12: not valid JSON"));
  CHECK_THAT(error_of("[]"), Catch::StartsWith("/: must be a JSON object"));
  CHECK_THAT(error_of(std::string(100, '[') + std::string(100, ']')),
             Catch::Contains("nested deeper than 64 levels"));
  CHECK(error_of(edited([](Json& doc) { doc["schema"] = "iobench-result/9"; })) ==
        "/schema: \"iobench-result/9\" is not a result schema this iobench reads "
        "(iobench-result/1, iobench-result/2, iobench-result/3)");
  CHECK(error_of(edited([](Json& doc) { doc.erase("environment"); })) ==
        "/: the key \"environment\" is missing");
  CHECK(error_of(edited([](Json& doc) { doc["steps"][0]["phases"][0]["wall_ns"] = -1; })) ==
        "/steps/0/phases/0/wall_ns: must be a whole number of 0 or more, not a negative integer");
  CHECK(error_of(edited([](Json& doc) { doc["steps"][0]["phases"][0]["wall_ns"] = 1.5; })) ==
        "/steps/0/phases/0/wall_ns: must be a whole number of 0 or more, not a fractional number");
  // A key with '/' and '~' is escaped in the pointer (RFC 6901: "~1", "~0").
  CHECK(error_of(edited([](Json& doc) { doc["steps"][0]["params"]["a/b~c"] = 1; })) ==
        "/steps/0/params/a~1b~0c: must be a string, not an integer");
  CHECK(pointer_of(edited([](Json& doc) { doc["steps"][0]["phases"][0]["wall_ns"] = 1.5; })) ==
        "/steps/0/phases/0/wall_ns");
  CHECK(error_of(edited([](Json& doc) { doc["steps"][1]["status"] = "great"; })) ==
        "/steps/1/status: \"great\" is not a status; use ok, failed, interrupted, skipped or "
        "no_measurement");
  // A phase or worker that ended inside its warm-up reads back as such (an MPI rank's result).
  CHECK(parse_result_json(edited([](Json& doc) {
          doc["steps"][0]["phases"][0]["workers"][0]["status"] = "no_measurement";
        }))
            .run.steps.at(0)
            .phases.at(0)
            .workers.at(0)
            .status == Status::kNoMeasurement);
  CHECK_THAT(error_of(edited([](Json& doc) { doc["steps"][0]["phases"][0]["bytes"] = 5; })),
             Catch::StartsWith("/steps/0/phases/0/bytes: 5 does not match the op kinds"));
  CHECK_THAT(
      error_of(edited([](Json& doc) {
        doc["steps"][0]["phases"][0]["workers"][0]["ops_by_kind"]["write"]["latency_ns"]["p90"] = 5;
      })),
      Catch::StartsWith(
          "/steps/0/phases/0/workers/0/ops_by_kind/write/latency_ns/p90: 5 is below the p50"));
  CHECK_THAT(error_of(edited([](Json& doc) {
               doc["steps"][0]["phases"][0]["ops_by_kind"]["write"]["latency_ns"]["mean"] = 7.0;
             })),
             Catch::StartsWith("/steps/0/phases/0/ops_by_kind/write/latency_ns/mean: 7 "
                               "contradicts the other latency figures"));
  CHECK_THAT(
      error_of(edited([](Json& doc) {
        doc["steps"][0]["phases"][0]["ops_by_kind"]["write"]["latency_ns"]["buckets"]["99841"] = 1;
      })),
      Catch::StartsWith("/steps/0/phases/0/ops_by_kind/write/latency_ns/buckets/99841: "
                        "\"99841\" is not the lowest value (ns) of a histogram bucket"));
  CHECK_THAT(error_of(edited([](Json& doc) {
               doc["steps"][0]["phases"][0]["workers"][1]["ops_by_kind"] = {{"read", {}}};
             })),
             Catch::StartsWith("/steps/0/phases/0/workers/1/ops_by_kind/read: op kind \"read\" "
                               "where the phase has \"write\""));
  CHECK(error_of(edited([](Json& doc) { doc["steps"][0]["params_given"] = {"nope"}; })) ==
        "/steps/0/params_given/0: \"nope\" is not one of the step's params");
  // Keys with '/' and '~' are escaped in the pointer (RFC 6901).
  CHECK(pointer_of(edited([](Json& doc) { doc["steps"][0]["params"]["a/b~c"] = 1; })) ==
        "/steps/0/params/a~1b~0c");
}

}  // namespace
}  // namespace iobench
