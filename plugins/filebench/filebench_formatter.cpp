#include "plugins/filebench/filebench_formatter.hpp"

#include <fmt/format.h>

#include <ostream>
#include <string>
#include <variant>

#include "plugins/filebench/filebench_workload.hpp"

namespace iobench::plugins::filebench {

namespace {

std::string attribute(const StepResult& step, const char* key) {
  for (const auto& [name, value] : step.attributes) {
    if (name == key && std::holds_alternative<std::string>(value))
      return std::get<std::string>(value);
  }
  return {};
}

bool listed(const std::string& list, const std::string& name) {
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find(',', start), list.size());
    if (list.compare(start, end - start, name) == 0 && end > start) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

void format_filebench_text(const StepResult& step, std::ostream& out) {
  constexpr double kMiB = 1024.0 * 1024.0;
  const std::string reads = attribute(step, kReadFlowopsAttr);
  const std::string writes = attribute(step, kWriteFlowopsAttr);
  const std::string others = attribute(step, kOtherFlowopsAttr);
  for (const PhaseResult& phase : step.phases) {
    const double seconds = static_cast<double>(phase.wall_ns) / 1e9;
    const auto per_s = [&](double v) { return seconds > 0 ? v / seconds : 0.0; };
    out << "Per-Operation Breakdown\n";
    std::uint64_t ops = 0;
    std::uint64_t bytes = 0;
    std::uint64_t rd = 0;
    std::uint64_t wr = 0;
    double latency_ns = 0;
    for (std::size_t i = 0; i < phase.ops.size() && i < phase.op_names.size(); ++i) {
      const OpResult& op = phase.ops[i];
      const std::string& name = phase.op_names[i];
      const double mean_ms = op.latency.count() ? op.latency.mean() / 1e6 : 0.0;
      out << fmt::format(
          "{:<20} {}ops {:8.0f}ops/s {:5.1f}mb/s {:8.3f}ms/op [{:.3f}ms - {:5.3f}ms]\n", name,
          op.ops, per_s(static_cast<double>(op.ops)), per_s(static_cast<double>(op.bytes) / kMiB),
          mean_ms, static_cast<double>(op.latency.min()) / 1e6,
          static_cast<double>(op.latency.max()) / 1e6);
      if (listed(others, name)) continue;
      ops += op.ops;
      bytes += op.bytes;
      latency_ns += op.latency.mean() * static_cast<double>(op.latency.count());
      if (listed(reads, name)) rd += op.ops;
      if (listed(writes, name)) wr += op.ops;
    }
    out << fmt::format(
        "IO Summary: {:5d} ops {:5.3f} ops/s {:.0f}/{:.0f} rd/wr {:5.1f}mb/s "
        "{:5.3f}ms/op\n",
        ops, per_s(static_cast<double>(ops)), per_s(static_cast<double>(rd)),
        per_s(static_cast<double>(wr)), per_s(static_cast<double>(bytes) / kMiB),
        rd + wr ? latency_ns / static_cast<double>(rd + wr) / 1e6 : 0.0);
  }
  for (const std::string& w : step.warnings) out << "warning: " << w << '\n';
}

}  // namespace iobench::plugins::filebench
