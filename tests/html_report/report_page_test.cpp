// The HTML page: self-contained (dygraphs and the page script inline, nothing fetched), and no
// result string can end its <script> element or become markup.
#include <catch2/catch.hpp>
#include <iobench/html_report.hpp>
#include <iobench/result_json.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/html/report_model.hpp"
#include "tests/support/test_support.hpp"

using namespace iobench;
using Catch::Matchers::Contains;
using RawJson = nlohmann::json;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

const std::string kHostile =
    "</script><script>alert(1)</script><!-- & \xE2\x80\xA8 \xE2\x80\xA9 -->";

// The text of the page's data element.
std::string data_of(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"iobench-data\">";
  const std::size_t start = page.find(open);
  REQUIRE(start != std::string::npos);
  const std::size_t end = page.find("</script>", start);
  REQUIRE(end != std::string::npos);
  return page.substr(start + open.size(), end - start - open.size());
}

}  // namespace

TEST_CASE("script_json escapes what could end a <script> element, and parses back") {
  const detail::html::Json value = {{"name", kHostile}, {"n", 3}};
  const std::string text = detail::html::script_json(value);
  CHECK(text.find('<') == std::string::npos);
  CHECK(text.find('>') == std::string::npos);
  CHECK(text.find('&') == std::string::npos);
  CHECK(text.find("\xE2\x80\xA8") == std::string::npos);
  CHECK(text.find("\xE2\x80\xA9") == std::string::npos);
  CHECK_THAT(text, Contains("\\u003c/script\\u003e") && Contains("\\u2028") && Contains("\\u2029"));
  CHECK(detail::html::Json::parse(text) == value);
  // Bytes that are not UTF-8 (file names are bytes) are replaced, not refused.
  const std::string replaced = detail::html::script_json({{"path", std::string("a\xFF"
                                                                               "b")}});
  CHECK(RawJson::parse(replaced)["path"] ==
        "a\xEF\xBF\xBD"
        "b");
}

TEST_CASE("result strings cannot inject markup or script into the page") {
  RawJson doc = RawJson::parse(test::read_file(IOBENCH_TIME_SERIES_FIXTURE));
  doc["steps"][0]["name"] = kHostile;
  doc["steps"][0]["message"] = kHostile;
  doc["environment"]["hostname"] = kHostile;
  doc["steps"][0]["phases"][0]["name"] = kHostile;
  const std::string text = doc.dump();
  const ReportInput input{
      .label = kHostile, .document = parse_result_json(text), .json_text = text};
  std::ostringstream out;
  write_html_report(std::span<const ReportInput>(&input, 1), out);
  const std::string page = out.str();
  // Exactly the page's own three script elements: the data, dygraphs, the page script.
  CHECK(count(page, "<script") == 3);
  CHECK(count(page, "</script>") == 3);
  CHECK(count(page, "<!--") == 0);
  // The label is also the <title>, escaped as HTML text.
  CHECK_THAT(page, Contains("<title>iobench report: &lt;/script&gt;&lt;script&gt;alert(1)"));
  const RawJson model = RawJson::parse(data_of(page));
  CHECK(model["runs"][0]["label"] == kHostile);
  CHECK(model["runs"][0]["steps"][0]["name"] == kHostile);
  CHECK(model["runs"][0]["steps"][0]["phases"][0]["name"] == kHostile);
  CHECK(model["runs"][0]["environment"][0][1] == kHostile);
}

TEST_CASE("the page is self-contained: dygraphs and its stylesheet inline, no fetch") {
  const std::string text = test::read_file(IOBENCH_TIME_SERIES_FIXTURE);
  const ReportInput input{
      .label = "fixture.json", .document = parse_result_json(text), .json_text = text};
  std::ostringstream out;
  write_html_report(std::span<const ReportInput>(&input, 1), out);
  const std::string page = out.str();
  CHECK(page.starts_with("<!DOCTYPE html>\n"));
  // Debian's dygraph.min.js and dygraph.min.css, as installed.
  CHECK_THAT(page, Contains("@license https://github.com/danvk/dygraphs/blob/v2.2.1/LICENSE.txt"));
  CHECK_THAT(page, Contains(".dygraph-legend{position:absolute"));
  CHECK(count(page, "sourceMappingURL=") == 0);  // no request for a .map file
  CHECK(count(page, "<link") == 0);
  CHECK(count(page, " src=") == 0);
  CHECK(count(page, "@import") == 0);
  // The time series of the fixture is in the data, one row per point.
  const RawJson model = RawJson::parse(data_of(page));
  CHECK(model["runs"][0]["steps"][0]["phases"][0]["time_series"]["throughput"]["rows"].size() == 8);
}
