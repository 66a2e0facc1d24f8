#include "live_display.hpp"

#include <fmt/ostream.h>
#include <unistd.h>

#include <ostream>

#include "live_csv.hpp"

namespace iobench::cli {

bool LiveDisplay::start(std::ostream& note) {
  if (csv_) csv_text_ = live_csv_header();
  if (!view_) return false;
  std::string why_not;
  screen_ = LiveScreen::open(STDERR_FILENO, why_not);
  if (!screen_) fmt::print(note, "iobench: --live: {}; no live view\n", why_not);
  return screen_ != nullptr;
}

void LiveDisplay::update(const SuiteProgress& progress) {
  const LiveFrame frame = rates_.update(progress);
  if (screen_) {
    const auto [width, height] = screen_->size();
    screen_->draw(live_screen_lines(frame, width, height));
  }
  if (csv_) csv_text_ += live_csv_lines(frame);
}

void LiveDisplay::finish() {
  if (screen_) screen_->close();
}

}  // namespace iobench::cli
