#include "csv_outputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace iobench::cli {

std::vector<std::string> family_csv_workloads(const SuitePlan& plan, const Registry& registry) {
  std::vector<std::string> names;
  for (const PlannedRun& run : plan.runs) {
    const std::string& workload = run.step.workload;
    if (registry.formatter(workload, "csv") == nullptr) continue;
    if (std::find(names.begin(), names.end(), workload) == names.end()) names.push_back(workload);
  }
  return names;
}

CsvOutputs::CsvOutputs(const SuitePlan& plan, const Registry& registry, const std::string& output,
                       std::ostream& stdout_stream, std::ostream& generic_file,
                       ReporterSet& reporters) {
  const std::vector<std::string> families = family_csv_workloads(plan, registry);
  if (!output.empty()) {
    reporters.add(make_csv_reporter(generic_file, registry));
    for (const std::string& workload : families) {
      std::ostringstream& text = family_text_[family_csv_path(output, workload)];
      reporters.add(make_family_csv_reporter(text, registry, workload));
    }
    return;
  }
  const bool one_workload = std::all_of(plan.runs.begin(), plan.runs.end(), [&](const auto& run) {
    return run.step.workload == plan.runs.front().step.workload;
  });
  if (one_workload && families.size() == 1) {
    reporters.add(make_family_csv_reporter(stdout_stream, registry, families.front()));
    return;
  }
  reporters.add(make_csv_reporter(stdout_stream, registry));
  left_out_ = families;
}

std::vector<std::filesystem::path> CsvOutputs::family_paths() const {
  std::vector<std::filesystem::path> paths;
  for (const auto& [path, text] : family_text_) paths.push_back(path);
  return paths;
}

std::vector<std::string> CsvOutputs::family_texts() const {
  std::vector<std::string> texts;
  for (const auto& entry : family_text_) texts.push_back(entry.second.str());
  return texts;
}

}  // namespace iobench::cli
