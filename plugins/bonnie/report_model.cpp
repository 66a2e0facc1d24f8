#include "plugins/bonnie/report_model.hpp"

#include <algorithm>
#include <span>

namespace iobench::plugins::bonnie {
namespace {

constexpr double kNsPerSecond = 1e9;

/// Rates of the per-char and block phases are in KiB/s; the others count operations.
bool rate_in_kib(PhaseId id) { return index_of(id) < index_of(PhaseId::kSeeks); }

}  // namespace

Cell make_cell(PhaseId id, std::span<const WorkerResult> workers) {
  Cell cell;
  std::uint64_t elapsed_ns = 0;
  std::uint64_t cpu_ns = 0;
  std::uint64_t bytes = 0;
  std::uint64_t ops = 0;
  for (const WorkerResult& w : workers) {
    if (w.status != Status::kOk) return Cell{};
    elapsed_ns = std::max(elapsed_ns, w.elapsed_ns);
    cpu_ns += w.cpu.user_ns + w.cpu.system_ns;
    for (const OpResult& op : w.ops) {
      bytes += op.bytes;
      ops += op.ops;
      cell.latency_ns = std::max(cell.latency_ns, op.latency.max());
    }
  }
  if (workers.empty() || elapsed_ns == 0) return Cell{};
  const double seconds = static_cast<double>(elapsed_ns) / kNsPerSecond;
  const double amount =
      rate_in_kib(id) ? static_cast<double>(bytes) / 1024.0 : static_cast<double>(ops);
  cell.rate = amount / seconds;
  cell.cpu_percent = static_cast<int>(static_cast<double>(cpu_ns) / kNsPerSecond / seconds * 100.0);
  cell.state = elapsed_ns < kMinTimeNs ? Cell::State::kTooFast : Cell::State::kValue;
  return cell;
}

Cell sum_cells(std::span<const Cell> cells) {
  Cell sum;
  sum.state = Cell::State::kValue;
  for (const Cell& c : cells) {
    if (c.state == Cell::State::kNotRun) return Cell{};
    if (c.state == Cell::State::kTooFast) sum.state = Cell::State::kTooFast;
    sum.rate += c.rate;
    sum.cpu_percent += c.cpu_percent;
    sum.latency_ns = std::max(sum.latency_ns, c.latency_ns);
  }
  if (cells.empty()) return Cell{};
  return sum;
}

Report build_report(const StepResult& step) {
  Report report;
  report.header = read_report_header(step);
  const ReportHeader& h = report.header;
  const std::uint32_t copies = h.copies;

  // rows[(rep - 1) * rows_per_rep + copy], the sum row last in each repetition.
  const std::uint32_t rows_per_rep = copies > 1 ? copies + 1 : copies;
  report.rows.resize(static_cast<std::size_t>(rows_per_rep) * h.repetitions);
  for (std::uint32_t rep = 1; rep <= h.repetitions; ++rep) {
    for (std::uint32_t r = 0; r < rows_per_rep; ++r) {
      ReportRow& row = report.rows[(rep - 1) * rows_per_rep + r];
      row.repetition = rep;
      row.is_sum = copies > 1 && r == copies;
      row.name = copies > 1 && !row.is_sum ? h.machine + "." + std::to_string(r + 1) : h.machine;
    }
  }

  for (const PhaseResult& phase : step.phases) {
    const auto planned = parse_planned_phase_name(phase.name);
    if (!planned || planned->repetition > h.repetitions || phase.status != Status::kOk) continue;
    const PhaseId id = planned->id;
    const std::size_t per_copy = id == PhaseId::kSeeks ? h.seekers : 1;
    if (phase.workers.size() != per_copy * copies) continue;
    // Workers are normally listed by index already; copy (histograms are large) only if not.
    const auto by_index = [](const WorkerResult& a, const WorkerResult& b) {
      return a.index < b.index;
    };
    std::vector<WorkerResult> sorted;
    std::span<const WorkerResult> workers = phase.workers;
    if (!std::is_sorted(workers.begin(), workers.end(), by_index)) {
      sorted = phase.workers;
      std::sort(sorted.begin(), sorted.end(), by_index);
      workers = sorted;
    }
    std::vector<Cell> copy_cells;
    for (std::uint32_t c = 0; c < copies; ++c) {
      const Cell cell = make_cell(id, workers.subspan(c * per_copy, per_copy));
      copy_cells.push_back(cell);
      report.rows[(planned->repetition - 1) * rows_per_rep + c].cells[index_of(id)] = cell;
    }
    if (copies > 1) {
      report.rows[(planned->repetition - 1) * rows_per_rep + copies].cells[index_of(id)] =
          sum_cells(copy_cells);
    }
  }
  return report;
}

}  // namespace iobench::plugins::bonnie
