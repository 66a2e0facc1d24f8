#include <catch2/catch.hpp>
#include <cmath>
#include <iobench/reporter.hpp>
#include <iobench/result_json.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/report/golden.hpp"
#include "tests/report/sample_run.hpp"
#include "tests/support/test_support.hpp"

namespace iobench {
namespace {

using nlohmann::json;
using test::kFastNs;
using test::kSlowNs;
using test::kSyncFastNs;
using test::kSyncSlowNs;

using ::iobench::test::kMiB;

// Same keys in the same order, same strings and integers, floating-point numbers equal to a
// relative 1e-12 (the last digits of a double may differ between equally right computations).
void check_same_document(const nlohmann::ordered_json& got, const nlohmann::ordered_json& want,
                         const std::string& where) {
  INFO("at " << where);
  if (want.is_number_float() || got.is_number_float()) {
    REQUIRE(got.is_number());
    REQUIRE(want.is_number());
    const double a = got.get<double>();
    const double b = want.get<double>();
    CHECK(std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b)));
    return;
  }
  REQUIRE(got.type_name() == std::string(want.type_name()));
  if (want.is_object()) {
    std::vector<std::string> got_keys;
    std::vector<std::string> want_keys;
    for (const auto& item : got.items()) got_keys.push_back(item.key());
    for (const auto& item : want.items()) want_keys.push_back(item.key());
    REQUIRE(got_keys == want_keys);
    for (const auto& key : want_keys) check_same_document(got[key], want[key], where + "/" + key);
  } else if (want.is_array()) {
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      check_same_document(got[i], want[i], where + "/" + std::to_string(i));
    }
  } else {
    CHECK(got == want);
  }
}

TEST_CASE("json document matches the golden file", "[report]") {
  const std::string text = to_json(test::make_sample_run(), 2) + "\n";
  if (std::getenv("IOBENCH_UPDATE_GOLDEN") != nullptr) {
    test::check_golden("sample_run.json", text);
    return;
  }
  REQUIRE(std::filesystem::exists(std::filesystem::path(IOBENCH_REPORT_GOLDEN_DIR) /
                                  "sample_run.json"));
  const auto want = nlohmann::ordered_json::parse(test::golden_text("sample_run.json"));
  const auto got = nlohmann::ordered_json::parse(text);
  check_same_document(got, want, "");
}

TEST_CASE("json document parses back with the values of the run", "[report]") {
  const RunResult run = test::make_sample_run();
  const json doc = json::parse(to_json(run));

  CHECK(doc.at("schema") == std::string(kResultSchema));
  CHECK(doc.at("iobench_version") == "0.1.0");
  CHECK(doc.at("status") == "interrupted");

  const json& env = doc.at("environment");
  CHECK(env.at("hostname") == "bench01");
  CHECK(env.at("arch") == "x86_64");
  CHECK(env.at("cpu_count") == 16);
  CHECK(env.at("memory_bytes") == 64ULL << 30);
  CHECK(env.at("start_time_utc") == "2026-01-15T09:30:00Z");
  REQUIRE(env.at("targets").size() == 2);
  CHECK(env.at("targets")[1].at("path") == "/mnt/b,\"x\"");
  CHECK(env.at("targets")[1].at("fs_type") == "xfs");
  CHECK(env.at("targets")[0].at("mount_options") == "rw,relatime,errors=remount-ro");
  CHECK(env.at("targets")[0].at("device") == "/dev/sdb1");
  CHECK(env.at("targets")[0].at("size_bytes") == 1'000'204'886'016ULL);
  CHECK(env.at("targets")[0].at("free_bytes") == 900'184'397'414ULL);

  const json& steps = doc.at("steps");
  REQUIRE(steps.size() == 3);
  const json& seqwrite = steps[0];
  CHECK(seqwrite.at("workload") == "disk");
  CHECK(seqwrite.at("status") == "ok");
  CHECK(seqwrite.at("seed") == "42");  // seeds are decimal text: exact past 2^53
  CHECK(seqwrite.at("engine") == "psync");
  CHECK(seqwrite.at("time_limit_ns") == 0);
  CHECK(seqwrite.at("params").at("bs") == "1048576");
  CHECK(seqwrite.at("params_given") == json::array({"blocks", "bs", "operation"}));
  CHECK(seqwrite.at("targets") == json::array({"/mnt/a", "/mnt/b,\"x\""}));
  CHECK(seqwrite.at("attributes").at("file_bytes") == 67'108'864);
  CHECK(seqwrite.at("attributes").at("ram_ratio") == 0.5);
  CHECK(seqwrite.at("attributes").at("note") == "primed");
  CHECK(seqwrite.at("warnings").size() == 1);

  const json& write = seqwrite.at("phases").at(0);
  CHECK(write.at("name") == "write");
  CHECK(write.at("mode") == "threads");
  CHECK(write.at("wall_ns") == 640'000'000);
  CHECK(write.at("stonewall_ns") == 500'000'000);
  CHECK(write.at("bytes") == 128 * kMiB);
  CHECK(write.at("ops") == 128);
  // Merged rates divide by the wall time: 128 MiB in 0.64 s.
  CHECK(write.at("throughput_bytes_per_s").get<double>() == Approx(128.0 * kMiB / 0.64));
  CHECK(write.at("ops_per_s").get<double>() == Approx(200.0));
  CHECK(write.at("cpu").at("process_user_ns") == 120'000'000);
  CHECK(write.at("cpu").at("process_system_ns") == 450'000'000);
  CHECK(write.at("cpu").at("workers_user_ns") == 114'000'000);
  CHECK(write.at("cpu").at("workers_system_ns") == 430'000'000);
  CHECK(write.at("cpu").at("system_busy_percent") == 23.5);
  CHECK(write.at("counters").at("fsyncs") == 2);

  const json& merged = write.at("ops_by_kind").at("write");
  CHECK(merged.at("ops") == 128);
  CHECK(merged.at("bytes") == 128 * kMiB);
  CHECK(merged.at("errors") == 0);
  const json& latency = merged.at("latency_ns");
  CHECK(latency.at("min") == kFastNs);
  CHECK(latency.at("max") == kSlowNs);
  CHECK(latency.at("p50") == kFastNs);
  CHECK(latency.at("p90") == kFastNs);
  CHECK(latency.at("p99") == kSlowNs);
  CHECK(latency.at("p99_9") == kSlowNs);
  CHECK(latency.at("p99_99") == kSlowNs);
  CHECK(latency.at("mean").get<double>() == Approx((122.0 * kFastNs + 6.0 * kSlowNs) / 128.0));
  CHECK(latency.at("stddev").get<double>() ==
        Approx(run.steps[0].phases[0].ops[0].latency.stddev()));
  // The exact moments and the histogram's non-empty buckets: {lowest value in ns: count}.
  CHECK(latency.at("sum") == std::to_string(122 * kFastNs + 6 * kSlowNs));
  CHECK(latency.at("sum_squares") ==
        std::to_string(122 * kFastNs * kFastNs + 6 * kSlowNs * kSlowNs));
  const json& buckets = latency.at("buckets");
  REQUIRE(buckets.size() == 2);
  CHECK(buckets.at(std::to_string(
            LatencyHistogram::bucket_lower(LatencyHistogram::bucket_index(kFastNs)))) == 122);
  CHECK(buckets.at(std::to_string(
            LatencyHistogram::bucket_lower(LatencyHistogram::bucket_index(kSlowNs)))) == 6);

  const json& workers = write.at("workers");
  REQUIRE(workers.size() == 2);
  const json& w1 = workers[1];
  CHECK(w1.at("index") == 1);
  CHECK(w1.at("target_index") == 1);
  CHECK(w1.at("seed") == "18446744073709551557");
  CHECK_FALSE(w1.at("ops_by_kind").at("write").at("latency_ns").contains("buckets"));
  CHECK(w1.at("elapsed_ns") == 640'000'000);
  CHECK(w1.at("status") == "ok");
  CHECK(w1.at("cpu").at("user_ns") == 64'000'000);
  CHECK(w1.at("cpu").at("system_ns") == 240'000'000);
  CHECK(w1.at("bytes") == 64 * kMiB);
  CHECK(w1.at("ops") == 64);
  CHECK(w1.at("counters").at("fsyncs") == 1);
  // Worker rates divide by the worker's own elapsed time.
  CHECK(workers[0].at("throughput_bytes_per_s").get<double>() == Approx(64.0 * kMiB / 0.5));
  CHECK(workers[0].at("ops_by_kind").at("write").at("ops_per_s").get<double>() == Approx(128.0));
  CHECK(w1.at("ops_by_kind").at("write").at("latency_ns").at("p99") == kSlowNs);

  const json& meta = steps[1];
  CHECK(meta.at("status") == "interrupted");
  CHECK(meta.at("message") == "stopped by SIGINT");
  CHECK(meta.at("engine") == "mmap");
  CHECK(meta.at("time_limit_ns") == 15'000'000'000ULL);
  CHECK(meta.at("warmup_ns") == 2'000'000'000ULL);
  CHECK(meta.at("ops_limit") == 1000);
  CHECK(meta.at("drop_caches") == true);
  const json& phase = meta.at("phases").at(0);
  CHECK(phase.at("mode") == "processes");
  CHECK(phase.at("status") == "interrupted");
  CHECK(phase.at("counters") == json::object());
  const json& stat = phase.at("ops_by_kind").at("stat").at("latency_ns");
  CHECK(stat.at("min") == 1);
  CHECK(stat.at("p50") == 127);
  CHECK(stat.at("p90") == 228);
  CHECK(stat.at("p99") == 251);
  CHECK(stat.at("p99_9") == 253);
  CHECK(stat.at("mean").get<double>() == 127.0);
  const json& sync = phase.at("ops_by_kind").at("sync");
  CHECK(sync.at("ops_over_2s") == 2);
  CHECK(sync.at("ops_over_10s") == 1);
  CHECK(sync.at("latency_ns").at("p50") == kSyncFastNs);
  CHECK(sync.at("latency_ns").at("p99") == kSyncSlowNs);
  CHECK(phase.at("ops_by_kind").at("create").at("errors") == 2);

  const json& broken = steps[2];
  CHECK(broken.at("status") == "failed");
  CHECK(broken.at("phases") == json::array());
  CHECK(broken.at("attributes") == json::object());
}

TEST_CASE("json reporter writes one document at the end and nothing else", "[report]") {
  const RunResult run = test::make_sample_run();
  std::ostringstream out;
  auto reporter = make_json_reporter(out);
  reporter->on_run_start(run.environment);
  for (const StepResult& step : run.steps) reporter->on_step_end(step);
  CHECK(out.str().empty());
  reporter->on_run_end(run);
  // parse() rejects anything after the document, so this also checks the stream holds only it.
  const json doc = json::parse(out.str());
  CHECK(doc.at("steps").size() == 3);
  CHECK(out.str() == to_json(run, 2) + "\n");
}

TEST_CASE("json of an empty run is a complete document", "[report]") {
  const json doc = json::parse(to_json(RunResult{}, -1));
  CHECK(doc.at("schema") == std::string(kResultSchema));
  CHECK(doc.at("status") == "ok");
  CHECK(doc.at("steps") == json::array());
  CHECK(doc.at("environment").at("targets") == json::array());
  CHECK(to_json(RunResult{}, -1).find('\n') == std::string::npos);
}

TEST_CASE("json replaces bytes that are not utf-8", "[report]") {
  RunResult run;
  StepResult step;
  step.name = "bad";
  step.targets = {std::string("/mnt/caf\xe9")};  // Latin-1 file name
  run.steps.push_back(step);
  const json doc = json::parse(to_json(run));
  CHECK(doc.at("steps")[0].at("targets")[0] == "/mnt/caf\xef\xbf\xbd");
}

}  // namespace
}  // namespace iobench
