#include "plugins/tiotest/tiobench_report.hpp"

#include <fmt/format.h>
#include <fmt/printf.h>

#include <algorithm>
#include <iobench/format.hpp>
#include <ostream>

#include "plugins/tiotest/phase_figures.hpp"
#include "plugins/tiotest/step_params.hpp"
#include "plugins/tiotest/table_text.hpp"

namespace iobench::plugins::tiotest {

namespace {

constexpr double kNsPerSecond = 1e9;
constexpr double kNsPerMs = 1e6;
constexpr double kBytesPerMegabyte = 1024.0 * 1024.0;

// Perl's numeric format field (@###.##): printf("%*.*f"), or all '#' when it does not fit.
std::string perl_number(double value, std::size_t width, int decimals) {
  std::string text = fmt::format("{:{}.{}f}", value, width, decimals);
  if (text.size() > width) return std::string(width, '#');
  return text;
}

// Perl's text fields take the value's string form (numbers stringify with %.15g) and cut it to
// the field width.
std::string perl_text(const std::string& text, std::size_t width) {
  return text.substr(0, std::min(text.size(), width));
}

// A number in a centred text field: Perl would cut it to the field, so 8388608 would read
// 838860; the whole number is printed instead and the rest of the row moves right.
std::string centered_number(std::uint64_t value, std::size_t width) {
  const std::string text = fmt::format("{}", value);
  if (text.size() >= width) return text;
  const std::size_t left = (width - text.size()) / 2;
  return std::string(left, ' ') + text + std::string(width - text.size() - left, ' ');
}

std::string identifier_of(const StepResult& step) {
  std::string identifier = param_text(step, "identifier", "");
  if (identifier.empty()) identifier = attribute_text(step, "identifier");
  return identifier;
}

constexpr std::array<PhaseKind, 4> kSectionOrder{PhaseKind::kRead, PhaseKind::kRandomRead,
                                                 PhaseKind::kWrite, PhaseKind::kRandomWrite};
constexpr std::array<const char*, 4> kSectionTitles{"Sequential Reads", "Random Reads",
                                                    "Sequential Writes", "Random Writes"};

constexpr const char* kUnitInformation =
    "\n"
    "Unit information\n"
    "================\n"
    "File size = megabytes (2^20 bytes, 1,048,576 bytes)\n"
    "Blk Size  = bytes\n"
    "Rate      = megabytes per second\n"
    "CPU%      = percentage of CPU used during the test\n"
    "Latency   = milliseconds\n"
    "Lat%      = percent of requests that took longer than X seconds\n"
    "CPU Eff   = Rate divided by CPU% - throughput per cpu load\n";

constexpr const char* kSectionHeader =
    "                              File   Blk   Num                         Avg      Maximum    "
    "  Lat%     Lat%     CPU\n"
    "Identifier                    Size   Size  Thr      Rate     (CPU%)  Latency    Latency    "
    "  >2s      >10s     Eff\n"
    "---------------------------- ------ ------ ---  ------------ ------ --------- -----------  "
    "-------- -------- -------\n";

}  // namespace

double SweepCell::rate_mb_per_s() const noexcept {
  if (wall_ns == 0) return 0;
  return static_cast<double>(bytes) / kBytesPerMegabyte /
         (static_cast<double>(wall_ns) / kNsPerSecond);
}

double SweepCell::cpu_percent() const noexcept {
  if (wall_ns == 0) return 0;
  return 100.0 * cpu_ns_per_thread / static_cast<double>(wall_ns);
}

std::optional<double> SweepCell::cpu_efficiency() const noexcept {
  // Below 0.005 % the CPU prints as 0.00: dividing by it (plus tiobench.pl's epsilon) would
  // print rate x 100000, a number that says nothing about the CPU.
  if (cpu_percent() < kMinCpuPercentForEfficiency) return std::nullopt;
  return rate_mb_per_s() / (cpu_percent() / 100.0 + 0.00001);
}

double SweepCell::mean_latency_ms() const noexcept {
  if (ops == 0) return 0;
  return static_cast<double>(latency_sum_ns) / static_cast<double>(ops) / kNsPerMs;
}

double SweepCell::max_latency_ms() const noexcept {
  return static_cast<double>(latency_max_ns) / kNsPerMs;
}

double SweepCell::percent_over_2s() const noexcept { return percent_of(ops_over_2s, ops); }

double SweepCell::percent_over_10s() const noexcept { return percent_of(ops_over_10s, ops); }

std::vector<SweepRow> aggregate_sweep(const StepResult& step) {
  std::vector<SweepRow> rows;
  for (const PhaseResult& phase : step.phases) {
    const std::optional<SweepPhaseName> name = parse_sweep_phase_name(phase.name);
    if (!name) continue;
    auto row = std::find_if(rows.begin(), rows.end(),
                            [&](const SweepRow& r) { return r.point == name->point; });
    if (row == rows.end()) {
      rows.push_back(SweepRow{name->point, {}, {}});
      row = rows.end() - 1;
    }
    const std::optional<PhaseFigures> figures =
        figures_of(phase, static_cast<std::size_t>(name->point.threads));
    if (!figures) continue;
    const std::size_t k = index_of(name->kind);
    SweepCell& cell = row->cells[k];
    row->present[k] = true;
    if (!figures->measured()) {
      cell.status = worse(cell.status, figures->status);
      continue;
    }
    cell.runs += 1;
    cell.bytes += figures->ops.bytes;
    cell.wall_ns += figures->wall_ns;
    cell.cpu_ns_per_thread += static_cast<double>(figures->cpu.user_ns + figures->cpu.system_ns) /
                              static_cast<double>(std::max<std::uint64_t>(1, name->point.threads));
    cell.ops += figures->ops.ops;
    cell.latency_sum_ns += figures->ops.latency.sum();
    cell.latency_max_ns = std::max(cell.latency_max_ns, figures->ops.latency.max());
    cell.ops_over_2s += figures->ops.ops_over_2s;
    cell.ops_over_10s += figures->ops.ops_over_10s;
  }
  return rows;
}

std::string tiobench_row(const std::string& identifier, const SweepPoint& point,
                         const SweepCell& cell) {
  std::string line = pad_right(perl_text(identifier, 28), 28);
  line += " " + centered_number(point.size_mb, 6);
  line += " " + centered_number(point.block_size, 6);
  line += " " + pad_left(fmt::format("{}", point.threads), 3);
  if (cell.status != Status::kOk) return line + "  " + to_string(cell.status) + ", no figures";
  line += "  " + perl_number(cell.rate_mb_per_s(), 12, 2);
  line += " " + pad_left(perl_text(fmt::sprintf("%.15g", cell.cpu_percent()), 5), 5) + "%";
  line += " " + perl_number(cell.mean_latency_ms(), 9, 3);
  line += " " + perl_number(cell.max_latency_ms(), 11, 2);
  line += "  " + perl_number(cell.percent_over_2s(), 8, 5);
  line += " " + perl_number(cell.percent_over_10s(), 8, 5);
  const std::optional<double> efficiency = cell.cpu_efficiency();
  line += " " + (efficiency ? perl_number(*efficiency, 7, 0) : pad_left("-", 7));
  // Perl's formats drop trailing spaces from each line.
  line.erase(line.find_last_not_of(' ') + 1);
  return line;
}

void format_tiobench_text(const StepResult& step, std::ostream& out) {
  const std::vector<SweepRow> rows = aggregate_sweep(step);
  const std::string identifier = identifier_of(step);
  out << kUnitInformation;
  for (std::size_t s = 0; s < kSectionOrder.size(); ++s) {
    const std::string title = kSectionTitles[s];
    out << "\n" << title << "\n" << repeat('=', title.size()) << "\n";
    bool header_done = false;
    const std::size_t k = index_of(kSectionOrder[s]);
    for (const SweepRow& row : rows) {
      if (!row.present[k]) continue;
      if (!header_done) out << kSectionHeader;
      header_done = true;
      out << tiobench_row(identifier, row.point, row.cells[k]) << "\n";
    }
  }
  for (const PhaseResult& phase : step.phases) {
    if (phase.status == Status::kOk) continue;
    out << fmt::format("{}: {}{}{}\n", phase.name, to_string(phase.status),
                       phase.message.empty() ? "" : ": ", phase.message);
  }
  // The text reporter leaves warnings to the family formatter (e.g. a failed consistency check).
  for (const std::string& warning : step.warnings) out << "WARNING: " << warning << "\n";
}

void format_tiobench_csv_header(const StepResult& /*step*/, std::ostream& out) {
  out << "step,identifier,size_mib,block_bytes,threads,test,runs,rate_mib_per_s,cpu_pct,"
         "avg_latency_ms,max_latency_ms,pct_over_2s,pct_over_10s,cpu_eff\n";
}

void format_tiobench_csv(const StepResult& step, std::ostream& out) {
  const std::string identifier = csv_field(identifier_of(step));
  const std::string name = csv_field(step.name);
  for (const SweepRow& row : aggregate_sweep(step)) {
    for (const PhaseKind kind : kSectionOrder) {
      const std::size_t k = index_of(kind);
      if (!row.present[k]) continue;
      const SweepCell& c = row.cells[k];
      if (c.status != Status::kOk) {
        // No figures for a cell whose phase did not end ok: empty fields, never zeros.
        out << fmt::format("{},{},{},{},{},{},{},,,,,,,\n", name, identifier, row.point.size_mb,
                           row.point.block_size, row.point.threads, terse_key(kind), c.runs);
        continue;
      }
      const std::optional<double> efficiency = c.cpu_efficiency();
      out << fmt::format("{},{},{},{},{},{},{},{:.3f},{:.2f},{:.6f},{:.6f},{:.5f},{:.5f},{}\n",
                         name, identifier, row.point.size_mb, row.point.block_size,
                         row.point.threads, terse_key(kind), c.runs, c.rate_mb_per_s(),
                         c.cpu_percent(), c.mean_latency_ms(), c.max_latency_ms(),
                         c.percent_over_2s(), c.percent_over_10s(),
                         efficiency ? fmt::format("{:.0f}", *efficiency) : std::string());
    }
  }
}

}  // namespace iobench::plugins::tiotest
