#include "plugins/tiotest/tiotest_tables.hpp"

#include <fmt/format.h>

#include <array>
#include <iobench/format.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "plugins/tiotest/step_params.hpp"
#include "plugins/tiotest/table_text.hpp"

namespace iobench::plugins::tiotest {

namespace {

constexpr double kNsPerMs = 1e6;

struct ResultRow {
  std::string label;
  std::string mb;
  std::string time;
  std::string rate;
  std::string usr;
  std::string sys;
};

struct LatencyRow {
  std::string label;
  std::string avg;
  std::string max;
  std::string over_2s;
  std::string over_10s;
};

LatencyRow latency_row(std::string label, const OpResult& ops) {
  PhaseFigures f;
  f.ops = ops;
  return {std::move(label), fmt::format("{:.3f}", f.mean_latency_ms()),
          fmt::format("{:.3f}", f.max_latency_ms()), fmt::format("{:.5f}", f.percent_over_2s()),
          fmt::format("{:.5f}", f.percent_over_10s())};
}

constexpr std::array<double, 5> kPercentiles{50.0, 90.0, 99.0, 99.9, 99.99};
constexpr std::array<const char*, 5> kPercentileNames{"p50", "p90", "p99", "p99.9", "p99.99"};

struct PercentileRow {
  std::string label;
  std::array<std::string, 5> values;
  std::string busy;
};

PercentileRow percentile_row(std::string label, const OpResult& ops, std::string busy) {
  PercentileRow row{std::move(label), {}, std::move(busy)};
  for (std::size_t i = 0; i < kPercentiles.size(); ++i) {
    row.values[i] = fmt::format(
        "{:.4f}", static_cast<double>(ops.latency.percentile(kPercentiles[i])) / kNsPerMs);
  }
  return row;
}

// A phase that did not end ok, in a table `width` characters wide: its label and status word
// across the row, in place of figures that would read as measured (the reason follows the tables).
std::string status_row(const PhaseFigures& p, std::size_t width) {
  const std::string text =
      fmt::format("{}: {}, no figures", phase_label(p.kind), to_string(p.status));
  return "| " + pad_right(text, width > 4 ? width - 4 : 0) + " |\n";
}

}  // namespace

void write_result_table(std::ostream& out, std::span<const PhaseFigures> phases,
                        std::size_t threads) {
  std::vector<ResultRow> rows;
  for (const PhaseFigures& p : phases) {
    if (!p.measured()) continue;  // written as a status line in the loop below
    rows.push_back({phase_label(p.kind), fmt::format("{:.0f}", p.megabytes()),
                    fmt::format("{:.1f}", p.wall_seconds()),
                    fmt::format("{:.3f}", p.rate_mb_per_s()),
                    fmt::format("{:.1f}", p.user_cpu_percent()),
                    fmt::format("{:.1f}", p.system_cpu_percent())});
  }
  // tiotest's widths: label + MB fill 17 characters ("Write %11.0f", "Random Write %4.0f", ...),
  // time %6.1f, rate %7.3f, CPU %5.1f.
  std::size_t item_inner = 17;
  for (const ResultRow& r : rows)
    item_inner = std::max(item_inner, r.label.size() + 1 + r.mb.size());
  const std::size_t item_w = item_inner + 4;  // + " MBs"
  const std::size_t time_w = column_width(rows, 6, [](const ResultRow& r) { return r.time; });
  const std::size_t rate_w = column_width(rows, 7, [](const ResultRow& r) { return r.rate; });
  const std::size_t usr_w = column_width(rows, 5, [](const ResultRow& r) { return r.usr; });
  const std::size_t sys_w = column_width(rows, 5, [](const ResultRow& r) { return r.sys; });

  const std::string rule = "+" + repeat('-', item_w + 2) + "+" + repeat('-', time_w + 4) + "+" +
                           repeat('-', rate_w + 7) + "+" + repeat('-', usr_w + 5) + "+" +
                           repeat('-', sys_w + 4) + "+";
  out << fmt::format("Tiotest results for {} concurrent io threads:\n", threads);
  out << "," << repeat('-', rule.size() - 2) << ".\n";
  out << "| " << pad_right("Item", item_w) << " | " << pad_right("Time", time_w + 2) << " | "
      << pad_right("Rate", rate_w + 5) << " | " << pad_right("Usr CPU ", usr_w + 3) << " | "
      << pad_right("Sys CPU", sys_w + 2) << " |\n";
  out << rule << "\n";
  std::size_t next_row = 0;
  for (const PhaseFigures& p : phases) {
    if (!p.measured()) {
      out << status_row(p, rule.size());
      continue;
    }
    const ResultRow& r = rows[next_row++];
    out << "| " << r.label << repeat(' ', item_inner - r.label.size() - r.mb.size()) << r.mb
        << " MBs | " << pad_left(r.time, time_w) << " s | " << pad_left(r.rate, rate_w)
        << " MB/s | " << pad_left(r.usr, usr_w) << " %  | " << pad_left(r.sys, sys_w) << " % |\n";
  }
  out << "`" << repeat('-', rule.size() - 2) << "'\n";
}

void write_latency_table(std::ostream& out, std::span<const PhaseFigures> phases) {
  std::vector<LatencyRow> rows;
  for (const PhaseFigures& p : phases) {
    if (p.measured()) rows.push_back(latency_row(phase_label(p.kind), p.ops));
  }
  const LatencyRow total = latency_row("Total", pooled_ops(phases));
  std::vector<LatencyRow> all = rows;
  all.push_back(total);

  const std::size_t label_w = column_width(all, 12, [](const LatencyRow& r) { return r.label; });
  const std::size_t avg_w = column_width(all, 12, [](const LatencyRow& r) { return r.avg; });
  const std::size_t max_w = column_width(all, 12, [](const LatencyRow& r) { return r.max; });
  const std::size_t p2_w = column_width(all, 8, [](const LatencyRow& r) { return r.over_2s; });
  const std::size_t p10_w = column_width(all, 9, [](const LatencyRow& r) { return r.over_10s; });

  const std::string inner = repeat('-', label_w + 2) + "+" + repeat('-', avg_w + 5) + "+" +
                            repeat('-', max_w + 5) + "+" + repeat('-', p2_w + 2) + "+" +
                            repeat('-', p10_w + 2);
  const auto write_row = [&](const LatencyRow& r) {
    out << "| " << pad_right(r.label, label_w) << " | " << pad_left(r.avg, avg_w) << " ms | "
        << pad_left(r.max, max_w) << " ms | " << pad_left(r.over_2s, p2_w) << " | "
        << pad_left(r.over_10s, p10_w) << " |\n";
  };
  out << "Tiotest latency results:\n";
  out << "," << repeat('-', inner.size()) << ".\n";
  out << "| " << pad_right("Item", label_w) << " | " << pad_right("Average latency", avg_w + 3)
      << " | " << pad_right("Maximum latency", max_w + 3) << " | " << pad_right("% >2 sec", p2_w)
      << " | " << pad_right("% >10 sec", p10_w) << " |\n";
  out << "+" << inner << "+\n";
  std::size_t next_row = 0;
  for (const PhaseFigures& p : phases) {
    if (p.measured()) {
      write_row(rows[next_row++]);
    } else {
      out << status_row(p, inner.size() + 2);
    }
  }
  out << "|" << inner << "|\n";
  write_row(total);
  out << "`" << inner << "'\n\n";
}

void write_percentile_table(std::ostream& out, std::span<const PhaseFigures> phases) {
  std::vector<PercentileRow> all;
  for (const PhaseFigures& p : phases) {
    if (!p.measured()) continue;
    all.push_back(
        percentile_row(phase_label(p.kind), p.ops, fmt::format("{:.1f} %", p.system_busy_percent)));
  }
  all.push_back(percentile_row("Total", pooled_ops(phases), ""));

  const std::size_t label_w = column_width(all, 12, [](const PercentileRow& r) { return r.label; });
  std::array<std::size_t, 5> value_w{};
  for (std::size_t i = 0; i < value_w.size(); ++i) {
    value_w[i] = column_width(all, 9, [i](const PercentileRow& r) { return r.values[i]; });
  }
  const std::size_t busy_w = column_width(all, 8, [](const PercentileRow& r) { return r.busy; });

  std::string inner = repeat('-', label_w + 2);
  for (const std::size_t w : value_w) inner += "+" + repeat('-', w + 2);
  inner += "+" + repeat('-', busy_w + 2);
  const auto write_row = [&](const PercentileRow& r) {
    out << "| " << pad_right(r.label, label_w);
    for (std::size_t i = 0; i < value_w.size(); ++i)
      out << " | " << pad_left(r.values[i], value_w[i]);
    out << " | " << pad_left(r.busy, busy_w) << " |\n";
  };
  out << "Latency percentiles (ms) and system CPU busy (% of all CPUs):\n";
  out << "," << repeat('-', inner.size()) << ".\n";
  out << "| " << pad_right("Item", label_w);
  for (std::size_t i = 0; i < value_w.size(); ++i) {
    out << " | " << pad_left(kPercentileNames[i], value_w[i]);
  }
  out << " | " << pad_right("Sys busy", busy_w) << " |\n";
  out << "+" << inner << "+\n";
  std::size_t next_row = 0;
  for (const PhaseFigures& p : phases) {
    if (p.measured()) {
      write_row(all[next_row++]);
    } else {
      out << status_row(p, inner.size() + 2);
    }
  }
  out << "|" << inner << "|\n";
  write_row(all.back());
  out << "`" << inner << "'\n\n";
}

void write_terse(std::ostream& out, std::span<const PhaseFigures> phases, std::size_t threads) {
  const double per_thread = threads == 0 ? 1.0 : static_cast<double>(threads);
  for (const PhaseKind kind : kAllPhaseKinds) {
    const PhaseFigures* found = nullptr;
    for (const PhaseFigures& p : phases) {
      if (p.kind == kind) found = &p;
    }
    if (found == nullptr) {
      out << terse_key(kind)
          << ":0.00000,0.00000,0.00000,0.00000,0.00000,0.00000,0.00000,0.00000\n";
      continue;
    }
    const PhaseFigures& p = *found;
    if (!p.measured()) {
      out << terse_key(kind) << ":" << to_string(p.status) << "\n";
      continue;
    }
    out << fmt::format("{}:{:.5f},{:.5f},{:.5f},{:.5f},{:.5f},{:.5f},{:.5f},{:.5f}\n",
                       terse_key(kind), p.megabytes(), p.wall_seconds(),
                       static_cast<double>(p.cpu.user_ns) / 1e9 / per_thread,
                       static_cast<double>(p.cpu.system_ns) / 1e9 / per_thread, p.mean_latency_ms(),
                       p.max_latency_ms(), p.percent_over_2s(), p.percent_over_10s());
  }
  PhaseFigures total;
  total.ops = pooled_ops(phases);
  out << fmt::format("total:{:.5f},{:.5f},{:.5f},{:.5f}\n", total.mean_latency_ms(),
                     total.max_latency_ms(), total.percent_over_2s(), total.percent_over_10s());
}

std::vector<PhaseFigures> tiotest_figures(const StepResult& step, std::size_t threads) {
  std::vector<PhaseFigures> figures;
  for (const PhaseResult& phase : step.phases) {
    if (auto f = figures_of(phase, threads)) figures.push_back(std::move(*f));
  }
  return figures;
}

void format_tiotest_text(const StepResult& step, std::ostream& out) {
  const std::size_t threads = step_threads(step);
  const std::vector<PhaseFigures> figures = tiotest_figures(step, threads);
  if (param_bool(step, "terse", false)) {
    write_terse(out, figures, threads);
  } else {
    write_result_table(out, figures, threads);
    if (param_bool(step, "latency_table", true)) write_latency_table(out, figures);
    if (param_bool(step, "percentiles", true)) write_percentile_table(out, figures);
    out << "Units: MB = 2^20 bytes (MiB), latency in ms, CPU in % of one CPU per thread.\n";
  }
  for (const PhaseResult& phase : step.phases) {
    if (phase.status == Status::kOk) continue;
    out << fmt::format("{}: {}{}{}\n", phase.name, to_string(phase.status),
                       phase.message.empty() ? "" : ": ", phase.message);
  }
  // The text reporter leaves warnings to the family formatter (e.g. a failed consistency check).
  for (const std::string& warning : step.warnings) out << "WARNING: " << warning << "\n";
}

void format_tiotest_csv_header(const StepResult& /*step*/, std::ostream& out) {
  out << "step,item,mib,real_s,usr_cpu_pct,sys_cpu_pct,rate_mib_per_s,avg_latency_ms,"
         "max_latency_ms,pct_over_2s,pct_over_10s,p50_ms,p90_ms,p99_ms,p99_9_ms,p99_99_ms,"
         "system_busy_pct\n";
}

void format_tiotest_csv(const StepResult& step, std::ostream& out) {
  const std::size_t threads = step_threads(step);
  const std::vector<PhaseFigures> figures = tiotest_figures(step, threads);
  const std::string name = csv_field(step.name);
  const auto percentiles = [](const OpResult& ops) {
    std::string text;
    for (const double p : kPercentiles) {
      text += fmt::format(",{:.6f}", static_cast<double>(ops.latency.percentile(p)) / kNsPerMs);
    }
    return text;
  };
  for (const PhaseFigures& p : figures) {
    if (!p.measured()) {
      // No figures for a phase that did not end ok: empty fields, never zeros.
      out << fmt::format("{},{},,,,,,,,,,,,,,,\n", name, phase_label(p.kind));
      continue;
    }
    out << fmt::format("{},{},{:.5f},{:.5f},{:.2f},{:.2f},{:.3f},{:.6f},{:.6f},{:.5f},{:.5f}", name,
                       phase_label(p.kind), p.megabytes(), p.wall_seconds(), p.user_cpu_percent(),
                       p.system_cpu_percent(), p.rate_mb_per_s(), p.mean_latency_ms(),
                       p.max_latency_ms(), p.percent_over_2s(), p.percent_over_10s())
        << percentiles(p.ops) << fmt::format(",{:.1f}\n", p.system_busy_percent);
  }
  const OpResult total = pooled_ops(figures);
  PhaseFigures pooled;
  pooled.ops = total;
  out << fmt::format("{},Total,,,,,,{:.6f},{:.6f},{:.5f},{:.5f}", name, pooled.mean_latency_ms(),
                     pooled.max_latency_ms(), pooled.percent_over_2s(), pooled.percent_over_10s())
      << percentiles(total) << ",\n";
}

}  // namespace iobench::plugins::tiotest
