// The live line's fitting: exact strings at given widths, and the fields a snapshot gives.
#include <catch2/catch.hpp>
#include <vector>

#include "progress_line.hpp"

using iobench::ProgressState;
using iobench::SuiteProgress;
using iobench::cli::fit_line;
using iobench::cli::LineField;
using iobench::cli::plain_progress_line;
using iobench::cli::progress_fields;

namespace {

std::vector<LineField> sample() {
  return {{{"[2/5 seq-write]", "[2/5]", ""}, 4},
          {{"write: measuring", "measuring"}, 9},
          {{"12s", ""}, 1},
          {{"412.3 MiB/s", ""}, 7},
          {{"1234 IOPS", ""}, 5},
          {{"ETA 1m05s", ""}, 8}};
}

SuiteProgress measuring() {
  SuiteProgress p;
  p.phase.step_index = 1;
  p.phase.step_count = 5;
  p.phase.step_name = "seq-write";
  p.phase.phase_name = "write";
  p.phase.state = ProgressState::kMeasuring;
  p.phase.workers = 2;
  p.phase.elapsed_ns = 12'000'000'000;
  p.phase.bytes = 3ULL << 30;
  p.phase.interval_bytes_per_s = 412.3 * 1048576;
  p.phase.interval_ops_per_s = 1234;
  p.phase.interval_p99_ns = 1'210'000;
  p.phase.done_fraction = 0.45;
  p.eta_ns = 65'000'000'000;
  return p;
}

}  // namespace

TEST_CASE("a line that fits is joined unchanged", "[progress][unit]") {
  const auto fields = sample();
  CHECK(fit_line(fields, 200) ==
        "[2/5 seq-write] write: measuring 12s 412.3 MiB/s 1234 IOPS ETA 1m05s");
  CHECK(fit_line(fields, 68) ==
        "[2/5 seq-write] write: measuring 12s 412.3 MiB/s 1234 IOPS ETA 1m05s");
}

TEST_CASE("the least important fields go first, whole", "[progress][unit]") {
  const auto fields = sample();
  // One column short: the elapsed time (priority 1) goes.
  CHECK(fit_line(fields, 67) == "[2/5 seq-write] write: measuring 412.3 MiB/s 1234 IOPS ETA 1m05s");
  // Then the step's name shortens to its counter, then the counter goes (priority 4), then the
  // IOPS (5).
  CHECK(fit_line(fields, 63) == "[2/5] write: measuring 412.3 MiB/s 1234 IOPS ETA 1m05s");
  CHECK(fit_line(fields, 53) == "write: measuring 412.3 MiB/s 1234 IOPS ETA 1m05s");
  CHECK(fit_line(fields, 47) == "write: measuring 412.3 MiB/s ETA 1m05s");
  // Then throughput, then the ETA; the phase shortens to its state last.
  CHECK(fit_line(fields, 37) == "write: measuring ETA 1m05s");
  CHECK(fit_line(fields, 25) == "write: measuring");
  CHECK(fit_line(fields, 15) == "measuring");
}

TEST_CASE("a line still too wide at its shortest is cut at the width", "[progress][unit]") {
  CHECK(fit_line(sample(), 5) == "measu");
  CHECK(fit_line(sample(), 0).empty());
  // Never inside a UTF-8 character: "é" is two bytes.
  const std::vector<LineField> accent{{{"caf\xc3\xa9s"}, 9}};
  CHECK(fit_line(accent, 4) == "caf");
  CHECK(fit_line(accent, 5) == "caf\xc3\xa9");
}

TEST_CASE("no fitted line is wider than asked at any width", "[progress][unit]") {
  const auto fields = progress_fields(measuring());
  for (std::size_t width = 0; width <= 120; ++width) {
    INFO(width);
    CHECK(fit_line(fields, width).size() <= width);
  }
}

TEST_CASE("a measuring snapshot's fields", "[progress][unit]") {
  const auto fields = progress_fields(measuring());
  CHECK(fit_line(fields, 200) ==
        "[2/5 seq-write] write: measuring 12s 3.00 GiB 412.3 MiB/s 1234 IOPS p99 1.21 ms 2 "
        "workers 45% ETA 1m05s");
  // At 80 columns (79 usable with automatic margins): workers, elapsed and bytes go, the p99
  // loses its space.
  CHECK(fit_line(fields, 79) ==
        "[2/5 seq-write] write: measuring 412.3 MiB/s 1234 IOPS p99 1.21ms 45% ETA 1m05s");
  CHECK(fit_line(fields, 60) == "[2/5] write: measuring 412.3 MiB/s 1234 IOPS 45% ETA 1m05s");
  CHECK(fit_line(fields, 40) == "write: measuring 412.3 MiB/s ETA 1m05s");
  CHECK(fit_line(fields, 36) == "write: measuring 412 MiB/s ETA 1m05s");
  CHECK(plain_progress_line(measuring()) ==
        "[2/5 seq-write] write: measuring, 12s, 3.00 GiB, 412.3 MiB/s, 1234 IOPS, p99 1.21 ms, "
        "2 workers, 45%, ETA 1m05s");
}

TEST_CASE("states without ops show no rates", "[progress][unit]") {
  SuiteProgress p = measuring();
  p.phase.state = ProgressState::kFsync;
  CHECK(plain_progress_line(p) == "[2/5 seq-write] write: fsync, 12s, 45%, ETA 1m05s");
  p.phase.state = ProgressState::kPause;
  p.phase.phase_name.clear();
  p.phase.done_fraction.reset();
  p.eta_ns.reset();
  CHECK(plain_progress_line(p) == "[2/5 seq-write] pause, 12s");
  p.phase.state = ProgressState::kMeasuring;
  p.phase.phase_name = "prime";
  p.phase.phase_measured = false;
  p.phase.interval_p99_ns.reset();
  CHECK(fit_line(progress_fields(p), 200) ==
        "[2/5 seq-write] prime: running (untimed) 12s 3.00 GiB 412.3 MiB/s 1234 IOPS p99 - 2 "
        "workers");
}

TEST_CASE("an ETA rounds half a second down so elapsed + ETA is the limit and 0s at the end",
          "[progress][unit]") {
  SuiteProgress p = measuring();
  p.phase.elapsed_ns = 800'000'000;  // 10 s limit: 0.8 s in, 9.2 s left
  p.phase.done_fraction = 0.08;
  p.eta_ns = 9'200'000'000;
  CHECK(plain_progress_line(p) ==
        "[2/5 seq-write] write: measuring, 1s, 3.00 GiB, 412.3 MiB/s, 1234 IOPS, p99 1.21 ms, 2 "
        "workers, 8%, ETA 9s");
  p.phase.elapsed_ns = 4'500'000'000;
  p.eta_ns = 5'500'000'000;
  CHECK(plain_progress_line(p).find(", 5s, ") != std::string::npos);
  CHECK(plain_progress_line(p).find(", ETA 5s") != std::string::npos);
  p.phase.done_fraction = 0.996;
  p.eta_ns = 40'000'000;
  CHECK(plain_progress_line(p).find(", 100%, ETA 0s") != std::string::npos);
  p.eta_ns = 0;
  p.phase.bytes = 0;
  p.phase.ops = 0;
  p.phase.elapsed_ns = 12'000'000'000;
  p.phase.done_fraction = 0.45;
  CHECK(plain_progress_line(p) == "[2/5 seq-write] write: measuring, 12s, 45%, ETA 0s");
  CHECK(iobench::cli::eta_duration(65'500'000'000) == "1m05s");
  CHECK(iobench::cli::eta_duration(65'500'000'001) == "1m06s");
}

TEST_CASE("the p99 field keeps its place: a placeholder until a value is known",
          "[progress][unit]") {
  SuiteProgress p = measuring();
  const std::size_t with_value = progress_fields(p).size();
  p.phase.interval_p99_ns.reset();
  const auto fields = progress_fields(p);
  CHECK(fields.size() == with_value);
  CHECK(fit_line(fields, 200) ==
        "[2/5 seq-write] write: measuring 12s 3.00 GiB 412.3 MiB/s 1234 IOPS p99 - 2 workers 45% "
        "ETA 1m05s");
  CHECK(fit_line(fields, 60) == "[2/5] write: measuring 412.3 MiB/s 1234 IOPS 45% ETA 1m05s");
}

TEST_CASE("names are shown safely and shortened with a mark", "[progress][unit]") {
  SuiteProgress p = measuring();
  p.phase.step_name = "a\x1b[2Jvery-long-step-name";
  const auto fields = progress_fields(p);
  CHECK(fields.front().forms.at(0) == "[2/5 a\\x1b[2Jvery-long-step-name]");
  CHECK(fields.front().forms.at(1) == "[2/5 a\\x1b[2Jver~]");
}
