#include "plugins/mdtest/ranks.hpp"

#include <fmt/format.h>

#include <charconv>
#include <iobench/error.hpp>
#include <iobench/printable.hpp>
#include <sstream>
#include <system_error>

#include "plugins/common/rank0_dirs.hpp"
#include "plugins/mdtest/workers.hpp"

namespace iobench::plugins::mdtest {

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
  // The names' rules are those of every family's rank-0 message (one decoder).
  if (const std::string problem = dir_names_problem(names); !problem.empty()) bad_setup(problem);
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
