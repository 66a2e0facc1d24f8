// The HTML report's page: a fixed template around the model (report_model.cpp) and the inlined
// assets (dygraphs, report_dom.js, report_compare.js, report_pts.js, report.js, report.css;
// generated/report_assets.cpp, made at configure time by cmake/IobenchDygraphs.cmake). The model is
// a JSON <script> element the page script parses, so no result string is ever markup or code.
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iobench/classic_results.hpp>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <iobench/html_report.hpp>
#include <iobench/printable.hpp>
#include <sstream>
#include <string_view>
#include <utility>

#include "report/html/report_model.hpp"

namespace iobench::detail::html {
extern const char kDygraphsJs[];
extern const std::size_t kDygraphsJs_size;
extern const char kDygraphsCss[];
extern const std::size_t kDygraphsCss_size;
extern const char kReportDomJs[];
extern const std::size_t kReportDomJs_size;
extern const char kReportCompareJs[];
extern const std::size_t kReportCompareJs_size;
extern const char kReportPtsJs[];
extern const std::size_t kReportPtsJs_size;
extern const char kReportJs[];
extern const std::size_t kReportJs_size;
extern const char kReportCss[];
extern const std::size_t kReportCss_size;
}  // namespace iobench::detail::html

namespace iobench {
namespace {

// Text for an HTML text node or attribute.
std::string html_text(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

ReportInput load_report_input(const std::filesystem::path& path, ResultFormat format) {
  std::string text = read_input_file(path, "result file");
  const std::string source = path.string();
  if (format == ResultFormat::kAuto) format = detect_result_format(text, source);
  ReportInput input{.label = source, .document = parse_result_text(text, format, source)};
  // Only iobench's own JSON has parts the reader does not keep (a phase's "time_series").
  if (format == ResultFormat::kIobenchJson) input.json_text = std::move(text);
  return input;
}

void write_html_report(std::span<const ReportInput> inputs, std::ostream& out) {
  using namespace detail::html;
  const Json model = report_model(inputs);  // throws before anything is written
  const std::string title = model["title"].get<std::string>();
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<meta name=\"generator\" content=\"iobench " << html_text(IOBENCH_VERSION) << "\">\n"
      << "<title>" << html_text(printable(title)) << "</title>\n<style>\n";
  out.write(kDygraphsCss, static_cast<std::streamsize>(kDygraphsCss_size));
  out << "\n";
  out.write(kReportCss, static_cast<std::streamsize>(kReportCss_size));
  out << "</style>\n</head>\n<body>\n"
      << "<noscript><p>This report draws its tables and charts with JavaScript; enable it to "
         "see them.</p></noscript>\n"
      << "<pre id=\"iobench-errors\" hidden></pre>\n<main id=\"iobench-report\"></main>\n"
      << "<script type=\"application/json\" id=\"iobench-data\">" << script_json(model)
      << "</script>\n<script>\n";
  out.write(kDygraphsJs, static_cast<std::streamsize>(kDygraphsJs_size));
  out << "\n</script>\n<script>\n";
  // The page's own scripts in one element, in order: the shared helpers first, the entry point
  // last (each is a self-contained function scope; IobenchReport is their one global).
  for (const auto& [text, size] :
       {std::pair<const char*, std::size_t>{kReportDomJs, kReportDomJs_size},
        std::pair<const char*, std::size_t>{kReportCompareJs, kReportCompareJs_size},
        std::pair<const char*, std::size_t>{kReportPtsJs, kReportPtsJs_size},
        std::pair<const char*, std::size_t>{kReportJs, kReportJs_size}}) {
    out.write(text, static_cast<std::streamsize>(size));
    out << "\n";
  }
  out << "</script>\n</body>\n</html>\n";
}

}  // namespace iobench
