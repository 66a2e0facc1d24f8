// Fuzz target: the classic tools' results through parse_result_text (iobench/classic_results.hpp)
// in every format and detected, as `iobench compare` reads them, then compared with themselves
// and printed.
//
// Invariants: only ConfigError is thrown, its message starting with the source name; a document
// read is a fixed point of to_json / parse_result_json; compare_results of the document against
// itself and its text, CSV and JSON forms throw nothing (a document without any phase is a
// ConfigError of compare_results only when it has none to compare).
#include <iobench/classic_results.hpp>
#include <iobench/compare.hpp>
#include <iobench/error.hpp>
#include <iobench/result_json.hpp>
#include <optional>
#include <sstream>
#include <string>

#include "tests/fuzz/fuzz_check.hpp"

namespace {

void check(std::string_view text, iobench::ResultFormat format) {
  std::optional<iobench::ResultDocument> document;
  try {
    document = iobench::parse_result_text(text, format, "fuzz");
  } catch (const iobench::ConfigError& e) {
    FUZZ_CHECK(std::string_view(e.what()).starts_with("fuzz"), e.what());
    return;
  }
  const std::string written = iobench::to_json(*document);
  try {
    const iobench::ResultDocument again = iobench::parse_result_json(written);
    FUZZ_CHECK(iobench::to_json(again) == written, written);
  } catch (const iobench::ConfigError& e) {
    FUZZ_CHECK(false, std::string(e.what()) + "\n" + written);
  }
  const std::vector<iobench::CompareInput> inputs{{"a", *document}, {"b", *document}};
  const iobench::Comparison comparison = iobench::compare_results(inputs);
  std::ostringstream out;
  iobench::write_comparison_text(comparison, out);
  iobench::write_comparison_markdown(comparison, out);
  iobench::write_comparison_csv(comparison, out);
  out << iobench::comparison_to_json(comparison);
  (void)iobench::regressions(comparison, 0);
  (void)iobench::counter_regressions(comparison);
  (void)iobench::failed_phases(comparison);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = iobench::fuzz::as_text(data, size);
  check(text, iobench::ResultFormat::kAuto);
  for (const iobench::ResultFormat format : iobench::result_formats()) {
    if (format == iobench::ResultFormat::kIobenchJson) continue;  // the result target's
    check(text, format);
  }
  return 0;
}
