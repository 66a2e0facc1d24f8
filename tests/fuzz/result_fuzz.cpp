// Fuzz target: result documents through parse_result_json (iobench/result_json.hpp), as tools
// that load saved results and `iobench run --again` read them, then printed again by every
// reporter and family formatter, as a tool prints a loaded result.
//
// Invariants: only ConfigError is thrown (the reader's ResultFormatError: its message starts
// with the JSON pointer it names); a document read and written again is a fixed point: that
// text reads back and writes byte for byte the same; the text, CSV and JSON reporters (with
// each family's formatters) print what was read, throwing nothing but ConfigError; so does
// repeat_plan.
#include <iobench/error.hpp>
#include <iobench/registry.hpp>
#include <iobench/reporter.hpp>
#include <iobench/result_json.hpp>
#include <iobench/workloads.hpp>
#include <optional>
#include <sstream>
#include <string>

#include "tests/fuzz/fuzz_check.hpp"

namespace {

const iobench::Registry& registry() {
  static const iobench::Registry instance = iobench::make_builtin_registry();
  return instance;
}

// Prints `run` through `reporter` as a run does; a ConfigError (a formatter refusing a step it
// cannot print) is an answer, anything else escapes and fails the target.
void print(const iobench::RunResult& run, iobench::Reporter& reporter) {
  try {
    reporter.on_run_start(run.environment);
    for (const iobench::StepResult& step : run.steps) reporter.on_step_end(step);
    reporter.on_run_end(run);
  } catch (const iobench::ConfigError& e) {
    FUZZ_CHECK(*e.what() != '\0', "empty message");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = iobench::fuzz::as_text(data, size);
  std::optional<iobench::ResultDocument> document;
  try {
    document = iobench::parse_result_json(text);
  } catch (const iobench::ResultFormatError& e) {
    FUZZ_CHECK(std::string_view(e.what()).starts_with(e.pointer()), e.what());
    return 0;
  } catch (const iobench::ConfigError& e) {
    FUZZ_CHECK(*e.what() != '\0', "empty message");
    return 0;
  }

  const std::string written = iobench::to_json(*document);
  try {
    const iobench::ResultDocument again = iobench::parse_result_json(written);
    FUZZ_CHECK(iobench::to_json(again) == written, written);
  } catch (const iobench::ConfigError& e) {
    FUZZ_CHECK(false, std::string(e.what()) + "\n" + written);
  }

  std::ostringstream out;
  print(document->run, *iobench::make_text_reporter(out, registry()));
  print(document->run, *iobench::make_csv_reporter(out, registry()));
  print(document->run, *iobench::make_json_reporter(out));
  try {
    (void)iobench::repeat_plan(*document);
  } catch (const iobench::ConfigError& e) {
    FUZZ_CHECK(*e.what() != '\0', "empty message");
  }
  return 0;
}
