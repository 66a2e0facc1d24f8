#include "plugins/dbench/dbench_workload.hpp"

#include <fmt/format.h>
#include <sys/xattr.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iobench/clock.hpp>
#include <iobench/error.hpp>
#include <iobench/runner.hpp>
#include <map>
#include <set>

#include "plugins/dbench/dir_util.hpp"
#include "plugins/dbench/loadfile_cache.hpp"
#include "plugins/dbench/loadfile_stream.hpp"
#include "plugins/dbench/replay_counters.hpp"
#include "plugins/dbench/replay_worker.hpp"

namespace iobench::plugins::dbench {

namespace {

/// `text` with every "client1" replaced by "client<id>", as dbench rewrites paths.
std::string for_client(std::string_view text, std::size_t id) {
  const std::string name = "client" + std::to_string(id);
  std::string out;
  for (std::size_t pos = 0;;) {
    const std::size_t hit = text.find("client1", pos);
    if (hit == std::string_view::npos) return out.append(text.substr(pos));
    out.append(text.substr(pos, hit - pos)).append(name);
    pos = hit + 7;
  }
}

/// One process of the cleanup phase: removes the per-client roots (e.g. clients/client3) of its
/// clients, timing each client's removal as one "cleanup" op.
class CleanupWorker final : public PhaseWorker {
 public:
  CleanupWorker(ConfinedDir run_dir, std::vector<std::string> roots)
      : run_dir_(std::move(run_dir)), roots_(std::move(roots)) {}
  void run(WorkerContext& ctx) override {
    std::string ignored;
    for (const std::string& root : roots_) {
      const std::uint64_t start = monotonic_ns();
      // Leftovers are removed and reported after the phase.
      (void)remove_tree(run_dir_, root, ignored);
      ctx.record(0, 0, monotonic_ns() - start);
    }
  }

 private:
  ConfinedDir run_dir_;
  std::vector<std::string> roots_;  ///< names beneath run_dir_
};

/// How loadfile `name` is parsed: by the validation and again by each replay.
ParseOptions parse_options(const DbenchConfig& config, const std::string& name) {
  ParseOptions options;
  options.file_name = name;
  options.format = config.format;
  options.unknown_ops = config.unknown_ops;
  return options;
}

/// A worker whose set-up saw a stop request: it does nothing (keep_going() is false by then).
class StoppedWorker final : public PhaseWorker {
 public:
  void run(WorkerContext& /*ctx*/) override {}
};

}  // namespace

DbenchWorkload::DbenchWorkload(DbenchConfig config,
                               std::vector<std::shared_ptr<const Loadfile>> loadfiles,
                               std::size_t target_count)
    : config_(std::move(config)), loadfiles_(std::move(loadfiles)), target_count_(target_count) {}

bool DbenchWorkload::paced() const noexcept {
  if (config_.target_rate_mb_s > 0) return true;
  return std::any_of(loadfiles_.begin(), loadfiles_.end(),
                     [](const auto& lf) { return lf->stats.has_timestamps; });
}

std::vector<PhaseSpec> DbenchWorkload::phases() const {
  PhaseSpec execute;
  execute.name = "execute";
  for (const auto name : table_op_names()) execute.op_names.emplace_back(name);
  for (const auto name : kCounterNames) execute.counter_names.emplace_back(name);
  execute.workers = config_.procs;
  execute.mode = WorkerMode::kProcesses;
  execute.time_limit = config_.time_limit;
  execute.warmup = config_.warmup;
  // Paced ops are recorded once: latency from the intended start, service time as dbench times.
  execute.latency_parts.service = paced();
  std::vector<PhaseSpec> out{execute};
  if (!config_.skip_cleanup) {
    PhaseSpec cleanup;
    cleanup.name = "cleanup";
    cleanup.op_names = {"cleanup"};
    cleanup.workers = config_.procs;
    cleanup.mode = WorkerMode::kProcesses;
    cleanup.measured = false;
    out.push_back(cleanup);
  }
  return out;
}

std::uint64_t DbenchWorkload::planned_bytes(std::size_t target_index) const {
  if (config_.fileio.fake_io) return 0;
  std::uint64_t bytes = 0;
  for (std::size_t p = 0; p < config_.procs; ++p) {
    if (target_index_of(p, target_count_) != target_index) continue;  // process p = worker p
    bytes += config_.clients_per_process * loadfile_of(p).stats.written_bytes;
  }
  return bytes;
}

std::uint64_t DbenchWorkload::retained_bytes(std::size_t target_index) const {
  return config_.skip_cleanup ? planned_bytes(target_index) : 0;
}

void DbenchWorkload::prepare(PrepareContext& ctx) {
  if (config_.fileio.xattr) {
    // dbench aborts at the first failed fsetxattr; refuse before any client starts instead.
    for (const Target& target : ctx.targets()) {
      const char* probe = "user.iobench_probe";
      if (::fsetxattr(target.run_dir.fd(), probe, "1", 1, 0) != 0) {
        const int err = errno;
        throw ConfigError(fmt::format(
            "dbench: xattr=true but '{}' does not take user extended attributes ({}); mount it "
            "with user_xattr or set xattr=false",
            target.user_path.string(), std::strerror(err)));
      }
      (void)::fremovexattr(target.run_dir.fd(), probe);
    }
  }
  std::string names;
  for (std::size_t i = 0; i < config_.loadfiles.size(); ++i) {
    names += (i == 0 ? "" : ",") + config_.loadfiles[i];
  }
  ctx.set_attribute("loadfile", names);
  ctx.set_attribute("data", config_.fileio.data.to_string());
  ctx.set_attribute(
      "loadfile_format",
      std::string(loadfiles_.front()->format == LoadfileFormat::kDbench2 ? "dbench2" : "nbench"));
  ctx.set_attribute("clients", static_cast<std::int64_t>(config_.clients()));
  ctx.set_attribute("procs", static_cast<std::int64_t>(config_.procs));
  ctx.set_attribute("clients_per_process", static_cast<std::int64_t>(config_.clients_per_process));
  ctx.set_attribute("time_limit_s", static_cast<double>(config_.time_limit.count()) / 1e9);
  ctx.set_attribute("warmup_s", static_cast<double>(config_.warmup.count()) / 1e9);
  ctx.set_attribute("tick_seconds", static_cast<std::int64_t>(config_.tick_seconds()));
  ctx.set_attribute("target_rate_mb_s", config_.target_rate_mb_s);
  ctx.set_attribute("sync_open", static_cast<std::int64_t>(config_.fileio.sync_open));
  ctx.set_attribute("sync_dirs", static_cast<std::int64_t>(config_.fileio.sync_dirs));
  ctx.set_attribute("per_client_results", static_cast<std::int64_t>(config_.per_client_results));
  ctx.set_attribute("paced", static_cast<std::int64_t>(paced()));
  std::int64_t skipped = 0;
  for (const auto& lf : loadfiles_) {
    skipped += static_cast<std::int64_t>(lf->stats.unknown_lines);
    if (lf->stats.unknown_ops.empty()) continue;
    std::string list;
    for (const auto& u : lf->stats.unknown_ops) {
      list += fmt::format("{}{} ({} line{}, first at line {})", list.empty() ? "" : ", ", u.name,
                          u.count, u.count == 1 ? "" : "s", u.first_line);
    }
    ctx.warn(fmt::format("{}: {} line{} with unknown operations skipped: {}", lf->name,
                         lf->stats.unknown_lines, lf->stats.unknown_lines == 1 ? "" : "s", list));
  }
  ctx.set_attribute("unknown_op_lines", skipped);
  report_ = std::make_unique<ReplayReportMapping>();
}

std::unique_ptr<PhaseWorker> DbenchWorkload::make_worker(std::size_t phase, WorkerContext& ctx) {
  const std::size_t process = ctx.worker_index();
  const Loadfile& lf = loadfile_of(process);
  const ConfinedDir& run_dir = ctx.target().run_dir;
  const std::size_t first_client = process * config_.clients_per_process;
  if (phase == kCleanupPhase) {
    std::vector<std::string> roots;
    for (std::size_t c = first_client; c < first_client + config_.clients_per_process; ++c) {
      // Roots start with '/': the names beneath the run directory follow it.
      for (const std::string& root : lf.client_roots)
        roots.push_back(for_client(root.substr(1), c));
    }
    return std::make_unique<CleanupWorker>(run_dir, std::move(roots));
  }
  // The process reads its loadfile as it replays it, as dbench's clients do: memory does not
  // grow with the loadfile, and the parent's validation kept no program to share.
  const std::string& name = config_.loadfiles[process % config_.loadfiles.size()];
  auto stream = std::make_unique<LoadfileStream>(name, config_.max_loadfile_bytes,
                                                 parse_options(config_, name), lf);
  // Clients of different loadfiles may share a target's directories: a shared directory one
  // of them removes is gone for the others too (a check that costs only on ENOENT).
  LoadfileStats sizes = lf.stats;
  sizes.removes_shared_dirs = std::any_of(loadfiles_.begin(), loadfiles_.end(), [](const auto& l) {
    return l->stats.removes_shared_dirs;
  });
  std::vector<std::unique_ptr<FileioClient>> clients;
  for (std::size_t c = first_client; c < first_client + config_.clients_per_process; ++c) {
    // Building a client allocates its buffers: see a stop request soon.
    if (stop_requested()) return std::make_unique<StoppedWorker>();
    clients.push_back(std::make_unique<FileioClient>(stream->tables(), sizes, config_.fileio,
                                                     run_dir, c, config_.clients(), ctx.seed(),
                                                     report_ ? &report_->report() : nullptr));
  }
  ReplayTiming timing;
  timing.rate_bytes_per_s = config_.target_rate_mb_s * 1e6;
  timing.warmup_ns = static_cast<std::uint64_t>(config_.warmup.count());
  timing.tick_window_ns = config_.tick_seconds() * 1'000'000'000ULL;
  timing.run_once = config_.run_once;
  return std::make_unique<ReplayWorker>(std::move(stream), timing, std::move(clients));
}

void DbenchWorkload::remove_client_files(PrepareContext& ctx) {
  std::uint64_t failures = 0;
  std::string first_error;
  const auto targets = ctx.targets();
  for (std::size_t t = 0; t < targets.size(); ++t) {
    if (!targets[t].run_dir) continue;
    std::set<std::string> names;
    for (std::size_t p = 0; p < config_.procs; ++p) {
      if (target_index_of(p, targets.size()) != t) continue;
      const std::size_t first_client = p * config_.clients_per_process;
      for (const std::string& top : loadfile_of(p).top_level_names) {
        for (std::size_t c = first_client; c < first_client + config_.clients_per_process; ++c) {
          names.insert(for_client(top, c));
        }
      }
    }
    for (const std::string& name : names) {
      failures += remove_tree(targets[t].run_dir, name, first_error);
    }
  }
  if (failures > 0) {
    ctx.warn(fmt::format("dbench cleanup: {} entr{} could not be removed; first: {}", failures,
                         failures == 1 ? "y" : "ies", first_error));
  }
}

void DbenchWorkload::warn_about_problems(PrepareContext& ctx) const {
  if (!report_) return;
  const ReplayReport& report = report_->report();
  std::uint64_t total = 0;
  std::string kinds;
  for (std::size_t c = 0; c < kCounterCount; ++c) {
    const std::uint64_t n = report.problems[c].load(std::memory_order_relaxed);
    if (n == 0) continue;
    total += n;
    kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", kCounterNames[c], n);
  }
  if (total == 0) return;
  const std::string_view first = report.first_text();
  ctx.warn(fmt::format(
      "dbench: {} operation{} did not go as the loadfile expects ({}; warm-up included){}{}; "
      "the figures count only what was done",
      total, total == 1 ? "" : "s", kinds, first.empty() ? "" : "; the first: ", first));
}

void DbenchWorkload::after_phase(std::size_t phase, const PhaseResult& /*result*/,
                                 PrepareContext& ctx) {
  if (phase == kExecutePhase) warn_about_problems(ctx);
  if (phase != kCleanupPhase) return;
  remove_client_files(ctx);
  cleaned_ = true;
}

void DbenchWorkload::finish(PrepareContext& ctx) {
  if (config_.skip_cleanup || cleaned_) return;
  remove_client_files(ctx);  // the cleanup phase did not run (failure or interruption)
  cleaned_ = true;
}

std::unique_ptr<Workload> make_dbench_workload(const WorkloadSetup& setup) {
  DbenchConfig config = read_dbench_config(setup.params);
  std::map<std::string, std::shared_ptr<const Loadfile>> parsed;
  std::vector<std::shared_ptr<const Loadfile>> loadfiles;
  for (const std::string& name : config.loadfiles) {
    auto& slot = parsed[name];
    if (!slot) {
      ParseOptions options = parse_options(config, name);
      // client.txt parses in 0.1 s, a bigger loadfile (or a sanitizer build) takes seconds.
      options.stop_requested = [&setup] { return setup.stop_requested(); };
      slot = cached_loadfile(name, config.max_loadfile_bytes, options);
    }
    loadfiles.push_back(slot);
  }
  return std::make_unique<DbenchWorkload>(std::move(config), std::move(loadfiles),
                                          std::max<std::size_t>(setup.targets.size(), 1));
}

}  // namespace iobench::plugins::dbench
