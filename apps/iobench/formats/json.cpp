// --format json: the result document (run, validate), comparison_to_json (compare), the run
// list as an array of objects (history).
#include <iobench/compare.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#include "output_formats.hpp"

namespace iobench::cli {
namespace {

class JsonRunOutput final : public RunOutput {
 public:
  [[nodiscard]] bool wants_document() const override { return true; }
  void write(const std::string& document, std::ostream& machine) override {
    machine << document << '\n';
  }
};

std::unique_ptr<RunOutput> make_run_output() { return std::make_unique<JsonRunOutput>(); }

void write_comparison(const Comparison& comparison, std::ostream& out) {
  out << comparison_to_json(comparison) << '\n';
}

void write_history(const std::vector<HistoryRun>& runs, std::ostream& out) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const HistoryRun& r : runs) {
    list.push_back({{"id", r.id},
                    {"stored_at", r.stored_at},
                    {"started_at", r.started_at},
                    {"hostname", r.hostname},
                    {"kernel", r.kernel},
                    {"fs_type", r.fs_type},
                    {"target", r.target},
                    {"suite", r.suite},
                    {"workloads", r.workloads},
                    {"status", r.status},
                    {"iobench_version", r.iobench_version}});
  }
  out << list.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

}  // namespace

OutputFormat json_output_format() {
  return OutputFormat{.name = "json",
                      .run = make_run_output,
                      .compare = write_comparison,
                      .history = write_history};
}

}  // namespace iobench::cli
