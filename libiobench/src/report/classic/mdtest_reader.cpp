// mdtest's text output into a document: one step "mdtest" per "SUMMARY rate" table, one phase
// per row, named as iobench's mdtest workload names its phases ("File creation", "Tree
// removal"), its IOPS the row's Mean (ops/s over the iterations, as mdtest computes it). Two
// layouts (hpc/ior's src/mdtest.c, summarize_results()): 4.x's "SUMMARY rate (in ops/sec): (of N
// iterations)" with rows "   File creation   MAX MIN MEAN STDDEV", and 3.x's (3.3.0) "SUMMARY
// rate: (of N iterations)" with rows "   File creation             :   MAX MIN MEAN STDDEV" (the
// name padded to 26 characters and a colon) and, after a -W run, "File create (stonewall) : NA
// NA RATE NA". A row of 0.000 everywhere is a phase that did not run (mdtest prints every row):
// no phase, never a 0. Max, Min and Std Dev, 3.x's stonewall row and the "SUMMARY time" table are
// listed as not mapped. mdtest -X's line after the tables, "ERROR: verifying the data on read (N
// errors)! ...", gives the step's File read phase the counter "mismatches" = N (as iobench's own
// verify_read counts in that phase; mdtest's N counts the files whose data differ or came back
// short, summed over the ranks and the iterations, --verify-write's creation errors included).
// With several task counts (-f/-l/-s) mdtest's total never resets: each step gets the errors
// its line adds to the one before. 3.x's line carries no count ("ERROR: verifying the data
// read! ..."): listed as not mapped. A result without such a line has no such counter.
#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <iobench/printable.hpp>
#include <system_error>

#include "report/classic/classic_reader.hpp"

namespace iobench::detail::classic {

namespace {

struct Table {
  bool rate = true;
  std::size_t line = 0;
};

// The row's operation: the tokens before its four figures, without 3.x's ":" after the name.
std::string row_name(const std::vector<std::string_view>& tokens) {
  std::size_t end = tokens.size() - 4;
  if (end > 0 && tokens[end - 1] == ":") --end;
  std::string name;
  for (std::size_t k = 0; k < end; ++k) {
    if (!name.empty()) name += ' ';
    name += tokens[k];
  }
  return name;
}

// mdtest -X's "ERROR: verifying the data on read (N errors)! ...": N, or nullopt for another
// line.
std::optional<std::uint64_t> verify_errors(const std::vector<std::string_view>& tokens) {
  if (tokens.size() < 8 || tokens[0] != "ERROR:" || tokens[1] != "verifying") return std::nullopt;
  for (std::size_t k = 2; k + 1 < tokens.size(); ++k) {
    const std::string_view count = tokens[k];
    if (!count.starts_with('(') || !tokens[k + 1].starts_with("errors)")) continue;
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(count.data() + 1, count.data() + count.size(), n);
    if (ec == std::errc() && end == count.data() + count.size() && count.size() > 1) return n;
  }
  return std::nullopt;
}

// The step's File read phase gets mdtest's `errors` as its "mismatches" counter.
void add_mismatches(ResultDocument& document, StepResult* step, std::size_t line,
                    std::uint64_t errors) {
  PhaseResult* read = nullptr;
  if (step != nullptr) {
    for (PhaseResult& phase : step->phases) {
      if (phase.name == "File read") read = &phase;
    }
  }
  if (read == nullptr) {
    not_mapped(document, line,
               fmt::format("mdtest's {} verification errors not mapped: no File read phase "
                           "before them",
                           errors));
    return;
  }
  for (std::size_t i = 0; i < read->counter_names.size(); ++i) {
    if (read->counter_names[i] == "mismatches") {
      read->counters.at(i) = errors;
      return;
    }
  }
  read->counter_names.emplace_back("mismatches");
  read->counters.push_back(errors);
}

}  // namespace

ResultDocument read_mdtest(std::string_view text, std::string_view source) {
  ResultDocument document = classic_document(ResultFormat::kMdtest);
  std::string tasks;
  std::string items;
  std::optional<Table> table;
  StepResult* step = nullptr;
  std::uint64_t errors_before = 0;  // mdtest's running total of verification errors so far
  for (const Line& line : lines_of(text)) {
    const std::vector<std::string_view> tokens = tokens_of(line.text);
    if (tokens.empty() || tokens[0] == "--") {  // a blank line or "-- finished at ..."
      table.reset();
      continue;
    }
    if (tokens[0] == "ERROR:" && tokens.size() > 1 && tokens[1] == "verifying") {
      const std::optional<std::uint64_t> errors = verify_errors(tokens);
      if (!errors) {
        not_mapped(document, line.number,
                   fmt::format("mdtest's data check failed, without a count of errors: '{}'",
                               printable(line.text)));
      } else {
        // mdtest adds up over its task counts: this step's are what the total gained.
        add_mismatches(document, step, line.number,
                       *errors >= errors_before ? *errors - errors_before : *errors);
        errors_before = *errors;
      }
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
      // 4.x: "SUMMARY rate (in ops/sec):"; 3.x: "SUMMARY rate:".
      table = Table{.rate = tokens[1] == "rate" || tokens[1] == "rate:", .line = line.number};
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
    // 3.x's stonewall row: "File create (stonewall)   :  NA  NA  RATE  NA" (its files made by
    // the stonewall over the stonewall time, no phase of its own).
    if (tokens[n - 4] == "NA" && tokens[n - 3] == "NA" && tokens[n - 1] == "NA" &&
        number_of(tokens[n - 2])) {
      if (table->rate) {
        not_mapped(document, line.number,
                   fmt::format("'{}' (the items made by the stonewall over its time) not mapped",
                               row_name(tokens)));
      }
      continue;
    }
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
    const std::string name = row_name(tokens);
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
