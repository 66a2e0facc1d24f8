#include "report_command.hpp"

#include <iobench/html_report.hpp>
#include <iostream>
#include <sstream>
#include <vector>

#include "history_command.hpp"
#include "output_file.hpp"

namespace iobench::cli {

int run_report(const CliOptions& options) {
  const bool to_stdout = options.output_path == "-";
  if (!to_stdout) OutputFile::check(options.output_path);
  std::vector<ReportInput> inputs;
  for (std::size_t i = 0; i < options.report_files.size(); ++i) {
    std::optional<ReportInput> stored = history_input(options.report_files[i]);
    inputs.push_back(stored ? std::move(*stored)
                            : load_report_input(options.report_files[i], options.input_format(i)));
  }
  std::ostringstream page;
  write_html_report(inputs, page);
  if (to_stdout) {
    std::cout << page.str();
    std::cout.flush();
    return 0;
  }
  OutputFile output(options.output_path);
  output.commit(page.str());
  return 0;
}

}  // namespace iobench::cli
