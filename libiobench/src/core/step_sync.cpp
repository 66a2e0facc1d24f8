#include "core/step_sync.hpp"

#include <fmt/format.h>

#include <vector>

namespace iobench::detail {
namespace {

// Order of severity of what ranks report: a failure outranks an interruption, both a skip.
int severity(StepSync::Kind kind) {
  switch (kind) {
    case StepSync::Kind::kNone:
      return 0;
    case StepSync::Kind::kSkip:
      return 1;
    case StepSync::Kind::kInterrupted:
      return 2;
    case StepSync::Kind::kFailed:
      return 3;
  }
  return 0;
}

char code(StepSync::Kind kind) {
  switch (kind) {
    case StepSync::Kind::kNone:
      return 'N';
    case StepSync::Kind::kSkip:
      return 'S';
    case StepSync::Kind::kInterrupted:
      return 'I';
    case StepSync::Kind::kFailed:
      return 'F';
  }
  return 'N';
}

StepSync::Kind kind_of(char c) {
  return c == 'F'   ? StepSync::Kind::kFailed
         : c == 'I' ? StepSync::Kind::kInterrupted
         : c == 'S' ? StepSync::Kind::kSkip
                    : StepSync::Kind::kNone;
}

}  // namespace

std::optional<std::string> StepSync::sync(Kind kind, const std::string& message) {
  return checkpoint(kind, message, nullptr);
}

std::optional<std::vector<std::string>> StepSync::exchange(const std::string& mine) {
  std::vector<std::string> texts;
  if (!active()) return std::vector<std::string>{mine};
  if (checkpoint(Kind::kNone, mine, &texts)) return std::nullopt;
  return texts;
}

std::optional<std::string> StepSync::checkpoint(Kind kind, const std::string& message,
                                                std::vector<std::string>* texts) {
  if (verdict_ || !active()) return verdict_;
  const RankIdentity& me = coordinator_->identity();
  std::vector<std::string> all;
  try {
    all = coordinator_->all_gather(fmt::format("{}{}\n{}", code(kind), me.host, message));
  } catch (const CoordinationError& e) {
    worst_ = Kind::kFailed;
    own_ = true;
    verdict_ = e.what();
    return verdict_;
  }
  std::vector<std::string> lines;
  for (int pass = 3; pass >= 1; --pass) {  // the worst kind first
    for (std::size_t r = 0; r < all.size(); ++r) {
      const std::string& text = all[r];
      const Kind theirs = text.empty() ? Kind::kNone : kind_of(text[0]);
      if (severity(theirs) != pass) continue;
      if (severity(theirs) > severity(worst_)) worst_ = theirs;
      if (static_cast<int>(r) == me.rank) own_ = true;
      const std::size_t newline = text.find('\n');
      const std::string host = text.substr(1, newline == std::string::npos ? 0 : newline - 1);
      const std::string what = newline == std::string::npos ? "" : text.substr(newline + 1);
      lines.push_back(fmt::format("rank {} ({}): {}", r, host, what));
    }
  }
  if (!lines.empty()) {
    verdict_ = fmt::format("{}", fmt::join(lines, "; "));
  } else if (texts != nullptr) {
    for (const std::string& text : all) {
      const std::size_t newline = text.find('\n');
      texts->push_back(newline == std::string::npos ? std::string() : text.substr(newline + 1));
    }
  }
  return verdict_;
}

void StepSync::catch_up(Kind kind, const std::string& message) {
  if (!verdict_) (void)sync(kind, message);
}

}  // namespace iobench::detail
