// The run clock (clock.hpp): whichever clock backs it (the TSC or CLOCK_MONOTONIC), it reads as
// CLOCK_MONOTONIC does, never goes back, and agrees between threads.
#include <time.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <iobench/clock.hpp>
#include <thread>

namespace {

std::uint64_t clock_monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

}  // namespace

TEST_CASE("the run clock says which clock it is", "[clock]") {
  const std::string clock = iobench::run_clock_description();
  INFO(clock);
  const bool tsc =
      clock.rfind("tsc (", 0) == 0 && clock.find(
                                          " MHz, calibrated against "
                                          "CLOCK_MONOTONIC_RAW over ") != std::string::npos;
  CHECK((tsc || clock.rfind("CLOCK_MONOTONIC", 0) == 0));
}

TEST_CASE("the run clock reads as CLOCK_MONOTONIC does, from the same origin", "[clock]") {
  (void)iobench::monotonic_ns();  // chooses and calibrates
  for (int i = 0; i < 100; ++i) {
    const std::uint64_t before = clock_monotonic_ns();
    const std::uint64_t ours = iobench::monotonic_ns();
    const std::uint64_t after = clock_monotonic_ns();
    // Within the two reads, give or take 50 us: a calibration error of a few ppm over the
    // process's age, and NTP slewing CLOCK_MONOTONIC meanwhile.
    CHECK(ours + 50'000 >= before);
    CHECK(ours <= after + 50'000);
  }
}

TEST_CASE("the run clock's durations are CLOCK_MONOTONIC's to 0.1 %", "[clock]") {
  (void)iobench::monotonic_ns();  // the first reading waits for the calibration
  const std::uint64_t monotonic_start = clock_monotonic_ns();
  const std::uint64_t start = iobench::monotonic_ns();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const std::uint64_t end = iobench::monotonic_ns();
  const std::uint64_t monotonic_end = clock_monotonic_ns();
  const auto ours = static_cast<double>(end - start);
  const auto theirs = static_cast<double>(monotonic_end - monotonic_start);
  INFO("run clock " << ours << " ns, CLOCK_MONOTONIC " << theirs << " ns");
  CHECK(ours >= 200e6);
  CHECK(ours <= theirs * 1.001);
  CHECK(ours >= theirs * 0.999 - 20'000);  // the bracketing reads themselves
}

TEST_CASE("the run clock never goes back, in one thread or between two", "[clock]") {
  std::uint64_t last = iobench::monotonic_ns();
  for (int i = 0; i < 1'000'000; ++i) {
    const std::uint64_t now = iobench::monotonic_ns();
    REQUIRE(now >= last);
    last = now;
  }
  // Two threads hand a reading back and forth: each reads the clock after seeing the other's
  // reading, so its own must not be earlier (the TSCs of the CPUs they run on agree).
  std::atomic<std::uint64_t> baton{0};
  std::atomic<bool> backwards{false};
  constexpr int kRounds = 20'000;
  const auto player = [&](std::uint64_t parity) {
    for (int round = 0; round < kRounds; ++round) {
      std::uint64_t seen = 0;
      // Even readings are the first thread's turn, odd ones the second's (the low bit is taken).
      while (((seen = baton.load(std::memory_order_acquire)) & 1) != parity) {
        std::this_thread::yield();  // both threads may share one CPU
      }
      const std::uint64_t now = iobench::monotonic_ns() << 1;
      if (now < (seen & ~std::uint64_t{1})) backwards = true;
      baton.store(now | (parity ^ 1), std::memory_order_release);
    }
  };
  std::thread second(player, 1);
  player(0);
  second.join();
  CHECK_FALSE(backwards);
}
