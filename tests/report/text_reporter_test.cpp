#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <iobench/registry.hpp>
#include <iobench/reporter.hpp>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/report/golden.hpp"
#include "tests/report/sample_run.hpp"

namespace iobench {
namespace {

std::string render_text(const RunResult& run, const Registry& registry) {
  std::ostringstream out;
  auto reporter = make_text_reporter(out, registry);
  reporter->on_run_start(run.environment);
  for (const StepResult& step : run.steps) reporter->on_step_end(step);
  reporter->on_run_end(run);
  return out.str();
}

TEST_CASE("generic text output matches the golden file", "[report]") {
  const Registry registry;
  test::check_golden("sample_run.txt", render_text(test::make_sample_run(), registry));
}

TEST_CASE("text output uses a registered family formatter", "[report]") {
  Registry registry;
  registry.add_formatter("disk", "text", [](const StepResult& step, std::ostream& out) {
    out << "disk formatter: " << step.name << " " << step.phases.size() << " phases\n";
  });
  // A formatter for another format must not be used for text.
  registry.add_formatter("custom-meta", "csv", [](const StepResult&, std::ostream& out) {
    out << "csv formatter must not appear\n";
  });
  test::check_golden("sample_run_formatter.txt", render_text(test::make_sample_run(), registry));
}

TEST_CASE("text output shows failures and warnings plainly", "[report]") {
  const Registry registry;
  const std::string text = render_text(test::make_sample_run(), registry);
  CHECK(text.find("WARNING   file smaller than 2x RAM") != std::string::npos);
  CHECK(text.find("== step meta: workload custom-meta, INTERRUPTED: stopped by SIGINT") !=
        std::string::npos);
  CHECK(text.find("== step broken: workload disk, FAILED: pwrite /mnt/a/iobench.1.2/file0: No "
                  "space left on device") != std::string::npos);
  CHECK(text.find("ERRORS    create: 2 failed ops") != std::string::npos);
  CHECK(text.find("slow ops  sync: 2 over 2 s, 1 over 10 s") != std::string::npos);
  CHECK(text.find("run INTERRUPTED: the results above are partial") != std::string::npos);
}

TEST_CASE("text output of an ok run ends with the last step", "[report]") {
  const Registry registry;
  RunResult run = test::make_sample_run();
  run.steps.resize(1);
  run.status = Status::kOk;
  const std::string text = render_text(run, registry);
  CHECK(text.find("\nrun ") == std::string::npos);
  CHECK(text.find("INTERRUPTED") == std::string::npos);
  CHECK(text.find("FAILED") == std::string::npos);
}

// Whitespace-separated words of `line`.
std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

TEST_CASE("generic text states one unit convention and its figures parse back in it", "[report]") {
  const Registry registry;
  const RunResult run = test::make_sample_run();
  const std::string text = render_text(run, registry);
  CHECK(text.find("units     MiB = 2^20 bytes (also in MiB/s), latency in us") !=
        std::string::npos);
  CHECK(text.find("MB/s") == std::string::npos);  // no decimal MB beside the MiB
  const PhaseResult& phase = run.steps[0].phases[0];
  std::istringstream lines(text);
  std::vector<std::string> header;
  bool op_row_seen = false;
  bool worker_rows_seen = false;
  for (std::string line; std::getline(lines, line);) {
    const std::vector<std::string> words = words_of(line);
    if (words.empty()) continue;
    if (words[0] == "op" || words[0] == "worker") {
      header = words;
      continue;
    }
    if (header.empty()) continue;
    const auto column = [&](const std::string& name) {
      const auto it = std::find(header.begin(), header.end(), name);
      REQUIRE(it != header.end());
      return std::stod(words.at(static_cast<std::size_t>(it - header.begin())));
    };
    if (header[0] == "op" && words[0] == "write" && !op_row_seen) {
      // The first phase's op table: MiB and MiB/s from its bytes and wall time.
      const double bytes = static_cast<double>(phase.ops[0].bytes);
      CHECK(column("MiB") == Approx(bytes / 1048576.0).margin(0.005));
      CHECK(column("MiB/s") ==
            Approx(bytes / 1048576.0 / (static_cast<double>(phase.wall_ns) / 1e9)).margin(0.005));
      op_row_seen = true;
    } else if (header[0] == "worker" && (words[0] == "0" || words[0] == "1") && !worker_rows_seen) {
      const WorkerResult& worker = phase.workers[words[0] == "0" ? 0 : 1];
      const double bytes = static_cast<double>(worker.total_bytes());
      CHECK(
          column("MiB/s") ==
          Approx(bytes / 1048576.0 / (static_cast<double>(worker.elapsed_ns) / 1e9)).margin(0.005));
      worker_rows_seen = words[0] == "1";
    } else {
      header.clear();
    }
  }
  CHECK(op_row_seen);
  CHECK(worker_rows_seen);
}

TEST_CASE("text output says what the page cache drop before a phase left, generic and family",
          "[report]") {
  RunResult run = test::make_sample_run();
  run.steps.resize(1);
  run.status = Status::kOk;
  StepResult& step = run.steps[0];
  // As drop_page_cache_before() records them: 41.9 MiB of metadata blocks, 1 MiB of file pages.
  step.attributes.emplace_back("cache_left_buffers_bytes.write", std::int64_t{43937792});
  step.attributes.emplace_back("cache_left_cached_bytes.write", std::int64_t{1048576});
  const std::string note =
      "page cache dropped before this phase; 41.9 MiB of buffers (file system metadata) and 1.00 "
      "MiB of file pages still in memory after the drop, machine-wide (a journalling file system "
      "keeps the metadata blocks it has not checkpointed, tmpfs its files)\n";
  const Registry generic;
  const std::string text = render_text(run, generic);
  CHECK_THAT(text, Catch::Contains("\n-- phase write: ") && Catch::Contains("\ncache     " + note));
  // Under a family's own output: on a line naming the phase.
  Registry family;
  family.add_formatter("disk", "text",
                       [](const StepResult&, std::ostream& out) { out << "disk formatter\n"; });
  CHECK_THAT(render_text(run, family), Catch::Contains("disk formatter\nphase write: " + note));
  // A family whose output starts with the generic one (mdtest's, IO500's) shows it once.
  Registry with_generic;
  with_generic.add_formatter("disk", "text", [](const StepResult& s, std::ostream& out) {
    write_generic_step_text(s, out);
    out << "family table\n";
  });
  const std::string both = render_text(run, with_generic);
  const auto count = [&both](const std::string& what) {
    std::size_t n = 0;
    for (auto at = both.find(what); at != std::string::npos; at = both.find(what, at + 1)) ++n;
    return n;
  };
  CHECK(count("page cache dropped before this phase") == 1);
  CHECK(count("family table\n") == 1);
  // Only the Buffers figure: the note names it alone.
  step.attributes.pop_back();
  CHECK_THAT(render_text(run, generic),
             Catch::Contains("dropped before this phase; 41.9 MiB of buffers (file system "
                             "metadata) still in memory after the drop"));
  // No drop, no note.
  step.attributes.pop_back();
  CHECK_THAT(render_text(run, generic), !Catch::Contains("page cache dropped"));
}

}  // namespace
}  // namespace iobench
