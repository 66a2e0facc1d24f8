#include "explain/phase_observer.hpp"

#include <iobench/metrics.hpp>

namespace iobench::explain {

ApplicationFigures application_figures(const PhaseResult& phase) {
  ApplicationFigures app;
  for (std::size_t k = 0; k < phase.op_names.size() && k < phase.ops.size(); ++k) {
    const std::string& name = phase.op_names[k];
    if (name.find("read") != std::string::npos) app.read_bytes += phase.ops[k].bytes;
    if (name.find("write") != std::string::npos) app.write_bytes += phase.ops[k].bytes;
  }
  app.workers = phase.workers.size();
  app.workers_cpu_percent =
      cpu_percent(phase.workers_cpu.user_ns + phase.workers_cpu.system_ns, phase.wall_ns);
  return app;
}

PhaseObserver::PhaseObserver(std::span<const Target> targets) {
  chains_.reserve(targets.size());
  for (const Target& target : targets) chains_.push_back(describe_storage(target.user_path));
  devices_ = chain_device_names(chains_);
  start_ = take_snapshot(devices_);
}

void PhaseObserver::finish(PhaseResult& phase) const {
  const SystemSnapshot end = take_snapshot(devices_);
  phase.explanation = explain_phase(chains_, start_, end, application_figures(phase));
}

}  // namespace iobench::explain
