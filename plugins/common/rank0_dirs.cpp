#include "plugins/common/rank0_dirs.hpp"

#include <fcntl.h>
#include <fmt/format.h>

#include <cerrno>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <iobench/printable.hpp>

namespace iobench::plugins {

std::string run_dir_names(std::span<const Target> targets) {
  std::string names;
  for (const Target& target : targets) {
    names += target.run_dir.path().filename().string();
    names += '\n';
  }
  return names;
}

bool is_one_dir_name(std::string_view name) noexcept {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
         name.find('\0') == std::string_view::npos;
}

std::string dir_names_problem(std::string_view text) {
  // A part of a garbled message as the error quotes it: the message may be anything.
  const auto shown = [](std::string_view part) { return printable(part, 64); };
  if (text.empty()) return "no run directory name (cut short)";
  if (text.back() != '\n') {
    const std::size_t last = text.rfind('\n');
    return fmt::format("the last run directory name '{}' has no newline (cut short)",
                       shown(text.substr(last == std::string_view::npos ? 0 : last + 1)));
  }
  std::size_t number = 0;
  for (std::size_t from = 0; from < text.size();) {
    const std::size_t to = text.find('\n', from);
    const std::string_view name = text.substr(from, to - from);
    ++number;
    if (name.empty()) return fmt::format("run directory name {} is empty", number);
    if (!is_one_dir_name(name)) {
      return fmt::format("run directory name {} '{}' is not one directory's name", number,
                         shown(name));
    }
    from = to + 1;
  }
  return {};
}

std::vector<std::string> decode_dir_names(std::string_view text, std::size_t count,
                                          std::string_view who) {
  std::string problem = dir_names_problem(text);
  std::vector<std::string> names;
  if (problem.empty()) {
    for (std::size_t from = 0; from < text.size();) {
      const std::size_t to = text.find('\n', from);
      names.emplace_back(text.substr(from, to - from));
      from = to + 1;
    }
    if (names.size() != count) {
      problem = fmt::format("{} name(s) for {} target(s)", names.size(), count);
    }
  }
  if (!problem.empty()) {
    throw Error(fmt::format(
        "{}: rank 0's run directory names are not 'NAME\\n...' (one per target, one a line, "
        "every line ending in a newline): {}",
        who, problem));
  }
  return names;
}

std::vector<OwnedConfinedDir> open_rank0_dirs(std::span<const Target> targets,
                                              std::string_view names, std::string_view who,
                                              std::string_view shared) {
  const std::vector<std::string> decoded = decode_dir_names(names, targets.size(), who);
  std::vector<OwnedConfinedDir> dirs;
  for (std::size_t t = 0; t < targets.size(); ++t) {
    const Target& target = targets[t];
    const std::string& name = decoded[t];
    // The user's directory, their own link followed (as the run directories are made); rank 0's
    // run directory beneath it, never through a link.
    const UniqueFd parent(::open(target.user_path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!parent) throw IoError(errno, "open directory", target.user_path.string());
    try {
      dirs.push_back(ConfinedDir(parent.get(), target.user_path).open_dir(name));
    } catch (const IoError& e) {
      if (e.error_number() != ENOENT) throw;
      throw IoError(ENOENT,
                    fmt::format("open rank 0's run directory ({}: every rank must name the same "
                                "directory, on a file system all ranks see)",
                                shared),
                    (target.user_path / name).string());
    }
  }
  return dirs;
}

}  // namespace iobench::plugins
