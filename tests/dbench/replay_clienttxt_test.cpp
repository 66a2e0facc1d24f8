// A short replay of Debian's client.txt with 2 clients, formatted and parsed back.

#include <regex>
#include <sstream>

#include "plugins/dbench/loadfile_program.hpp"
#include "tests/dbench/dbench_test_support.hpp"

using dbench_test::counter;
using dbench_test::Fixture;
using dbench_test::op;
using dbench_test::tree;

TEST_CASE("a short replay of Debian client txt with 2 clients", "[dbench]") {
  constexpr const char* kClientTxt = "/usr/share/dbench/client.txt";
  if (!std::filesystem::exists(kClientTxt)) {
    WARN("skipped: " << kClientTxt << " is missing (install Debian's dbench package)");
    return;
  }
  Fixture fx;
  const auto step = fx.run({{"loadfile", kClientTxt}, {"procs", "2"}, {"time_limit", "3s"}});
  INFO(step.message);
  REQUIRE(step.status == iobench::Status::kOk);
  const auto& phase = step.phases.front();
  REQUIRE(phase.workers.size() == 2);

  // client.txt replays cleanly with dbench's semantics: no status surprises at all.
  for (const char* name :
       {"mismatch.NTCreateX", "mismatch.Unlink", "mismatch.Rmdir", "mismatch.Rename",
        "missing_handle", "short_read.ReadX", "short_write.WriteX", "deltree_errors"}) {
    INFO(name);
    CHECK(counter(step, name) == 0);
  }
  std::uint64_t ops = 0;
  for (std::size_t i = 0; i < 17; ++i) {
    ops += phase.ops[i].ops;
    CHECK(phase.ops[i].errors == 0);
  }
  CHECK(counter(step, "lines") == ops);  // every executed line is one timed operation
  for (const char* name : {"NTCreateX", "Close", "Qpathinfo", "Find", "WriteX", "ReadX"}) {
    INFO(name);
    CHECK(op(step, name).ops > 0);
  }
  CHECK(op(step, "Mkdir").ops == 2);  // line 2, once per client (no second pass in 3 s)
  CHECK(op(step, "WriteX").bytes > 0);
  CHECK(counter(step, "bytes_to_last_tick") <= op(step, "WriteX").bytes + op(step, "ReadX").bytes);

  // The text output parses back to the recorded numbers.
  const iobench::Registry registry = iobench::test::make_full_registry();
  const auto* formatter = registry.formatter("dbench", "text");
  REQUIRE(formatter != nullptr);
  std::ostringstream out;
  (*formatter)(step, out);
  const std::string text = out.str();
  const std::regex throughput(
      R"(\nThroughput ([0-9.e+]+) MB/sec  2 clients  2 procs  max_latency=([0-9.]+) ms  \(whole execute period: ([0-9.]+) MB/sec over ([0-9.]+) s\)\n)");
  std::smatch m;
  REQUIRE(std::regex_search(text, m, throughput));
  const double dbench_mb = std::stod(m[1]);
  const double whole_mb = std::stod(m[3]);
  CHECK(dbench_mb ==
        Approx(1e-6 * static_cast<double>(counter(step, "bytes_to_last_tick")) / 2).epsilon(1e-5));
  CHECK(whole_mb ==
        Approx(1e-6 * static_cast<double>(op(step, "WriteX").bytes + op(step, "ReadX").bytes) /
               (static_cast<double>(phase.wall_ns) / 1e9))
            .epsilon(1e-2));
  const std::regex row(R"( (\w+) +(\d+) +([0-9.]+) +([0-9.]+))");
  std::istringstream lines(
      text.substr(text.find(" ----"), text.find("\nThroughput") - text.find(" ----")));
  std::string line;
  std::getline(lines, line);  // the rule
  std::size_t rows = 0;
  while (std::getline(lines, line)) {
    std::smatch r;
    REQUIRE(std::regex_match(line, r, row));
    INFO(line);
    CHECK(op(step, r[1].str()).ops == std::stoull(r[2]));
    CHECK(std::stod(r[3]) == Approx(op(step, r[1].str()).latency.mean() / 1e6).margin(0.0006));
    ++rows;
  }
  std::size_t nonzero = 0;
  for (std::size_t i = 0; i < 17; ++i) nonzero += phase.ops[i].ops > 0;
  CHECK(rows == nonzero);

  // Cleanup left nothing behind.
  CHECK(tree(fx.run_dir()).empty());
}
