#include <algorithm>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <iobench/metrics.hpp>
#include <string_view>

namespace iobench {
namespace {

constexpr std::uint64_t kNsPerSecond = 1'000'000'000ULL;

std::uint64_t timeval_ns(const timeval& tv) noexcept {
  return static_cast<std::uint64_t>(tv.tv_sec) * kNsPerSecond +
         static_cast<std::uint64_t>(tv.tv_usec) * 1000ULL;
}

CpuTimes rusage_times(int who) noexcept {
  rusage usage{};
  if (getrusage(who, &usage) != 0) return {};
  return CpuTimes{timeval_ns(usage.ru_utime), timeval_ns(usage.ru_stime)};
}

double per_second(std::uint64_t amount, std::uint64_t elapsed_ns) noexcept {
  if (elapsed_ns == 0) return 0.0;
  return static_cast<double>(amount) * 1e9 / static_cast<double>(elapsed_ns);
}

}  // namespace

void OpStats::merge(const OpStats& other) noexcept {
  ops += other.ops;
  bytes += other.bytes;
  errors += other.errors;
  ops_over_2s += other.ops_over_2s;
  ops_over_10s += other.ops_over_10s;
  latency.merge(other.latency);
}

void OpStats::reset() noexcept {
  ops = bytes = errors = ops_over_2s = ops_over_10s = 0;
  latency.reset();
}

void OpLatencyParts::merge(const OpLatencyParts& other) noexcept {
  submission.merge(other.submission);
  completion.merge(other.completion);
  service.merge(other.service);
}

void OpLatencyParts::reset() noexcept {
  submission.reset();
  completion.reset();
  service.reset();
}

void OpResult::record(std::uint64_t op_bytes, std::uint64_t latency_ns) {
  latency.record(latency_ns);
  ++ops;
  bytes += op_bytes;
  ops_over_2s += latency_ns > OpStats::kSlowThreshold1Ns;
  ops_over_10s += latency_ns > OpStats::kSlowThreshold2Ns;
}

namespace {

// OpResult += OpResult or OpStats: the same counts, either kind of histogram. The histogram
// first, as it may throw (std::bad_alloc): the counts then stay as they were.
template <class Stats>
void add_into(OpResult& into, const Stats& from) {
  into.latency.merge(from.latency);
  into.ops += from.ops;
  into.bytes += from.bytes;
  into.errors += from.errors;
  into.ops_over_2s += from.ops_over_2s;
  into.ops_over_10s += from.ops_over_10s;
}

}  // namespace

void OpResult::merge(const OpResult& other) { add_into(*this, other); }

void OpResult::merge(const OpStats& recorded) { add_into(*this, recorded); }

void OpLatencyPartsResult::merge(const OpLatencyPartsResult& other) {
  submission.merge(other.submission);
  completion.merge(other.completion);
  service.merge(other.service);
}

void OpLatencyPartsResult::merge(const OpLatencyParts& recorded) {
  submission.merge(recorded.submission);
  completion.merge(recorded.completion);
  service.merge(recorded.service);
}

void PacingStats::merge(const PacingStats& other) noexcept {
  paced = paced || other.paced;
  late_ops += other.late_ops;
  max_lag_ns = std::max(max_lag_ns, other.max_lag_ns);
  backlog_ops += other.backlog_ops;
}

SystemCpuSample parse_proc_stat_cpu(std::string_view text) noexcept {
  // Find the aggregate line "cpu " (per-CPU lines are "cpu0 ..."); it is the first line.
  std::size_t pos = 0;
  while (pos < text.size() && text.substr(pos, 4) != "cpu ") {
    const std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) return {};
    pos = eol + 1;
  }
  if (pos >= text.size()) return {};
  std::string_view line = text.substr(pos + 4);
  line = line.substr(0, line.find('\n'));

  // Columns: user nice system idle iowait irq softirq steal guest guest_nice. guest and
  // guest_nice are already counted in user and nice, so they are not added again.
  constexpr std::size_t kUsed = 8;
  std::array<std::uint64_t, kUsed> column{};
  std::size_t parsed = 0;
  const char* cursor = line.data();
  const char* const end = line.data() + line.size();
  while (parsed < kUsed) {
    while (cursor < end && *cursor == ' ') ++cursor;
    if (cursor == end) break;
    const auto [next, ec] = std::from_chars(cursor, end, column[parsed]);
    if (ec != std::errc{} || (next < end && *next != ' ')) return {};
    cursor = next;
    ++parsed;
  }
  if (parsed < 4) return {};  // every kernel prints at least user nice system idle

  const auto [user, nice, system, idle, iowait, irq, softirq, steal] = column;
  SystemCpuSample sample;
  sample.busy_ticks = user + nice + system + irq + softirq + steal;
  sample.total_ticks = sample.busy_ticks + idle + iowait;
  return sample;
}

SystemCpuSample sample_system_cpu() noexcept {
  const int fd = ::open("/proc/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  // The aggregate line comes first and is well under 512 bytes; no allocation needed.
  std::array<char, 4096> buffer;
  std::size_t filled = 0;
  while (filled < buffer.size()) {
    const ssize_t got = ::read(fd, buffer.data() + filled, buffer.size() - filled);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    filled += static_cast<std::size_t>(got);
  }
  ::close(fd);
  return parse_proc_stat_cpu(std::string_view(buffer.data(), filled));
}

double system_busy_percent(const SystemCpuSample& begin, const SystemCpuSample& end) noexcept {
  if (end.total_ticks <= begin.total_ticks || end.busy_ticks < begin.busy_ticks) return 0.0;
  const double busy = static_cast<double>(end.busy_ticks - begin.busy_ticks);
  const double total = static_cast<double>(end.total_ticks - begin.total_ticks);
  const double percent = 100.0 * busy / total;
  return percent > 100.0 ? 100.0 : percent;
}

CpuTimes thread_cpu_times() noexcept { return rusage_times(RUSAGE_THREAD); }

CpuTimes process_cpu_times() noexcept { return rusage_times(RUSAGE_SELF); }

double throughput_bytes_per_s(std::uint64_t bytes, std::uint64_t elapsed_ns) noexcept {
  return per_second(bytes, elapsed_ns);
}

double ops_per_s(std::uint64_t ops, std::uint64_t elapsed_ns) noexcept {
  return per_second(ops, elapsed_ns);
}

double cpu_percent(std::uint64_t cpu_ns, std::uint64_t elapsed_ns) noexcept {
  if (elapsed_ns == 0) return 0.0;
  return 100.0 * static_cast<double>(cpu_ns) / static_cast<double>(elapsed_ns);
}

}  // namespace iobench
