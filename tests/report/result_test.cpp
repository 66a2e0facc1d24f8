#include <catch2/catch.hpp>
#include <iobench/result.hpp>
#include <string>

#include "tests/report/sample_run.hpp"

namespace iobench {
namespace {

using test::kFastNs;
using test::kSlowNs;
using test::kSyncFastNs;
using test::kSyncSlowNs;

TEST_CASE("status names are the documented words", "[report]") {
  CHECK(std::string(to_string(Status::kOk)) == "ok");
  CHECK(std::string(to_string(Status::kFailed)) == "failed");
  CHECK(std::string(to_string(Status::kInterrupted)) == "interrupted");
  CHECK(std::string(to_string(Status::kSkipped)) == "skipped");
}

TEST_CASE("sample latencies sit at the edges of their histogram buckets", "[report]") {
  // The goldens rely on these: a minimum that is the last value of its bucket and a maximum that
  // is the first value of its bucket are reported exactly whatever point of the bucket is used.
  using H = LatencyHistogram;
  CHECK(H::bucket_index(kFastNs) != H::bucket_index(kFastNs + 1));
  CHECK(H::bucket_index(kSlowNs - 1) != H::bucket_index(kSlowNs));
  CHECK(H::bucket_index(kSyncFastNs) != H::bucket_index(kSyncFastNs + 1));
  CHECK(H::bucket_index(kSyncSlowNs - 1) != H::bucket_index(kSyncSlowNs));
  CHECK(H::bucket_width(H::bucket_index(253)) == 1);
}

TEST_CASE("phase totals add every op kind", "[report]") {
  const RunResult run = test::make_sample_run();
  const PhaseResult& write = run.steps[0].phases[0];
  CHECK(write.total_bytes() == 128ULL * 1024 * 1024);
  CHECK(write.total_ops() == 128);
  const PhaseResult& meta = run.steps[1].phases[0];
  CHECK(meta.total_ops() == 253 + 253 + 2);
  CHECK(meta.total_bytes() == 0);
  CHECK(PhaseResult{}.total_ops() == 0);
  CHECK(PhaseResult{}.total_bytes() == 0);
}

TEST_CASE("phase throughput is bytes per second over the wall time", "[report]") {
  const RunResult run = test::make_sample_run();
  const PhaseResult& write = run.steps[0].phases[0];
  // 128 MiB over a wall time of 0.64 s (not the stonewall time, 0.5 s): 200 MiB/s.
  CHECK(write.throughput_bytes_per_s() == 200.0 * 1024 * 1024);
  CHECK(write.throughput_bytes_per_s(write.op_index("write")) == 200.0 * 1024 * 1024);
  CHECK(write.throughput_bytes_per_s(write.op_names.size()) == 0);  // no such op kind
  CHECK(run.steps[1].phases[0].throughput_bytes_per_s() == 0);      // metadata: no bytes
  PhaseResult unmeasured = write;
  unmeasured.wall_ns = 0;
  CHECK(unmeasured.throughput_bytes_per_s() == 0);
  CHECK(unmeasured.throughput_bytes_per_s(0) == 0);
}

TEST_CASE("all_ops merges the op kinds into one", "[report]") {
  const RunResult run = test::make_sample_run();
  const OpResult all = run.steps[1].phases[0].all_ops();
  CHECK(all.ops == 508);
  CHECK(all.errors == 2);
  CHECK(all.ops_over_2s == 2);
  CHECK(all.ops_over_10s == 1);
  CHECK(all.latency.count() == 508);
  CHECK(all.latency.min() == 1);
  CHECK(all.latency.max() == kSyncSlowNs);
  const std::uint64_t sum = 250 * kFastNs + 3 * kSlowNs + 253 * 254 / 2 + kSyncFastNs + kSyncSlowNs;
  CHECK(all.latency.sum() == sum);
  CHECK(PhaseResult{}.all_ops().ops == 0);
}

TEST_CASE("op_index finds op names and returns the size when absent", "[report]") {
  const RunResult run = test::make_sample_run();
  const PhaseResult& meta = run.steps[1].phases[0];
  CHECK(meta.op_index("create") == 0);
  CHECK(meta.op_index("sync") == 2);
  CHECK(meta.op_index("unlink") == 3);
  CHECK(meta.op_index("") == 3);
}

TEST_CASE("step attributes are found by key and the last value wins", "[report]") {
  StepResult step = test::make_sample_run().steps[0];
  const AttributeValue* bytes = step.attribute("file_bytes");
  REQUIRE(bytes != nullptr);
  CHECK(std::get<std::int64_t>(*bytes) == 67'108'864);
  const AttributeValue* ratio = step.attribute("ram_ratio");
  REQUIRE(ratio != nullptr);
  CHECK(std::get<double>(*ratio) == 0.5);
  CHECK(step.attribute("missing") == nullptr);
  step.attributes.emplace_back("note", std::string("second"));
  const AttributeValue* note = step.attribute("note");
  REQUIRE(note != nullptr);
  CHECK(std::get<std::string>(*note) == "second");
}

}  // namespace
}  // namespace iobench
