#include <catch2/catch.hpp>
#include <cstdint>
#include <iobench/metrics.hpp>
#include <memory>
#include <thread>
#include <type_traits>

namespace {

using iobench::CpuTimes;
using iobench::OpStats;
using iobench::SystemCpuSample;

constexpr std::uint64_t kMs = 1'000'000ULL;
constexpr std::uint64_t kS = 1'000'000'000ULL;

std::uint64_t total(const CpuTimes& t) { return t.user_ns + t.system_ns; }

// Spins on the calling thread until it has used at least `ns` more CPU time. Ends because CPU
// time advances while it spins; no wall-clock timing involved.
void burn_thread_cpu(std::uint64_t ns) {
  const std::uint64_t start = total(iobench::thread_cpu_times());
  volatile std::uint64_t sink = 0;
  while (total(iobench::thread_cpu_times()) < start + ns) {
    for (int i = 0; i < 10'000; ++i) sink = sink + static_cast<std::uint64_t>(i);
  }
}

}  // namespace

TEST_CASE("OpStats records exact counts bytes and slow ops", "[unit][metrics]") {
  STATIC_REQUIRE(std::is_trivially_copyable_v<OpStats>);
  auto stats = std::make_unique<OpStats>();
  stats->record(4096, 50'000);
  stats->record(4096, 2 * kS);      // exactly 2 s is not over 2 s
  stats->record(8192, 2 * kS + 1);  // over 2 s
  stats->record(0, 10 * kS);        // over 2 s, not over 10 s
  stats->record(1, 10 * kS + 1);    // over both
  stats->record(1, 3600 * kS);      // over both
  stats->errors += 2;
  CHECK(stats->ops == 6);
  CHECK(stats->bytes == 4096 + 4096 + 8192 + 0 + 1 + 1);
  CHECK(stats->ops_over_2s == 4);
  CHECK(stats->ops_over_10s == 2);
  CHECK(stats->errors == 2);
  CHECK(stats->latency.count() == 6);
  CHECK(stats->latency.min() == 50'000);
  CHECK(stats->latency.max() == 3600 * kS);
  CHECK(stats->latency.sum() == 50'000 + 2 * kS + 2 * kS + 1 + 10 * kS + 10 * kS + 1 + 3600 * kS);
}

TEST_CASE("OpStats merge adds every field", "[unit][metrics]") {
  auto a = std::make_unique<OpStats>();
  auto b = std::make_unique<OpStats>();
  auto all = std::make_unique<OpStats>();
  for (std::uint64_t i = 1; i <= 1000; ++i) {
    const std::uint64_t latency = i * 15 * kMs;  // 15 ms .. 15 s
    OpStats& target = (i % 3 == 0) ? *a : *b;
    target.record(i * 512, latency);
    all->record(i * 512, latency);
  }
  a->errors = 3;
  b->errors = 4;
  auto merged = std::make_unique<OpStats>();
  merged->merge(*a);
  merged->merge(*b);
  CHECK(merged->ops == 1000);
  CHECK(merged->bytes == 512 * 1000 * 1001 / 2);
  CHECK(merged->errors == 7);
  // latency > 2 s: i*15 ms > 2000 ms -> i >= 134: 867 ops; > 10 s: i >= 667: 334 ops.
  CHECK(merged->ops_over_2s == 867);
  CHECK(merged->ops_over_10s == 334);
  CHECK(merged->ops_over_2s == all->ops_over_2s);
  CHECK(merged->ops_over_10s == all->ops_over_10s);
  CHECK(merged->latency.count() == all->latency.count());
  CHECK(merged->latency.min() == 15 * kMs);
  CHECK(merged->latency.max() == 15'000 * kMs);
  CHECK(merged->latency.mean() == all->latency.mean());
  CHECK(merged->latency.stddev() == all->latency.stddev());
  CHECK(merged->latency.percentile(99) == all->latency.percentile(99));
}

TEST_CASE("throughput and rates are per second of elapsed ns", "[unit][metrics]") {
  CHECK(iobench::throughput_bytes_per_s(1'000'000, kS) == 1e6);
  CHECK(iobench::throughput_bytes_per_s(1 << 20, kS / 2) == 2.0 * (1 << 20));
  // The seeds' report: 98304 MiB in 579.935968 s is 169.51 MiB/s.
  const double mib_per_s =
      iobench::throughput_bytes_per_s(98304ULL << 20, 579'935'968'000ULL) / (1 << 20);
  CHECK(mib_per_s == Approx(169.51).margin(0.005));
  CHECK(iobench::throughput_bytes_per_s(123, 0) == 0.0);
  CHECK(iobench::ops_per_s(5000, 2 * kS) == 2500.0);
  CHECK(iobench::ops_per_s(3, 1) == 3e9);
  CHECK(iobench::ops_per_s(5, 0) == 0.0);
}

TEST_CASE("cpu percent is of one CPU over the elapsed time", "[unit][metrics]") {
  CHECK(iobench::cpu_percent(500 * kMs, kS) == 50.0);
  CHECK(iobench::cpu_percent(3 * kS, kS) == 300.0);  // three busy threads
  CHECK(iobench::cpu_percent(0, kS) == 0.0);
  CHECK(iobench::cpu_percent(kS, 0) == 0.0);
}

TEST_CASE("system busy percent is the busy share of elapsed ticks", "[unit][metrics]") {
  const SystemCpuSample begin{.busy_ticks = 1000, .total_ticks = 10'000};
  CHECK(iobench::system_busy_percent(begin, {.busy_ticks = 1250, .total_ticks = 11'000}) == 25.0);
  CHECK(iobench::system_busy_percent(begin, {.busy_ticks = 3000, .total_ticks = 12'000}) == 100.0);
  CHECK(iobench::system_busy_percent(begin, {.busy_ticks = 1000, .total_ticks = 10'400}) == 0.0);
  CHECK(iobench::system_busy_percent(begin, begin) == 0.0);              // no ticks elapsed
  CHECK(iobench::system_busy_percent(begin, SystemCpuSample{}) == 0.0);  // unreadable end
  CHECK(iobench::system_busy_percent(SystemCpuSample{}, SystemCpuSample{}) == 0.0);
}

TEST_CASE("proc stat cpu line is parsed into busy and total ticks", "[unit][metrics]") {
  // user nice system idle iowait irq softirq steal guest guest_nice
  const char* linux6 =
      "cpu  100 20 30 1000 50 4 6 7 99 98\n"
      "cpu0 50 10 15 500 25 2 3 3 0 0\n"
      "intr 12345\n";
  SystemCpuSample s = iobench::parse_proc_stat_cpu(linux6);
  CHECK(s.busy_ticks == 100 + 20 + 30 + 4 + 6 + 7);  // guest is already inside user
  CHECK(s.total_ticks == s.busy_ticks + 1000 + 50);

  s = iobench::parse_proc_stat_cpu("cpu 1 2 3 4\n");  // a kernel with only four columns
  CHECK(s.busy_ticks == 6);
  CHECK(s.total_ticks == 10);

  s = iobench::parse_proc_stat_cpu("cpu  5 0 5 90 0 0 0 0");  // no trailing newline
  CHECK(s.busy_ticks == 10);
  CHECK(s.total_ticks == 100);

  for (const char* bad : {"", "cpu\n", "cpu  1 2 3\n", "cpu0 1 2 3 4 5\n", "cpu  1 2 x 4\n",
                          "intr 1 2 3 4 5\n", "cpu  1 2 3 -4\n"}) {
    INFO(bad);
    s = iobench::parse_proc_stat_cpu(bad);
    CHECK(s.busy_ticks == 0);
    CHECK(s.total_ticks == 0);
  }
}

TEST_CASE("system cpu samples from proc stat are sane", "[unit][metrics]") {
  const SystemCpuSample first = iobench::sample_system_cpu();
  burn_thread_cpu(20 * kMs);
  const SystemCpuSample second = iobench::sample_system_cpu();
  CHECK(first.total_ticks > 0);
  CHECK(first.busy_ticks > 0);
  CHECK(first.busy_ticks <= first.total_ticks);
  CHECK(second.total_ticks >= first.total_ticks);
  CHECK(second.busy_ticks >= first.busy_ticks);
  const double busy = iobench::system_busy_percent(first, second);
  CHECK(busy >= 0.0);
  CHECK(busy <= 100.0);
}

TEST_CASE("thread cpu time counts only the calling thread", "[unit][metrics]") {
  const CpuTimes main_before = iobench::thread_cpu_times();
  const CpuTimes process_before = iobench::process_cpu_times();
  CHECK(total(process_before) + 2000 >= total(main_before));  // 2 us: timeval truncation

  CpuTimes worker_used{};
  std::thread worker([&] {
    const CpuTimes start = iobench::thread_cpu_times();
    burn_thread_cpu(30 * kMs);
    const CpuTimes end = iobench::thread_cpu_times();
    worker_used = {end.user_ns - start.user_ns, end.system_ns - start.system_ns};
  });
  worker.join();

  const CpuTimes main_after = iobench::thread_cpu_times();
  const CpuTimes process_after = iobench::process_cpu_times();
  CHECK(total(worker_used) >= 30 * kMs);
  // The main thread only waited in join(); the worker's 30 ms are not in its time.
  CHECK(total(main_after) - total(main_before) < 30 * kMs);
  // The process time includes the worker's.
  CHECK(total(process_after) - total(process_before) + 2000 >= total(worker_used));
}
