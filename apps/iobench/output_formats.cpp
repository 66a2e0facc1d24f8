#include "output_formats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iobench/error.hpp>
#include <iobench/printable.hpp>
#include <utility>

namespace iobench::cli {

// The registration: each format's file under formats/ defines its function, named here once.
// The order is the one --help, completions and error messages list.
OutputFormat text_output_format();
OutputFormat json_output_format();
OutputFormat csv_output_format();
OutputFormat markdown_output_format();

std::span<const OutputFormat> output_formats() {
  static const std::array kFormats{text_output_format(), json_output_format(), csv_output_format(),
                                   markdown_output_format()};
  return kFormats;
}

void RunOutput::prepare(const RunOutputTarget&, ReporterSet&) {}
void RunOutput::write(const std::string&, std::ostream&) {}
bool RunOutput::commit_files(std::ostream&) { return true; }

namespace {

bool offers(const OutputFormat& format, FormatCommand command) {
  switch (command) {
    case FormatCommand::kRun:
      return format.run != nullptr;
    case FormatCommand::kCompare:
      return format.compare != nullptr;
    case FormatCommand::kHistory:
      return format.history != nullptr;
  }
  return false;
}

}  // namespace

std::vector<std::string> output_format_names(FormatCommand command) {
  std::vector<std::string> names;
  for (const OutputFormat& format : output_formats()) {
    if (offers(format, command)) names.emplace_back(format.name);
  }
  return names;
}

const OutputFormat& find_output_format(std::string_view name, FormatCommand command) {
  for (const OutputFormat& format : output_formats()) {
    if (format.name == name && offers(format, command)) return format;
  }
  throw ConfigError(fmt::format("--format '{}' is not one of {}", printable(name),
                                fmt::join(output_format_names(command), ", ")));
}

std::string output_format_choices(FormatCommand command) {
  const std::vector<std::string> names = output_format_names(command);
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += i == 0 ? "" : i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

std::string output_format_help() {
  const std::vector<std::string> run = output_format_names(FormatCommand::kRun);
  std::string help = "output format: " + output_format_choices(FormatCommand::kRun);
  // Names only other commands take, e.g. "(compare: also markdown)".
  for (const auto& [command, label] : {std::pair{FormatCommand::kCompare, "compare"},
                                       std::pair{FormatCommand::kHistory, "history"}}) {
    std::vector<std::string> extra;
    for (const std::string& name : output_format_names(command)) {
      if (std::find(run.begin(), run.end(), name) == run.end()) extra.push_back(name);
    }
    if (!extra.empty()) help += fmt::format(" ({}: also {})", label, fmt::join(extra, ", "));
  }
  return help;
}

}  // namespace iobench::cli
