#include "plugins/tiotest/tiobench_sweep.hpp"

#include <fmt/format.h>

#include <charconv>
#include <iobench/error.hpp>
#include <iobench/params.hpp>
#include <iobench/units.hpp>

namespace iobench::plugins::tiotest {

namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;

std::vector<std::uint64_t> parse_list(std::string_view text, std::string_view field) {
  std::vector<std::uint64_t> values;
  for (const std::string_view item :
       split_list_param(text, field, "1,2,4,8", ListSeparators::kCommasOrBlanks)) {
    const std::uint64_t value = parse_size(item, field);
    if (value == 0) {
      throw ConfigError(fmt::format("{}: entries must be at least 1, got '{}'", field, item));
    }
    values.push_back(value);
  }
  return values;
}

// Reads "<key>=<digits>[suffix]" at the start of `text`; advances past it and one space.
std::optional<std::uint64_t> take_field(std::string_view& text, std::string_view key,
                                        std::string_view suffix) {
  if (text.substr(0, key.size()) != key || text.size() <= key.size() || text[key.size()] != '=') {
    return std::nullopt;
  }
  text.remove_prefix(key.size() + 1);
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end == text.data()) return std::nullopt;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  if (text.substr(0, suffix.size()) != suffix) return std::nullopt;
  text.remove_prefix(suffix.size());
  if (!text.empty()) {
    if (text.front() != ' ') return std::nullopt;
    text.remove_prefix(1);
  }
  return value;
}

}  // namespace

std::vector<std::uint64_t> parse_count_list(std::string_view text, std::string_view field) {
  return parse_list(text, field);
}

std::vector<std::uint64_t> whole_mib_list(std::span<const std::uint64_t> bytes,
                                          std::string_view field) {
  std::vector<std::uint64_t> mib;
  for (const std::uint64_t value : bytes) {
    if (value == 0 || value % kMiB != 0) {
      throw ConfigError(fmt::format(
          "{}: {} bytes is not a whole number of MiB (at least 1); tiobench sizes are totals over "
          "all threads in MiB, e.g. 32m or 1g",
          field, value));
    }
    mib.push_back(value / kMiB);
  }
  return mib;
}

std::string sweep_suffix(const SweepPoint& point, std::uint64_t repetition) {
  return fmt::format(" size={}M bs={} threads={} run={}", point.size_mb, point.block_size,
                     point.threads, repetition);
}

std::optional<SweepPhaseName> parse_sweep_phase_name(std::string_view name) {
  for (const PhaseKind kind : kAllPhaseKinds) {
    const std::string_view label = phase_label(kind);
    if (name.size() <= label.size() + 1 || name.substr(0, label.size()) != label ||
        name[label.size()] != ' ') {
      continue;
    }
    std::string_view rest = name.substr(label.size() + 1);
    const auto size = take_field(rest, "size", "M");
    if (!size) return std::nullopt;
    const auto bs = take_field(rest, "bs", "");
    if (!bs) return std::nullopt;
    const auto threads = take_field(rest, "threads", "");
    if (!threads) return std::nullopt;
    const auto run = take_field(rest, "run", "");
    if (!run || !rest.empty()) return std::nullopt;
    return SweepPhaseName{kind, SweepPoint{*size, *bs, *threads}, *run};
  }
  return std::nullopt;
}

std::vector<RunPlan> plan_sweep(const SweepSettings& settings) {
  if (settings.threads.empty() || settings.sizes_mb.empty() || settings.block_sizes.empty()) {
    throw ConfigError("threads, sizes and block_sizes each need at least one value");
  }
  if (settings.repetitions < 1) {
    throw ConfigError("repetitions: must be at least 1");
  }
  std::vector<RunPlan> runs;
  for (const std::uint64_t size_mb : settings.sizes_mb) {
    for (const std::uint64_t block_size : settings.block_sizes) {
      for (const std::uint64_t threads : settings.threads) {
        if (threads == 0 || size_mb == 0 || block_size == 0) {
          throw ConfigError("threads, sizes and block_sizes must not contain 0");
        }
        const std::uint64_t random_per_thread = settings.random_ops_total / threads;
        if (random_per_thread < 1) {
          throw ConfigError(fmt::format(
              "random_ops: {} random ops in total give none per thread with {} threads; raise "
              "random_ops to at least {}",
              settings.random_ops_total, threads, threads));
        }
        const std::uint64_t file_mb = std::max<std::uint64_t>(1, size_mb / threads);
        for (std::uint64_t rep = 1; rep <= settings.repetitions; ++rep) {
          RunPlan run;
          run.threads = static_cast<std::size_t>(threads);
          run.block_size = block_size;
          run.blocks = file_mb * kMiB / block_size;
          run.random_ops = random_per_thread;
          run.name_suffix = sweep_suffix(SweepPoint{size_mb, block_size, threads}, rep);
          runs.push_back(std::move(run));
        }
      }
    }
  }
  return runs;
}

}  // namespace iobench::plugins::tiotest
