#include "metrics/cpu_reading.hpp"

#include <time.h>

namespace iobench::detail {
namespace {

std::uint64_t clock_ns(clockid_t clock) noexcept {
  timespec ts{};
  if (::clock_gettime(clock, &ts) != 0) return 0;
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

// `total` split as `user` : `system`, rounding the user share down.
CpuTimes split(std::uint64_t total, std::uint64_t user, std::uint64_t system) noexcept {
  const std::uint64_t sum = user + system;
  if (sum == 0) return CpuTimes{0, total};
  const auto user_ns =
      static_cast<std::uint64_t>(static_cast<long double>(total) * static_cast<long double>(user) /
                                 static_cast<long double>(sum));
  return CpuTimes{user_ns, total - user_ns};
}

std::uint64_t difference(std::uint64_t from, std::uint64_t to) noexcept {
  return to > from ? to - from : 0;
}

}  // namespace

CpuReading read_thread_cpu() noexcept {
  CpuReading reading;
  reading.runtime_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  reading.split = thread_cpu_times();
  return reading;
}

CpuReading read_process_cpu() noexcept {
  CpuReading reading;
  reading.runtime_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  reading.split = process_cpu_times();
  return reading;
}

CpuTimes cpu_between(const CpuReading& begin, const CpuReading& end) noexcept {
  const std::uint64_t total = difference(begin.runtime_ns, end.runtime_ns);
  const std::uint64_t user = difference(begin.split.user_ns, end.split.user_ns);
  const std::uint64_t system = difference(begin.split.system_ns, end.split.system_ns);
  if (user + system > 0) return split(total, user, system);
  return split(total, end.split.user_ns, end.split.system_ns);
}

}  // namespace iobench::detail
