// The seeds' "Completed ..." lines (seed 000: a thread-per-device test tool) into a document:
//   Completed writing|reading M mbytes across D devices using B blocks of S
//   in T seconds (R Mbytes/sec), L usec mean
// (the second part may be on the same line or the next). One step per such line, named by the
// "Test #N" heading above it ("test K" for the K-th line without one), workload "seed-lines",
// phase "write" or "read" (as iobench's disk workload names them). "mbytes" and "Mbytes/sec"
// are MiB (98304 mbytes in 579.935968 s is 169.51 "Mbytes/sec" only in 2^20 bytes), so
// R x 2^20 = bytes/s; IOPS = B blocks / T s; L usec x 1000 = ns (a mean). A "Linux VERSION"
// line above gives the kernel. The per-device "#N (...)" lines are not mapped.
#include <fmt/format.h>

#include <iobench/printable.hpp>

#include "report/classic/classic_reader.hpp"

namespace iobench::detail::classic {

namespace {

// `token` with a leading '(' taken off.
std::string_view bare(std::string_view token) {
  if (!token.empty() && token.front() == '(') token.remove_prefix(1);
  return token;
}

}  // namespace

ResultDocument read_seed_lines(std::string_view text, std::string_view source) {
  ResultDocument document = classic_document(ResultFormat::kSeedLines);
  const std::vector<Line> lines = lines_of(text);
  std::string heading;
  std::string kernel;
  std::size_t unnamed = 0;
  std::size_t device_lines = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Line& line = lines[i];
    std::vector<std::string_view> t = tokens_of(line.text);
    if (t.size() >= 2 && t[0] == "Test" && t[1].starts_with("#")) {
      heading = fmt::format("Test {}", t[1]);
      continue;
    }
    if (t.size() == 2 && t[0] == "Linux") {
      kernel = fmt::format("Linux {}", t[1]);
      continue;
    }
    if (!t.empty() && t[0].starts_with("#") && t[0].size() > 1 &&
        line.text.find('(') != std::string_view::npos) {
      ++device_lines;
      continue;
    }
    if (t.empty() || t[0] != "Completed") continue;
    // Join the "in T seconds (...)" part when it wrapped onto the next line.
    if (t.size() < 18 && i + 1 < lines.size()) {
      const auto more = tokens_of(lines[i + 1].text);
      if (!more.empty() && more[0] == "in") {
        t.insert(t.end(), more.begin(), more.end());
        ++i;
      }
    }
    // 0 Completed 1 writing 2 M 3 mbytes 4 across 5 D 6 devices 7 using 8 B 9 blocks 10 of 11 S
    // 12 in 13 T 14 seconds 15 (R 16 Mbytes/sec), 17 L+usec 18 mean
    const bool shape = t.size() >= 18 && (t[1] == "writing" || t[1] == "reading") &&
                       t[3] == "mbytes" && t[4] == "across" && t[6] == "devices" &&
                       t[7] == "using" && t[9] == "blocks" && t[10] == "of" && t[12] == "in" &&
                       t[14] == "seconds" && t[16].starts_with("Mbytes/sec") &&
                       t[17].ends_with("usec");
    const auto mbytes = shape ? number_of(t[2]) : std::nullopt;
    const auto devices = shape ? number_of(t[5]) : std::nullopt;
    const auto blocks = shape ? number_of(t[8]) : std::nullopt;
    const auto block_size = shape ? number_of(t[11]) : std::nullopt;
    const auto seconds = shape ? number_of(t[13]) : std::nullopt;
    const auto rate = shape ? number_of(bare(t[15])) : std::nullopt;
    const auto usec = shape ? number_of(t[17].substr(0, t[17].size() - 4)) : std::nullopt;
    if (!mbytes || !devices || !blocks || !block_size || !seconds || !rate || !usec ||
        *seconds <= 0) {
      fail(source, line.number,
           fmt::format("expected 'Completed writing|reading M mbytes across D devices using B "
                       "blocks of S in T seconds (R Mbytes/sec), L usec mean', got '{}'",
                       printable(line.text)));
    }
    std::string name = heading.empty() ? fmt::format("test {}", ++unnamed) : heading;
    heading.clear();
    StepResult& step = add_step(document, std::move(name), "seed-lines");
    step.params["mbytes"] = std::string(t[2]);
    step.params["devices"] = std::string(t[5]);
    step.params["blocks"] = std::string(t[8]);
    step.params["block_size"] = std::string(t[11]);
    PhaseResult& phase = add_phase(step, t[1] == "writing" ? "write" : "read");
    phase.wall_ns = ns_of_seconds(*seconds);
    ReportedFigures& f = figures(phase);
    f.throughput_bytes_per_s = figure(*rate * 1024.0 * 1024.0);
    f.iops = figure(*blocks / *seconds);
    f.latency_mean_ns = figure(*usec * 1e3);
    if (!kernel.empty()) {
      if (document.run.environment.kernel.empty()) {
        document.run.environment.kernel = kernel;
      } else if (document.run.environment.kernel != kernel) {
        not_mapped(document, line.number,
                   fmt::format("kernel '{}' differs from the first line's '{}': one document has "
                               "one kernel; give each kernel's lines in a file of its own",
                               printable(kernel), printable(document.run.environment.kernel)));
      }
    }
  }
  if (document.run.steps.empty()) {
    fail(source, lines.empty() ? 1 : lines.back().number,
         "expected 'Completed writing|reading ... mbytes across ...' lines, found none");
  }
  if (device_lines > 0) {
    not_mapped(document, 0,
               fmt::format("{} per-device lines (\"#N (...) ... (R MB/sec), L usec\") not mapped",
                           device_lines));
  }
  return document;
}

}  // namespace iobench::detail::classic
