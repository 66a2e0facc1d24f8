// --explain's "explain_bpf" read back from a result document: the split of each call with exact
// sums, the same "where the time went" block re-rendered from the read document, refusals with
// the JSON pointer.
#include <catch2/catch.hpp>
#include <iobench/error.hpp>
#include <iobench/registry.hpp>
#include <iobench/reporter.hpp>
#include <iobench/result_json.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "explain_bpf/report.hpp"
#include "tests/support/test_support.hpp"

namespace {

using namespace iobench;

ExplainSplit split(std::uint64_t calls, std::uint64_t fs, std::uint64_t queue, std::uint64_t device,
                   std::uint64_t off_cpu) {
  return {.calls = calls,
          .total_ns = fs + queue + device + off_cpu,
          .fs_kernel_ns = fs,
          .queue_ns = queue,
          .device_ns = device,
          .off_cpu_ns = off_cpu};
}

// 1000 pread64 (990 page cache hits, 12 block requests) and 3 fsync calls (6 requests, each
// timed on its own).
ExplainBpfPhase measured() {
  ExplainBpfPhase p;
  p.calls.push_back(ExplainCall{.call = "pread64",
                                .cache_hits = 990,
                                .block_requests = 12,
                                .clamped = 1,
                                .all = split(1000, 4'100'000, 300'000, 2'400'000, 200'001),
                                .p50 = split(20, 60'000, 0, 0, 0),
                                .p99 = split(1, 3'000, 1'000, 230'000, 17)});
  p.calls.push_back(
      ExplainCall{.call = "fsync",
                  .cache_hits = 0,
                  .block_requests = 6,
                  .clamped = 0,
                  .requests = {.completed = 6, .queue_ns = 12'000, .device_ns = 1'800'000},
                  .all = split(3, 90'000, 10'000, 2'000'000, 500'000),
                  .p50 = split(1, 30'000, 3'000, 600'000, 100'000),
                  .p99 = split(1, 40'000, 4'000, 800'000, 300'000)});
  p.off_cpu_outside_calls_ns = 1'234'567;
  p.switches_outside_calls = 42;
  return p;
}

ResultDocument document_with(std::optional<ExplainBpfPhase> explain_bpf) {
  PhaseResult phase;
  phase.name = "read";
  phase.op_names = {"read"};
  phase.wall_ns = test::kSecond;
  phase.stonewall_ns = test::kSecond;
  phase.ops.resize(1);
  phase.explain_bpf = std::move(explain_bpf);
  StepResult step;
  step.name = "disk";
  step.workload = "disk";
  step.phases = {phase};
  ResultDocument doc;
  doc.schema = std::string(kResultSchema);
  doc.run.steps = {step};
  return doc;
}

void check_split(const ExplainSplit& a, const ExplainSplit& b) {
  CHECK(a.calls == b.calls);
  CHECK(a.total_ns == b.total_ns);
  CHECK(a.fs_kernel_ns == b.fs_kernel_ns);
  CHECK(a.queue_ns == b.queue_ns);
  CHECK(a.device_ns == b.device_ns);
  CHECK(a.off_cpu_ns == b.off_cpu_ns);
}

std::string refusal(const std::string& json) {
  try {
    (void)parse_result_json(json);
  } catch (const ResultFormatError& error) {
    return error.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("explain_bpf is read back and re-renders the same where the time went block",
          "[explain][json]") {
  const ExplainBpfPhase original = measured();
  const std::string json = to_json(document_with(original));
  const ResultDocument read = parse_result_json(json);
  const PhaseResult& phase = read.run.steps.at(0).phases.at(0);
  REQUIRE(phase.explain_bpf.has_value());
  const ExplainBpfPhase& back = *phase.explain_bpf;
  CHECK(back.unavailable.empty());
  REQUIRE(back.calls.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(back.calls[i].call == original.calls[i].call);
    CHECK(back.calls[i].cache_hits == original.calls[i].cache_hits);
    CHECK(back.calls[i].block_requests == original.calls[i].block_requests);
    CHECK(back.calls[i].clamped == original.calls[i].clamped);
    CHECK(back.calls[i].requests.completed == original.calls[i].requests.completed);
    CHECK(back.calls[i].requests.queue_ns == original.calls[i].requests.queue_ns);
    CHECK(back.calls[i].requests.device_ns == original.calls[i].requests.device_ns);
    check_split(back.calls[i].all, original.calls[i].all);
    check_split(back.calls[i].p50, original.calls[i].p50);
    check_split(back.calls[i].p99, original.calls[i].p99);
  }
  CHECK(back.off_cpu_outside_calls_ns == 1'234'567);
  CHECK(back.switches_outside_calls == 42);
  // The block itself, and the whole document written again, are what they were.
  const std::string block = detail::explain_bpf_text(original);
  CHECK(detail::explain_bpf_text(back) == block);
  CHECK_THAT(block, Catch::Contains("  pread64: 1000 calls, 99.0 % page cache hits (no block "
                                    "request), 12 block requests, 1 clamped\n"
                                    "    mean      7.00 us = fs+kernel  58.6 % + block queue   4.3 "
                                    "% + device  34.3 % + off-CPU   2.9 %\n"));
  CHECK_THAT(block, Catch::Contains("  fsync: 3 calls, 0.0 % page cache hits (no block request), "
                                    "6 block requests\n"
                                    "    per request: block queue 2.00 us, device 300.00 us (6 "
                                    "completed)\n"));
  CHECK(to_json(read) == json);
  std::ostringstream text;
  report_run(read.run, *make_text_reporter(text, test::shared_full_registry()));
  CHECK_THAT(text.str(), Catch::Contains(block));

  const ExplainBpfPhase off{.unavailable = "no kernel BTF at /sys/kernel/btf/vmlinux"};
  const ResultDocument unavailable = parse_result_json(to_json(document_with(off)));
  const auto& read_off = unavailable.run.steps.at(0).phases.at(0).explain_bpf;
  REQUIRE(read_off.has_value());
  CHECK(detail::explain_bpf_text(*read_off) ==
        "  explain: unavailable: no kernel BTF at /sys/kernel/btf/vmlinux\n");
  // Without --explain there is none, before and after.
  CHECK_FALSE(parse_result_json(to_json(document_with(std::nullopt)))
                  .run.steps.at(0)
                  .phases.at(0)
                  .explain_bpf.has_value());
}

TEST_CASE("an explain_bpf object that is not what the writer wrote is refused with its pointer",
          "[explain][json]") {
  auto j = nlohmann::ordered_json::parse(to_json(document_with(measured())));
  auto& bpf = j["steps"][0]["phases"][0]["explain_bpf"];
  const nlohmann::ordered_json good = bpf;
  bpf["calls"][1]["all"]["device_ns"] = "x";
  CHECK(refusal(j.dump()) ==
        "/steps/0/phases/0/explain_bpf/calls/1/all/device_ns: must be a whole number of 0 or "
        "more, not a string");
  bpf = good;
  bpf["calls"][0]["calls"] = 999;
  CHECK(refusal(j.dump()) ==
        "/steps/0/phases/0/explain_bpf/calls/0/calls: is 999, not all.calls (1000)");
  bpf = good;
  bpf.erase("switches_outside_calls");
  CHECK(refusal(j.dump()) ==
        "/steps/0/phases/0/explain_bpf: the key \"switches_outside_calls\" is missing");
  bpf = nlohmann::ordered_json{{"unavailable", ""}};
  CHECK(refusal(j.dump()) ==
        "/steps/0/phases/0/explain_bpf/unavailable: is empty: give the reason");
}

TEST_CASE("explain_bpf says whether it split ops or system calls and reads that back",
          "[explain][json]") {
  ExplainBpfPhase ops = measured();
  ops.split_of = ExplainMode::kOps;
  ops.calls.resize(1);
  ops.calls[0].call = "read";
  const std::string json = to_json(document_with(ops));
  CHECK_THAT(json, Catch::Contains("\"split_of\": \"ops\""));
  const ExplainBpfPhase back = *parse_result_json(json).run.steps.at(0).phases.at(0).explain_bpf;
  CHECK(back.split_of == ExplainMode::kOps);
  const std::string block = detail::explain_bpf_text(back);
  CHECK_THAT(block, Catch::Contains("each op's latency by layer") &&
                        Catch::Contains("  read: 1000 ops, 99.0 % page cache hits"));
  // Ops back to back: no time between them to print.
  CHECK_THAT(block, !Catch::Contains("off CPU outside"));
  CHECK_THAT(detail::explain_bpf_text(measured()), Catch::Contains("--explain=syscalls"));

  // Written before ops were split: no "split_of", so system calls.
  auto j = nlohmann::ordered_json::parse(json);
  auto& bpf = j["steps"][0]["phases"][0]["explain_bpf"];
  bpf.erase("split_of");
  CHECK(parse_result_json(j.dump()).run.steps.at(0).phases.at(0).explain_bpf->split_of ==
        ExplainMode::kSyscalls);
  bpf["split_of"] = "files";
  CHECK(refusal(j.dump()) ==
        "/steps/0/phases/0/explain_bpf/split_of: is 'files', not ops or system_calls");
}
