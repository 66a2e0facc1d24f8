// mdtest's text output (hpc/ior mdtest 4.x; 3.x's "SUMMARY rate: (of N iterations)" layout is not
// read, and is refused as having no table) into a document: one step "mdtest" per
// "SUMMARY rate" table, one phase per row, named as iobench's mdtest workload names its phases
// ("File creation", "Tree removal"), its IOPS the row's Mean (ops/s over the iterations, as
// mdtest computes it). A row of 0.000 everywhere is a phase that did not run (mdtest prints every
// row): no phase, never a 0. Max, Min and Std Dev and the "SUMMARY time" table are listed as
// not mapped.
#include <fmt/format.h>

#include <iobench/printable.hpp>

#include "report/classic/classic_reader.hpp"

namespace iobench::detail::classic {

namespace {

struct Table {
  bool rate = true;
  std::size_t line = 0;
};

}  // namespace

ResultDocument read_mdtest(std::string_view text, std::string_view source) {
  ResultDocument document = classic_document(ResultFormat::kMdtest);
  std::string tasks;
  std::string items;
  std::optional<Table> table;
  StepResult* step = nullptr;
  for (const Line& line : lines_of(text)) {
    const std::vector<std::string_view> tokens = tokens_of(line.text);
    if (tokens.empty() || tokens[0] == "--") {  // a blank line or "-- finished at ..."
      table.reset();
      continue;
    }
    // "mdtest-4.1.0+dev was launched with 2 total task(s) on 1 node(s)"
    if (tokens[0].starts_with("mdtest-") && tokens.size() > 4 && tokens[1] == "was") {
      document.source->tool_version = std::string(tokens[0].substr(7));
      continue;
    }
    // "2 tasks, 40 files/directories"
    if (tokens.size() >= 3 && tokens[1] == "tasks," && number_of(tokens[0])) {
      tasks = std::string(tokens[0]);
      items = std::string(tokens[2]);
      continue;
    }
    if (tokens[0] == "SUMMARY" && tokens.size() > 1) {
      table = Table{.rate = tokens[1] == "rate", .line = line.number};
      if (table->rate) {
        step = &add_step(document, "mdtest", "mdtest");
        if (!tasks.empty()) step->params["ranks"] = tasks;
        if (!items.empty()) step->params["items_total"] = items;
      } else {
        not_mapped(document, line.number,
                   "SUMMARY time table (each phase's duration) not mapped: the phases' rates are");
      }
      continue;
    }
    if (!table || tokens[0] == "Operation" || tokens[0].starts_with("---")) continue;
    if (tokens.size() < 5) {
      fail(source, line.number,
           fmt::format("expected an mdtest SUMMARY row 'NAME MAX MIN MEAN STDDEV', got '{}'",
                       printable(line.text)));
    }
    const std::size_t n = tokens.size();
    const auto max = number_of(tokens[n - 4]);
    const auto min = number_of(tokens[n - 3]);
    const auto mean = number_of(tokens[n - 2]);
    const auto stddev = number_of(tokens[n - 1]);
    if (!max || !min || !mean || !stddev) {
      fail(source, line.number,
           fmt::format("expected an mdtest SUMMARY row 'NAME MAX MIN MEAN STDDEV', got '{}'",
                       printable(line.text)));
    }
    if (!table->rate || step == nullptr) continue;
    if (*max == 0 && *min == 0 && *mean == 0) continue;  // a phase mdtest did not run
    std::string name;
    for (std::size_t k = 0; k + 4 < n; ++k) {
      if (!name.empty()) name += ' ';
      name += tokens[k];
    }
    PhaseResult& phase = add_phase(*step, name);
    figures(phase).iops = figure(*mean);
    not_mapped(
        document, line.number,
        fmt::format("'{}' Max, Min and Std Dev over the iterations not mapped (Mean is)", name));
  }
  if (document.run.steps.empty()) {
    fail(source, 1, "expected mdtest's 'SUMMARY rate (in ops/sec)' table, found none");
  }
  place_repetitions(document);
  return document;
}

}  // namespace iobench::detail::classic
