#include "plugins/disk/pts_workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <variant>

#include "plugins/disk/device_safety.hpp"

namespace iobench::plugins::disk {
namespace {

// The first line of a sysfs file, trimmed; "" if there is none.
std::string sysfs_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return {};
  const auto first = line.find_first_not_of(" \t");
  const auto last = line.find_last_not_of(" \t\r\n");
  return first == std::string::npos ? std::string() : line.substr(first, last - first + 1);
}

// The cells' DiskWorkloads' prepare(): purges (cell 0) and records only what a PTS report keeps
// of theirs (the file or device, the destructive identity, the purge, the preconditioning);
// their per-phase settings (block size, mix) differ per cell and are the pts.* attributes.
class CellPrepareContext final : public PrepareContext {
 public:
  explicit CellPrepareContext(PrepareContext& outer) : outer_(outer) {}
  [[nodiscard]] std::span<const Target> targets() const override { return outer_.targets(); }
  [[nodiscard]] const Engine& engine() const override { return outer_.engine(); }
  [[nodiscard]] std::uint64_t seed() const override { return outer_.seed(); }
  void set_attribute(const std::string& key, AttributeValue value) override {
    if (key.starts_with("file.") || key.starts_with("destructive.") || key.starts_with("purge.") ||
        key == "precondition") {
      if (key.starts_with("purge.") && std::holds_alternative<std::string>(value)) {
        purge_text = std::get<std::string>(value);
      }
      outer_.set_attribute(key, std::move(value));
    }
  }
  void warn(const std::string& message) override { outer_.warn(message); }
  void skip_remaining_phases(const std::string& reason) override {
    outer_.skip_remaining_phases(reason);
  }
  [[nodiscard]] const RankIdentity& rank_identity() const override {
    return outer_.rank_identity();
  }
  [[nodiscard]] std::string from_rank0(const std::function<std::string()>& produce) override {
    return outer_.from_rank0(produce);
  }

  std::string purge_text;  ///< what the purge did (PurgeRecord::text()), "" if none ran

 private:
  PrepareContext& outer_;
};

std::string join_counts(const std::vector<std::uint32_t>& counts) {
  std::string out;
  for (const std::uint32_t count : counts) out += (out.empty() ? "" : ",") + std::to_string(count);
  return out;
}

// A response-time histogram in power-of-two bins: "LOWER_NS:OPS,..." ascending, each bin
// [LOWER, 2 x LOWER) ns (the first from 0), empty bins left out.
std::string histogram_text(const CompactLatencyHistogram& latency) {
  std::map<std::uint64_t, std::uint64_t> bins;
  for (const auto& [index, count] : latency.buckets()) {
    const std::uint64_t lower = LatencyHistogram::bucket_lower(index);
    bins[lower == 0 ? 0 : std::bit_floor(lower)] += count;
  }
  std::string out;
  for (const auto& [lower, count] : bins) {
    out += fmt::format("{}{}:{}", out.empty() ? "" : ",", lower, count);
  }
  return out;
}

std::string tracking_text(PtsTracking tracking) {
  return tracking == PtsTracking::kIops         ? "IOPS"
         : tracking == PtsTracking::kThroughput ? "throughput (bytes/s)"
                                                : "mean latency (ns)";
}

}  // namespace

PtsWorkload::PtsWorkload(PtsConfig config, const Engine& engine)
    : config_(std::move(config)),
      cells_(config_.cells()),
      rounds_(cells_.size(), config_.tracked_cell, config_.tracking) {
  for (std::size_t i = 0; i < cells_.size(); ++i) {
    DiskConfig cell = config_.base;
    cell.block_size_bytes = cells_[i].block_size_bytes;
    cell.blocks = config_.capacity_bytes / cells_[i].block_size_bytes;
    cell.read_percent = cells_[i].read_percent;
    cell.numjobs = cells_[i].threads;
    cell.iodepth = cells_[i].queue_depth;
    if (i != 0) {  // one purge and one preconditioning, before the first round
      cell.purge.reset();
      cell.precondition = false;
    }
    disks_.push_back(std::make_unique<DiskWorkload>(std::move(cell), 1, engine));
  }
  phases_ = build_phases();
}

std::vector<PhaseSpec> PtsWorkload::phases() const { return phases_; }

std::vector<PhaseSpec> PtsWorkload::build_phases() const {
  std::vector<PhaseSpec> out;
  if (config_.base.precondition) out.push_back(disks_.front()->phases().front());
  const std::string_view access = config_.sequential ? "SEQ" : "RND";
  for (std::size_t round = 1; round <= config_.max_rounds; ++round) {
    for (std::size_t i = 0; i < cells_.size(); ++i) {
      const std::vector<PhaseSpec> cell_phases = disks_[i]->phases();
      PhaseSpec spec = cell_phases.at(i == 0 ? first_round_phase() : 0);
      spec.name = fmt::format("round {} {} {} {}", round, access,
                              pts_block_size_text(cells_[i].block_size_bytes),
                              mix_text(cells_[i].read_percent));
      if (dirth()) spec.name += fmt::format(" TC{} QD{}", cells_[i].threads, cells_[i].queue_depth);
      spec.time_limit = config_.round_time;
      spec.steady_state.reset();
      out.push_back(std::move(spec));
    }
  }
  return out;
}

std::uint64_t PtsWorkload::planned_bytes(std::size_t target_index) const {
  // On a directory, a cell of TC threads works on TC files (FILE.J.0; disk's numjobs), a
  // one-thread cell on FILE: the largest TC's files and, with TC 1 in the grid, FILE.
  std::uint64_t bytes = disks_.front()->planned_bytes(target_index);
  const bool one_thread = std::any_of(cells_.begin(), cells_.end(),
                                      [](const PtsCell& cell) { return cell.threads == 1; });
  if (cells_.front().threads > 1 && one_thread) bytes += disks_.back()->planned_bytes(target_index);
  return bytes;
}

void PtsWorkload::prepare(PrepareContext& ctx) {
  CellPrepareContext cells(ctx);
  for (const std::unique_ptr<DiskWorkload>& disk : disks_) disk->prepare(cells);
  const Target& target = ctx.targets().front();
  const bool device = !config_.base.destructive.empty();
  ctx.set_attribute("pts.condition.device", target.user_path.string());
  if (device) {
    const std::filesystem::path sys =
        std::filesystem::path("/sys/block") / block_device_name(target.user_path) / "device";
    ctx.set_attribute("pts.condition.model", sysfs_line(sys / "model"));
    std::string firmware = sysfs_line(sys / "firmware_rev");   // NVMe
    if (firmware.empty()) firmware = sysfs_line(sys / "rev");  // SCSI, SATA
    ctx.set_attribute("pts.condition.firmware", firmware);
  } else {
    ctx.set_attribute("pts.condition.model", std::string("(a file in a directory)"));
    ctx.set_attribute("pts.condition.firmware", std::string());
  }
  ctx.set_attribute("pts.condition.capacity_bytes",
                    static_cast<std::int64_t>(config_.capacity_bytes));
  ctx.set_attribute("pts.condition.purge", config_.base.purge ? cells.purge_text
                                           : device           ? std::string("none (purge=none)")
                                                              : config_.purge_skipped);
  ctx.set_attribute("pts.condition.precondition",
                    config_.base.precondition
                        ? fmt::format("workload-independent: {} x capacity of {} KiB SEQ writes",
                                      kPreconditionPasses, kPreconditionBlockBytes >> 10)
                    : config_.test == PtsTest::kWsat && device
                        ? std::string("none (WSAT starts from the purged device)")
                    : device ? std::string("none (precondition=none)")
                             : config_.precondition_skipped);
  if (dirth()) {
    // The grid: the cells' TC and QD lists (pts.threads, pts.depths) and the OIO range.
    ctx.set_attribute("pts.threads", join_counts(config_.thread_counts));
    ctx.set_attribute("pts.depths", join_counts(config_.queue_depths));
    ctx.set_attribute("pts.condition.oio",
                      fmt::format("{}-{}", cells_.back().oio(), cells_.front().oio()));
  } else {
    ctx.set_attribute("pts.condition.threads", static_cast<std::int64_t>(config_.base.numjobs));
    ctx.set_attribute("pts.condition.queue_depth", static_cast<std::int64_t>(config_.base.iodepth));
    ctx.set_attribute("pts.condition.oio",
                      static_cast<std::int64_t>(config_.base.numjobs * config_.base.iodepth));
  }
  ctx.set_attribute(
      "pts.condition.io",
      std::string(config_.base.mode == IoMode::kDirect ? "O_DIRECT" : "buffered (page cache)"));
  ctx.set_attribute("pts.test", std::string(to_string(config_.test)));
  ctx.set_attribute("pts.access", std::string(config_.sequential ? "SEQ" : "RND"));
  ctx.set_attribute("pts.round_time_ns", static_cast<std::int64_t>(config_.round_time.count()));
  ctx.set_attribute("pts.max_rounds", static_cast<std::int64_t>(config_.max_rounds));
  std::string mixes;
  for (const std::uint32_t mix : config_.mixes) {
    mixes += (mixes.empty() ? "" : ",") + mix_text(mix);
  }
  std::string sizes;
  for (const std::uint64_t size : config_.block_sizes) {
    sizes += (sizes.empty() ? "" : ",") + std::to_string(size);
  }
  ctx.set_attribute("pts.mixes", mixes);
  ctx.set_attribute("pts.block_sizes", sizes);
  const PtsCell& tracked = cells_[config_.tracked_cell];
  ctx.set_attribute(
      "pts.tracked",
      fmt::format("{} {} {}{} {}", config_.sequential ? "SEQ" : "RND",
                  pts_block_size_text(tracked.block_size_bytes), mix_text(tracked.read_percent),
                  dirth() ? fmt::format(" TC{} QD{}", tracked.threads, tracked.queue_depth) : "",
                  tracking_text(config_.tracking)));
  set_attributes(ctx);
}

std::unique_ptr<PhaseWorker> PtsWorkload::make_worker(std::size_t phase, WorkerContext& ctx) {
  if (phase < first_round_phase()) return disks_.front()->make_worker(phase, ctx);
  const std::size_t cell = (phase - first_round_phase()) % cells_.size();
  return disks_[cell]->make_worker(cell == 0 ? first_round_phase() : 0, ctx);
}

void PtsWorkload::after_phase(std::size_t phase, const PhaseResult& result, PrepareContext& ctx) {
  if (phase < first_round_phase()) return;
  const std::size_t cell = (phase - first_round_phase()) % cells_.size();
  rounds_.record(cell, result);
  if (cell + 1 != cells_.size()) return;
  const bool steady = rounds_.end_round();
  set_attributes(ctx);
  if (config_.test == PtsTest::kWsat) {
    // WSAT runs until 4 x capacity is written (or its rounds end), steady or not.
    if (wsat_done() && rounds_.rounds() < config_.max_rounds) {
      ctx.skip_remaining_phases(fmt::format("{} x capacity written after {} rounds",
                                            kWsatCapacityFills, rounds_.rounds()));
    }
  } else if (steady && rounds_.rounds() < config_.max_rounds) {
    ctx.skip_remaining_phases(
        fmt::format("steady state reached after {} rounds", rounds_.rounds()));
  }
}

std::string PtsWorkload::wdpc_text() const {
  if (config_.test == PtsTest::kWsat) return "none (WSAT: its rounds are the test)";
  const std::size_t rounds = rounds_.rounds();
  const std::optional<std::size_t> first = rounds_.window_first_round();
  const std::size_t last = rounds_.window_last_round();
  if (!config_.wdpc) {
    return fmt::format("none (wdpc=false): {} round{} measured without running to steady state{}",
                       rounds, rounds == 1 ? "" : "s",
                       first ? fmt::format(" (window rounds {}-{}, steady: {})", *first, last,
                                           rounds_.steady() ? "yes" : "no")
                             : std::string());
  }
  const std::string run = fmt::format("{} round{}", rounds, rounds == 1 ? "" : "s");
  if (rounds_.steady()) {
    return fmt::format("{}, steady state reached in round {} (window rounds {}-{})", run, last,
                       *first, last);
  }
  if (!first) {
    return fmt::format("{}, steady state not reached (fewer than {} rounds: no window)", run,
                       kPtsWindowRounds);
  }
  return fmt::format("{}, steady state not reached (last window rounds {}-{})", run, *first, last);
}

void PtsWorkload::set_wdpc_attributes(PrepareContext& ctx) const {
  ctx.set_attribute("pts.wdpc", std::string(config_.wdpc ? "yes" : "no"));
  ctx.set_attribute("pts.condition.wdpc", wdpc_text());
  if (!config_.wdpc) return;
  ctx.set_attribute("pts.wdpc.rounds", static_cast<std::int64_t>(rounds_.rounds()));
  if (rounds_.steady()) {
    ctx.set_attribute("pts.wdpc.steady_round",
                      static_cast<std::int64_t>(rounds_.window_last_round()));
  }
}

std::uint64_t PtsWorkload::written_bytes(std::size_t rounds) const {
  std::uint64_t bytes = 0;
  for (std::size_t round = 1; round <= rounds; ++round) {
    bytes += rounds_.round_of(config_.tracked_cell, round).all.bytes;  // WSAT: writes only
  }
  return bytes;
}

bool PtsWorkload::wsat_done() const {
  return written_bytes(rounds_.rounds()) >= kWsatCapacityFills * config_.capacity_bytes;
}

void PtsWorkload::set_attributes(PrepareContext& ctx) const {
  ctx.set_attribute("pts.rounds", static_cast<std::int64_t>(rounds_.rounds()));
  ctx.set_attribute("pts.steady", std::string(rounds_.steady() ? "yes" : "no"));
  const std::vector<double>& series = rounds_.tracked_series();
  for (std::size_t i = 0; i < series.size(); ++i) {
    ctx.set_attribute(fmt::format("pts.round.{}.tracked", i + 1), series[i]);
  }
  std::vector<std::string> not_valid = config_.not_valid;
  if (config_.test == PtsTest::kWsat) {
    for (std::size_t round = 1; round <= rounds_.rounds(); ++round) {
      ctx.set_attribute(fmt::format("pts.round.{}.written_bytes", round),
                        static_cast<std::int64_t>(written_bytes(round)));
    }
    ctx.set_attribute("pts.wsat.written_bytes",
                      static_cast<std::int64_t>(written_bytes(rounds_.rounds())));
    ctx.set_attribute("pts.wsat.target_bytes",
                      static_cast<std::int64_t>(kWsatCapacityFills * config_.capacity_bytes));
    if (rounds_.rounds() == config_.max_rounds && !wsat_done()) {
      not_valid.push_back(fmt::format("rounds={} ended before {} x capacity was written",
                                      config_.max_rounds, kWsatCapacityFills));
    }
  } else if (config_.wdpc && !rounds_.steady() && rounds_.rounds() == config_.max_rounds &&
             config_.max_rounds < kPtsMaxRounds) {
    not_valid.push_back(fmt::format("rounds={}: not steady within PTS's {} rounds",
                                    config_.max_rounds, kPtsMaxRounds));
  }
  std::string reasons;
  for (const std::string& reason : not_valid) reasons += (reasons.empty() ? "" : "; ") + reason;
  ctx.set_attribute("pts.valid", std::string(not_valid.empty() ? "yes" : "no"));
  ctx.set_attribute("pts.not_valid", reasons);
  if (const auto& figures = rounds_.figures()) {
    ctx.set_attribute("pts.window.first_round",
                      static_cast<std::int64_t>(*rounds_.window_first_round()));
    ctx.set_attribute("pts.window.last_round",
                      static_cast<std::int64_t>(rounds_.window_last_round()));
    ctx.set_attribute("pts.window.mean", figures->window_mean);
    ctx.set_attribute("pts.window.slope_per_round", figures->slope);
    ctx.set_attribute("pts.window.data_excursion_percent", figures->data_excursion_percent);
    ctx.set_attribute("pts.window.fit_excursion_percent", figures->fit_excursion_percent);
    ctx.set_attribute("pts.window.data_excursion_limit_percent", kPtsDataExcursionPercent);
    ctx.set_attribute("pts.window.fit_excursion_limit_percent", kPtsFitExcursionPercent);
  }
  if (rounds_.steady()) {
    ctx.set_attribute("pts.steady_after_rounds",
                      static_cast<std::int64_t>(rounds_.window_last_round()));
  }
  set_wdpc_attributes(ctx);
  for (std::size_t i = 0; i < cells_.size() && rounds_.rounds() > 0; ++i) {
    const PtsCellWindow w = rounds_.window_of(i);
    const std::string key = cell_key(i);
    ctx.set_attribute(key + ".iops", w.iops);
    ctx.set_attribute(key + ".throughput_bytes_per_s", w.throughput_bytes_per_s);
    ctx.set_attribute(key + ".mean_latency_ns", w.mean_latency_ns);
    ctx.set_attribute(key + ".p99_latency_ns", static_cast<std::int64_t>(w.p99_latency_ns));
    ctx.set_attribute(key + ".max_latency_ns", static_cast<std::int64_t>(w.max_latency_ns));
    ctx.set_attribute(key + ".ops", static_cast<std::int64_t>(w.ops));
    ctx.set_attribute(key + ".bytes", static_cast<std::int64_t>(w.bytes));
  }
  if (dirth() && rounds_.rounds() > 0) set_dirth_points(ctx);
}

std::string PtsWorkload::cell_key(std::size_t cell) const {
  const PtsCell& c = cells_[cell];
  if (dirth()) return fmt::format("pts.cell.TC{}.QD{}", c.threads, c.queue_depth);
  return fmt::format("pts.cell.{}.{}", mix_text(c.read_percent), c.block_size_bytes);
}

void PtsWorkload::set_dirth_points(PrepareContext& ctx) const {
  // The max-IOPS point and the minimum-response-time (mean latency) point over the window.
  std::size_t max_iops = 0;
  std::size_t min_latency = 0;
  std::vector<PtsCellWindow> windows;
  for (std::size_t i = 0; i < cells_.size(); ++i) {
    windows.push_back(rounds_.window_of(i));
    if (windows[i].iops > windows[max_iops].iops) max_iops = i;
    if (windows[i].mean_latency_ns < windows[min_latency].mean_latency_ns) min_latency = i;
  }
  for (const auto& [name, cell] :
       {std::pair<const char*, std::size_t>{"max_iops", max_iops},
        std::pair<const char*, std::size_t>{"min_latency", min_latency}}) {
    const std::string key = fmt::format("pts.dirth.{}", name);
    const PtsCell& c = cells_[cell];
    ctx.set_attribute(key + ".threads", static_cast<std::int64_t>(c.threads));
    ctx.set_attribute(key + ".queue_depth", static_cast<std::int64_t>(c.queue_depth));
    ctx.set_attribute(key + ".oio", static_cast<std::int64_t>(c.oio()));
    ctx.set_attribute(key + ".iops", windows[cell].iops);
    ctx.set_attribute(key + ".mean_latency_ns", windows[cell].mean_latency_ns);
    ctx.set_attribute(key + ".histogram", histogram_text(rounds_.window_ops(cell).latency));
  }
}

}  // namespace iobench::plugins::disk
