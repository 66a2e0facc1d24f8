// The periodic work's next tick (progress reports, steady-state samples, ticks between suite
// runs): the first tick of the grid after now, computed however far behind the grid is.
#include "util/next_tick.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>

using iobench::detail::next_tick_after;

TEST_CASE("next_tick_after keeps a tick that is still ahead") {
  CHECK(next_tick_after<std::uint64_t>(100, 99, 10) == 100);
  CHECK(next_tick_after<std::uint64_t>(100, 0, 10) == 100);
}

TEST_CASE("next_tick_after moves a passed tick to the grid's first tick after now") {
  CHECK(next_tick_after<std::uint64_t>(100, 100, 10) == 110);  // a tick at now has passed
  CHECK(next_tick_after<std::uint64_t>(100, 109, 10) == 110);
  CHECK(next_tick_after<std::uint64_t>(100, 110, 10) == 120);
  CHECK(next_tick_after<std::uint64_t>(100, 1234, 10) == 1240);
  CHECK(next_tick_after<std::uint64_t>(7, 7, 1) == 8);
}

TEST_CASE("next_tick_after with a 1 ns period 10^18 ns behind returns at once") {
  // Stepping by the period would add it 10^18 times (the progress reporter's old loop, which a
  // 1 ns progress interval made run for minutes).
  const std::uint64_t now = 1'000'000'000'000'000'000ULL;
  CHECK(next_tick_after<std::uint64_t>(5, now, 1) == now + 1);
  CHECK(next_tick_after<std::uint64_t>(5, now, 3) == now + 1);  // 5 + 3k: now - 4 is too
  CHECK(next_tick_after<std::uint64_t>(6, now, 3) == now + 2);
}

TEST_CASE("next_tick_after works on std::chrono time points") {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start{};
  const auto tick =
      next_tick_after(start + std::chrono::milliseconds(50), start + std::chrono::milliseconds(175),
                      std::chrono::milliseconds(50));
  CHECK(tick == start + std::chrono::milliseconds(200));
}
