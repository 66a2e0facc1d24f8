#include "plugins/mdtest/ranks.hpp"

#include <fcntl.h>
#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <iobench/printable.hpp>
#include <sstream>
#include <system_error>

#include "plugins/mdtest/workers.hpp"

namespace iobench::plugins::mdtest {

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

std::vector<OwnedConfinedDir> open_rank0_dirs(std::span<const Target> targets,
                                              const std::string& names, std::string_view shared) {
  std::vector<OwnedConfinedDir> dirs;
  std::istringstream lines(names);
  for (const Target& target : targets) {
    std::string name;
    if (!std::getline(lines, name) || !is_one_dir_name(name)) {
      throw Error(fmt::format("rank 0 sent no run directory name for target '{}' ({})",
                              target.user_path.string(), shared));
    }
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

std::string encode_rank0_setup(const Rank0Setup& setup) {
  return fmt::format("{}\n{}", setup.data_seed, setup.names);
}

namespace {

// A part of a garbled message as the error quotes it: printable(), at most 64 bytes (a longer
// one cut in the middle), as the message may be anything.
std::string garbled_part(std::string_view text) { return printable(text, 64); }

// One error for every malformed setup message: what was expected, then what is wrong.
[[noreturn]] void bad_setup(const std::string& what) {
  throw Error(fmt::format(
      "mdtest: rank 0's setup message is not 'SEED\\nNAME\\n...' (its data seed in decimal, at "
      "most 4294967295, then its run directory names, one a line, every line ending in a "
      "newline): {}",
      what));
}

}  // namespace

Rank0Setup decode_rank0_setup(const std::string& text) {
  if (text.empty()) bad_setup("it is empty (cut short)");
  const std::size_t end = text.find('\n');
  if (end == std::string::npos) {
    bad_setup(
        fmt::format("'{}' has no newline after the data seed (cut short)", garbled_part(text)));
  }
  const std::string seed = text.substr(0, end);
  std::uint32_t value = 0;
  const auto [at, ec] = std::from_chars(seed.data(), seed.data() + seed.size(), value);
  if (seed.empty() || ec != std::errc() || at != seed.data() + seed.size()) {
    bad_setup(fmt::format("'{}' is not a data seed", garbled_part(seed)));
  }
  std::string names = text.substr(end + 1);
  if (names.empty()) bad_setup("no run directory name after the data seed (cut short)");
  if (names.back() != '\n') {
    bad_setup(fmt::format("the last run directory name '{}' has no newline (cut short)",
                          garbled_part(names.substr(names.rfind('\n') + 1))));
  }
  std::size_t number = 0;
  for (std::size_t from = 0; from < names.size();) {
    const std::size_t to = names.find('\n', from);
    const std::string_view name(names.data() + from, to - from);
    ++number;
    if (name.empty()) bad_setup(fmt::format("run directory name {} is empty", number));
    if (!is_one_dir_name(name)) {
      bad_setup(fmt::format("run directory name {} '{}' is not one directory's name", number,
                            garbled_part(name)));
    }
    from = to + 1;
  }
  return {.data_seed = value, .names = std::move(names)};
}

std::string encode_made(const PhaseResult& result) {
  std::string text;
  for (const WorkerResult& w : result.workers) {
    const auto counter = [&](CounterId c) {
      return c < w.counters.size() ? w.counters[c] : std::uint64_t{0};
    };
    text += fmt::format("{} {} {}\n", counter(kItemsDoneCounter), counter(kItemsAtStonewallCounter),
                        counter(kStonewallNsCounter));
  }
  return text;
}

std::vector<RankMade> decode_made(const std::vector<std::string>& texts) {
  std::vector<RankMade> made;
  for (std::size_t r = 0; r < texts.size(); ++r) {
    std::istringstream lines(texts[r]);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream words(line);
      RankMade m;
      if (!(words >> m.done >> m.at_stonewall >> m.stonewall_ns)) {
        throw Error(fmt::format("mdtest: rank {} sent '{}' for its items made", r, line));
      }
      made.push_back(m);
    }
  }
  return made;
}

}  // namespace iobench::plugins::mdtest
