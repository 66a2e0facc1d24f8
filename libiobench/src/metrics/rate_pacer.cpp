#include <fmt/format.h>
#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <cmath>
#include <iobench/clock.hpp>
#include <iobench/error.hpp>
#include <iobench/rate_pacer.hpp>
#include <iobench/workload.hpp>

namespace iobench {

const char* to_string(Arrivals arrivals) noexcept {
  return arrivals == Arrivals::kPoisson ? "poisson" : "uniform";
}

Arrivals parse_arrivals(std::string_view text, std::string_view param) {
  if (text == "uniform") return Arrivals::kUniform;
  if (text == "poisson") return Arrivals::kPoisson;
  throw ConfigError(
      fmt::format("{}: '{}' is not an arrival process; give uniform or poisson", param, text));
}

RatePacer::RatePacer(const RateLimit& limit, std::uint64_t seed) noexcept
    : limit_(limit), rng_(seed | 1) {}

void RatePacer::start(std::uint64_t start_ns) noexcept { next_ns_ = static_cast<double>(start_ns); }

double RatePacer::gap_ns(std::uint64_t bytes) noexcept {
  const double mean_ns = limit_.ops_per_s > 0
                             ? 1e9 / limit_.ops_per_s
                             : static_cast<double>(bytes) * 1e9 / limit_.bytes_per_s;
  if (limit_.arrivals == Arrivals::kUniform) return mean_ns;
  // xorshift64* into (0, 1]: -ln(u) is an exponential gap of mean 1, never infinite.
  rng_ ^= rng_ >> 12;
  rng_ ^= rng_ << 25;
  rng_ ^= rng_ >> 27;
  const std::uint64_t bits = (rng_ * 0x2545F4914F6CDD1DULL) >> 11;
  const double u = (static_cast<double>(bits) + 1.0) / 9007199254740992.0;  // 2^53
  return -std::log(u) * mean_ns;
}

std::uint64_t RatePacer::next(std::uint64_t bytes) noexcept {
  const double due = next_ns_;
  next_ns_ += gap_ns(bytes);
  return static_cast<std::uint64_t>(due);
}

std::uint64_t RatePacer::due_by(std::uint64_t now_ns, std::uint64_t bytes_per_op) const noexcept {
  const double now = static_cast<double>(now_ns);
  if (now < next_ns_) return 0;
  const double mean_ns = limit_.ops_per_s > 0
                             ? 1e9 / limit_.ops_per_s
                             : static_cast<double>(std::max<std::uint64_t>(bytes_per_op, 1)) * 1e9 /
                                   limit_.bytes_per_s;
  return 1 + static_cast<std::uint64_t>((now - next_ns_) / mean_ns);
}

std::uint64_t RatePacer::advance(std::uint64_t bytes) noexcept {
  next_ns_ += gap_ns(bytes);
  return static_cast<std::uint64_t>(next_ns_);
}

void RatePacer::rebase(std::uint64_t issued_ns) noexcept {
  next_ns_ = std::max(next_ns_, static_cast<double>(issued_ns));
}

namespace {

// Sleeps in slices of at most 50 ms until `deadline_ns` or until `go_on()` turns false; returns
// false in the latter case.
template <class GoOn>
bool sleep_while(std::uint64_t deadline_ns, GoOn go_on) noexcept {
  // The default 50 us timer slack would make every paced op that late; 1 us keeps the schedule.
  static thread_local bool slack_set = false;
  if (!slack_set) {
    (void)::prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
    slack_set = true;
  }
  constexpr std::uint64_t kSliceNs = 50'000'000;
  while (true) {
    if (!go_on()) return false;
    const std::uint64_t now = monotonic_ns();
    if (now >= deadline_ns) return true;
    // A relative sleep: the run clock may be the TSC, which the kernel's deadlines do not use.
    const std::uint64_t sleep_ns = std::min(deadline_ns - now, kSliceNs);
    timespec ts{.tv_sec = static_cast<time_t>(sleep_ns / 1'000'000'000ULL),
                .tv_nsec = static_cast<long>(sleep_ns % 1'000'000'000ULL)};
    (void)::clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, nullptr);
  }
}

}  // namespace

bool sleep_until(WorkerContext& ctx, std::uint64_t deadline_ns) noexcept {
  return sleep_while(deadline_ns, [&ctx]() noexcept { return ctx.keep_going(); });
}

void wait_out_interval(WorkerContext& ctx, std::uint64_t deadline_ns) noexcept {
  // Not keep_going(): it is already false when the op limit is reached.
  (void)sleep_while(deadline_ns, [&ctx]() noexcept { return !ctx.phase_ended(); });
}

}  // namespace iobench
