#include "plugins/disk/pts_formatter.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cstdint>
#include <iobench/format.hpp>
#include <ostream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "plugins/disk/pts_config.hpp"

namespace iobench::plugins::disk {
namespace {

std::string text_of(const StepResult& step, const std::string& key) {
  const AttributeValue* value = step.attribute(key);
  if (value == nullptr) return {};
  if (const auto* text = std::get_if<std::string>(value)) return *text;
  if (const auto* whole = std::get_if<std::int64_t>(value)) return std::to_string(*whole);
  return fmt::format("{:g}", std::get<double>(*value));
}

double number_of(const StepResult& step, const std::string& key) {
  const AttributeValue* value = step.attribute(key);
  if (value == nullptr) return 0;
  if (const auto* whole = std::get_if<std::int64_t>(value)) return static_cast<double>(*whole);
  if (const auto* real = std::get_if<double>(value)) return *real;
  return 0;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (!text.empty()) {
    const std::size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parts;
}

void print_conditions(const StepResult& step, std::ostream& out) {
  const std::string valid = text_of(step, "pts.valid");
  if (valid == "yes") {
    fmt::print(out, "PTS-valid (as far as its settings go)\n");
  } else {
    fmt::print(out, "not PTS-valid: {}\n", text_of(step, "pts.not_valid"));
  }
  fmt::print(out, "Test conditions:\n");
  fmt::print(out, "  device:           {}\n", text_of(step, "pts.condition.device"));
  if (const std::string id = text_of(step, "destructive.0"); !id.empty()) {
    fmt::print(out, "  identity:         {}\n", id);
  }
  const std::string model = text_of(step, "pts.condition.model");
  const std::string firmware = text_of(step, "pts.condition.firmware");
  fmt::print(out, "  model:            {}\n", model.empty() ? "(sysfs has none)" : model);
  fmt::print(out, "  firmware:         {}\n", firmware.empty() ? "(sysfs has none)" : firmware);
  const double capacity = number_of(step, "pts.condition.capacity_bytes");
  fmt::print(out, "  capacity:         {:.0f} bytes ({})\n", capacity,
             capacity >= (1ULL << 30) ? fmt::format("{:.1f} GiB", capacity / (1ULL << 30))
                                      : fmt::format("{:.1f} MiB", capacity / (1ULL << 20)));
  fmt::print(out, "  purge:            {}\n", text_of(step, "pts.condition.purge"));
  fmt::print(out, "  preconditioning:  {}\n", text_of(step, "pts.condition.precondition"));
  // PTS's report states the workload-dependent preconditioning (the rounds to steady state).
  if (const std::string wdpc = text_of(step, "pts.condition.wdpc"); !wdpc.empty()) {
    fmt::print(out, "  workload-dependent preconditioning: {}\n", wdpc);
  }
  if (text_of(step, "pts.test") == "dirth") {
    fmt::print(out, "  threads/QD/OIO:   TC {} x QD {} (OIO {}), largest OIO first each round\n",
               text_of(step, "pts.threads"), text_of(step, "pts.depths"),
               text_of(step, "pts.condition.oio"));
  } else {
    fmt::print(out, "  threads/QD/OIO:   TC{} QD{} (OIO {})\n",
               text_of(step, "pts.condition.threads"), text_of(step, "pts.condition.queue_depth"),
               text_of(step, "pts.condition.oio"));
  }
  fmt::print(out, "  access:           {}, {}, engine {}, {} per cell per round\n",
             text_of(step, "pts.access"), text_of(step, "pts.condition.io"), step.engine,
             format_duration(static_cast<std::uint64_t>(number_of(step, "pts.round_time_ns"))));
}

void print_steady_state(const StepResult& step, std::ostream& out) {
  const auto rounds = static_cast<std::size_t>(number_of(step, "pts.rounds"));
  const auto first = static_cast<std::size_t>(number_of(step, "pts.window.first_round"));
  const auto last = static_cast<std::size_t>(number_of(step, "pts.window.last_round"));
  fmt::print(out, "Steady state, tracking {} ({} rounds run, at most {}):\n",
             text_of(step, "pts.tracked"), rounds, text_of(step, "pts.max_rounds"));
  const bool wsat = text_of(step, "pts.test") == "wsat";
  const double capacity = number_of(step, "pts.condition.capacity_bytes");
  for (std::size_t round = 1; round <= rounds; ++round) {
    const bool in_window = first != 0 && round >= first && round <= last;
    // WSAT: IOPS over time and over the bytes written so far (in drive fills).
    const double written = number_of(step, fmt::format("pts.round.{}.written_bytes", round));
    fmt::print(out, "  round {:>2}  {:>14.1f}{}{}\n", round,
               number_of(step, fmt::format("pts.round.{}.tracked", round)),
               wsat ? fmt::format("  written {:.0f} bytes ({:.2f} x capacity)", written,
                                  written / capacity)
                    : std::string(),
               in_window ? "  (window)" : "");
  }
  if (first != 0) {
    fmt::print(out,
               "  window rounds {}-{}: mean {:.1f}; data excursion {:.2f} % (limit {:g} %); "
               "best-fit slope {:.2f} per round, excursion {:.2f} % (limit {:g} %)\n",
               first, last, number_of(step, "pts.window.mean"),
               number_of(step, "pts.window.data_excursion_percent"),
               number_of(step, "pts.window.data_excursion_limit_percent"),
               number_of(step, "pts.window.slope_per_round"),
               number_of(step, "pts.window.fit_excursion_percent"),
               number_of(step, "pts.window.fit_excursion_limit_percent"));
  } else {
    fmt::print(out, "  fewer than 5 rounds: no steady-state window\n");
  }
  if (text_of(step, "pts.steady") == "yes") {
    fmt::print(out, "steady: yes after {} rounds\n", text_of(step, "pts.steady_after_rounds"));
  } else {
    fmt::print(out, "steady: no\n");
  }
}

// One matrix: rows block sizes, columns mixes, `value` of each cell's attribute `field`.
void print_matrix(const StepResult& step, std::ostream& out, const std::string& title,
                  const std::string& field, double scale, const char* format) {
  const std::vector<std::string> mixes = split(text_of(step, "pts.mixes"));
  const std::vector<std::string> sizes = split(text_of(step, "pts.block_sizes"));
  fmt::print(out, "{}\n  {:>10}", title, "BS \\ R/W");
  for (const std::string& mix : mixes) fmt::print(out, " {:>12}", mix);
  fmt::print(out, "\n");
  for (const std::string& size : sizes) {
    fmt::print(out, "  {:>10}", pts_block_size_text(std::stoull(size)));
    for (const std::string& mix : mixes) {
      const double value = number_of(step, fmt::format("pts.cell.{}.{}.{}", mix, size, field));
      fmt::print(out, " {:>12}", fmt::format(fmt::runtime(format), value * scale));
    }
    fmt::print(out, "\n");
  }
}

// DIRTH: the demand intensity table (rows TC, then QD, ascending: each TC's IOPS against its
// mean response time), the max-IOPS and minimum-response-time points and their histograms.
void print_dirth(const StepResult& step, std::ostream& out, const std::string& over) {
  fmt::print(out,
             "Demand intensity, mean over {}:\n  {:>5} {:>5} {:>6} {:>14} {:>10} {:>10} {:>10}\n",
             over, "TC", "QD", "OIO", "IOPS", "ART ms", "p99 ms", "MRT ms");
  for (const std::string& threads : split(text_of(step, "pts.threads"))) {
    for (const std::string& depth : split(text_of(step, "pts.depths"))) {
      const std::string key = fmt::format("pts.cell.TC{}.QD{}.", threads, depth);
      fmt::print(out, "  {:>5} {:>5} {:>6} {:>14.1f} {:>10.4f} {:>10.4f} {:>10.4f}\n", threads,
                 depth, std::stoull(threads) * std::stoull(depth), number_of(step, key + "iops"),
                 number_of(step, key + "mean_latency_ns") * 1e-6,
                 number_of(step, key + "p99_latency_ns") * 1e-6,
                 number_of(step, key + "max_latency_ns") * 1e-6);
    }
  }
  for (const auto& [name, title] :
       {std::pair<const char*, const char*>{"max_iops", "max IOPS point"},
        std::pair<const char*, const char*>{"min_latency", "min response time point"}}) {
    const std::string key = fmt::format("pts.dirth.{}.", name);
    fmt::print(out, "{}: TC{} QD{} (OIO {}): {:.1f} IOPS, ART {:.4f} ms\n", title,
               text_of(step, key + "threads"), text_of(step, key + "queue_depth"),
               text_of(step, key + "oio"), number_of(step, key + "iops"),
               number_of(step, key + "mean_latency_ns") * 1e-6);
  }
  for (const auto& [name, title] :
       {std::pair<const char*, const char*>{"max_iops", "max IOPS point"},
        std::pair<const char*, const char*>{"min_latency", "min response time point"}}) {
    const std::string key = fmt::format("pts.dirth.{}.", name);
    fmt::print(out,
               "Response-time histogram at the {} (TC{} QD{}), {}:\n  {:>12} {:>12} {:>12} {:>8}\n",
               title, text_of(step, key + "threads"), text_of(step, key + "queue_depth"), over,
               "from us", "to us", "ops", "%");
    std::vector<std::pair<std::uint64_t, std::uint64_t>> bins;
    std::uint64_t total = 0;
    for (const std::string& bin : split(text_of(step, key + "histogram"))) {
      const std::size_t colon = bin.find(':');
      bins.emplace_back(std::stoull(bin.substr(0, colon)), std::stoull(bin.substr(colon + 1)));
      total += bins.back().second;
    }
    for (const auto& [lower, ops] : bins) {
      fmt::print(out, "  {:>12.3f} {:>12.3f} {:>12} {:>8.2f}\n", static_cast<double>(lower) * 1e-3,
                 static_cast<double>(lower == 0 ? 1 : 2 * lower) * 1e-3, ops,
                 100.0 * static_cast<double>(ops) / static_cast<double>(total));
    }
  }
}

}  // namespace

void format_pts_text(const StepResult& step, std::ostream& out) {
  const std::string test = text_of(step, "pts.test");
  fmt::print(out, "SNIA PTS 2.0 {} test\n",
             test == "iops"         ? "IOPS"
             : test == "throughput" ? "throughput"
             : test == "wsat"       ? "write saturation (WSAT)"
             : test == "dirth"      ? "demand intensity / response time histogram (DIRTH)"
                                    : "latency");
  print_conditions(step, out);
  if (number_of(step, "pts.rounds") > 0) {
    print_steady_state(step, out);
    const std::string over =
        number_of(step, "pts.window.first_round") > 0
            ? fmt::format("rounds {}-{}", text_of(step, "pts.window.first_round"),
                          text_of(step, "pts.window.last_round"))
            : std::string("every round run");
    if (test == "dirth") {
      print_dirth(step, out, over);
    } else if (test == "wsat") {
      fmt::print(out, "written {} bytes of the {} (4 x capacity) WSAT writes\n",
                 text_of(step, "pts.wsat.written_bytes"), text_of(step, "pts.wsat.target_bytes"));
    } else if (test == "throughput") {
      print_matrix(step, out, fmt::format("Throughput, MB/s (10^6 bytes/s), mean over {}:", over),
                   "throughput_bytes_per_s", 1e-6, "{:.1f}");
    } else if (test == "latency") {
      print_matrix(step, out, fmt::format("Mean latency, ms, over {}:", over), "mean_latency_ns",
                   1e-6, "{:.4f}");
      print_matrix(step, out, fmt::format("p99 latency, ms, over {}:", over), "p99_latency_ns",
                   1e-6, "{:.4f}");
      print_matrix(step, out, fmt::format("Max latency, ms, over {}:", over), "max_latency_ns",
                   1e-6, "{:.4f}");
    } else {
      print_matrix(step, out, fmt::format("IOPS, mean over {}:", over), "iops", 1.0, "{:.1f}");
    }
  }
  for (const std::string& warning : step.warnings) fmt::print(out, "WARNING: {}\n", warning);
}

}  // namespace iobench::plugins::disk
