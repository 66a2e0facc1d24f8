#include "ranks.hpp"

#include <fmt/format.h>

#include <iobench/error.hpp>

namespace iobench::cli {
namespace {

class RankTableReporter final : public Reporter {
 public:
  RankTableReporter(std::ostream& out, const RankContext& ranks) : out_(out), ranks_(ranks) {}
  void on_step_end(const StepResult& /*step*/) override {
    if (ranks_.steps.size() > printed_) {
      write_rank_table(ranks_.steps.back(), out_);
      printed_ = ranks_.steps.size();
    }
  }

 private:
  std::ostream& out_;
  const RankContext& ranks_;
  std::size_t printed_ = 0;
};

}  // namespace

CliOptions options_for_rank(const CliOptions& given, const RankContext& ranks) {
  CliOptions options = given;
  const RankIdentity& who = ranks.coordinator.identity();
  for (std::string& target : options.targets) target = expand_rank_template(target, who);
  if (!ranks.root()) {
    options.output_path.clear();
    options.html_path.clear();
    options.time_series_csv_path.clear();
    options.live_csv_path.clear();
    options.live = false;  // rank 0's terminal shows rank 0's workers
    options.quiet = true;
  }
  return options;
}

void agree_on_input(RankContext& ranks, const std::string& problem) {
  ranks.input_agreed = true;
  const std::vector<std::string> all = ranks.coordinator.all_gather(problem);
  bool same = true;
  for (const std::string& text : all) same = same && text == all.front();
  if (same) {
    if (!all.front().empty()) throw ConfigError(all.front());
    return;
  }
  std::vector<std::string> lines;
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (!all[r].empty()) lines.push_back(fmt::format("rank {}: {}", r, all[r]));
  }
  throw ConfigError(fmt::format("{}", fmt::join(lines, "\n")));
}

int agree_on_exit(RankContext& ranks, int status) {
  const std::vector<std::string> all = ranks.coordinator.all_gather(std::to_string(status));
  for (const std::string& text : all) {
    if (text != "0") return std::stoi(text);
  }
  return 0;
}

std::unique_ptr<Reporter> make_rank_table_reporter(std::ostream& out, const RankContext& ranks) {
  return std::make_unique<RankTableReporter>(out, ranks);
}

}  // namespace iobench::cli
