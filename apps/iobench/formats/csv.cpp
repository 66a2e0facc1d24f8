// --format csv: the generic rows and each workload's own CSV (run, validate; CsvOutputs),
// write_comparison_csv (compare), the run list with a header line (history).
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <iobench/error.hpp>
#include <iobench/printable.hpp>
#include <memory>
#include <optional>
#include <ostream>

#include "csv_outputs.hpp"
#include "output_file.hpp"
#include "output_formats.hpp"

namespace iobench::cli {
namespace {

class CsvRunOutput final : public RunOutput {
 public:
  void prepare(const RunOutputTarget& target, ReporterSet& reporters) override {
    csv_.emplace(target.plan, target.registry, target.output_path, target.stdout_stream,
                 target.file_text, reporters);
    for (const std::filesystem::path& path : csv_->family_paths()) {
      family_outputs_.push_back(std::make_unique<OutputFile>(path.string()));
    }
    if (!csv_->left_out().empty()) {
      fmt::print(target.err,
                 "iobench: CSV on stdout holds the generic rows of every step; the own CSV of "
                 "{} is written with -o FILE.csv (as FILE.<workload>.csv)\n",
                 fmt::join(csv_->left_out(), ", "));
    }
  }

  [[nodiscard]] bool commit_files(std::ostream& err) override {
    if (!csv_) return true;
    const std::vector<std::string> texts = csv_->family_texts();
    for (std::size_t i = 0; i < family_outputs_.size() && i < texts.size(); ++i) {
      try {
        family_outputs_[i]->commit(texts[i]);
      } catch (const Error& e) {
        fmt::print(err, "iobench: cannot write {}: {}\n",
                   printable(family_outputs_[i]->path().string()), printable(e.what()));
        return false;
      }
    }
    return true;
  }

 private:
  std::optional<CsvOutputs> csv_;
  std::vector<std::unique_ptr<OutputFile>> family_outputs_;
};

std::unique_ptr<RunOutput> make_run_output() { return std::make_unique<CsvRunOutput>(); }

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

void write_history(const std::vector<HistoryRun>& runs, std::ostream& out) {
  out << "id,stored_at,started_at,hostname,kernel,fs_type,target,suite,workloads,status,"
         "iobench_version\n";
  for (const HistoryRun& r : runs) {
    out << r.id;
    for (const std::string* field :
         {&r.stored_at, &r.started_at, &r.hostname, &r.kernel, &r.fs_type, &r.target, &r.suite,
          &r.workloads, &r.status, &r.iobench_version}) {
      out << ',' << csv_field(*field);
    }
    out << '\n';
  }
}

}  // namespace

OutputFormat csv_output_format() {
  return OutputFormat{.name = "csv",
                      .run = make_run_output,
                      .compare = write_comparison_csv,
                      .history = write_history};
}

}  // namespace iobench::cli
