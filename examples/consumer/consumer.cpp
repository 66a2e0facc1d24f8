// iobench-consumer: a quick look at one filesystem, as a tool built on libiobench would give it.
// Runs the seeds' disk test at two block sizes, tiotest, dbench with 2 clients and bonnie++ in
// DIR through the library's run API, prints one summary line per run and the bonnie++ table,
// and writes every result as one JSON document (iobench-result/3).
//
// Usage: consumer DIR RESULT.json [--size=64m] [--tiotest-size=16m] [--bonnie-size=64]
//                 [--bonnie-files=1] [--bonnie-per-char=3] [--dbench-loadfile=FILE]
//                 [--dbench-time=10s] [--dbench-once] [--deadline=DURATION]
// --size is each disk run's file (a multiple of 64 KiB); --bonnie-size is bonnie++ -s in MiB,
// --bonnie-files its -n (in 1024s of files), --bonnie-per-char the MiB of its per-char tests;
// --dbench-once replays the loadfile once per client instead of looping it for --dbench-time;
// --deadline stops the whole run after that long (what was done is still reported).
// Exit status: 0 ok, 1 a run failed, 2 bad usage, 130 interrupted (SIGINT/SIGTERM, deadline).
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <iobench/iobench.hpp>
#include <iostream>
#include <iterator>
#include <mutex>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

struct Options {
  std::filesystem::path dir;
  std::filesystem::path json;
  std::string size = "64m";
  std::string tiotest_size = "16m";
  std::string bonnie_size = "64";
  std::string bonnie_files = "1";
  std::string bonnie_per_char = "3";
  std::string dbench_loadfile = "/usr/share/dbench/client.txt";
  std::string dbench_time = "10s";
  bool dbench_once = false;
  std::chrono::nanoseconds deadline{0};
};

constexpr std::string_view kUsage =
    "usage: consumer DIR RESULT.json [--size=64m] [--tiotest-size=16m] [--bonnie-size=64]\n"
    "                [--bonnie-files=1] [--bonnie-per-char=3] [--dbench-loadfile=FILE]\n"
    "                [--dbench-time=10s] [--dbench-once] [--deadline=DURATION]\n";

// Throws iobench::ConfigError for anything it does not understand.
Options parse_options(int argc, char** argv) {
  Options o;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (!arg.starts_with("--")) {
      positional.push_back(arg);
      continue;
    }
    const std::size_t eq = arg.find('=');
    const std::string key = arg.substr(0, eq);
    const std::string value = eq == std::string::npos ? std::string() : arg.substr(eq + 1);
    if (key == "--dbench-once" && eq == std::string::npos) {
      o.dbench_once = true;
    } else if (eq == std::string::npos) {
      throw iobench::ConfigError(arg + ": give a value, e.g. " + arg + "=...");
    } else if (key == "--size") {
      o.size = value;
    } else if (key == "--tiotest-size") {
      o.tiotest_size = value;
    } else if (key == "--bonnie-size") {
      o.bonnie_size = value;
    } else if (key == "--bonnie-files") {
      o.bonnie_files = value;
    } else if (key == "--bonnie-per-char") {
      o.bonnie_per_char = value;
    } else if (key == "--dbench-loadfile") {
      o.dbench_loadfile = value;
    } else if (key == "--dbench-time") {
      o.dbench_time = value;
    } else if (key == "--deadline") {
      o.deadline = iobench::parse_duration(value, "--deadline");
    } else {
      throw iobench::ConfigError("unknown option '" + key + "'");
    }
  }
  if (positional.size() != 2) throw iobench::ConfigError("give DIR and RESULT.json");
  o.dir = positional[0];
  o.json = positional[1];
  return o;
}

// The runs, built in code: workload, params (as `iobench run` takes them), targets.
std::vector<iobench::Step> plan(const Options& o) {
  const std::vector<std::filesystem::path> targets{o.dir};
  std::vector<iobench::Step> steps;
  for (const char* bs : {"4k", "64k"}) {
    steps.push_back({.name = std::string("disk write ") + bs,
                     .workload = "disk",
                     .params = {{"operation", "write"}, {"bs", bs}, {"size", o.size}},
                     .targets = targets});
  }
  steps.push_back({.name = "tiotest",
                   .workload = "tiotest",
                   .params = {{"threads", "2"}, {"size", o.tiotest_size}, {"random_ops", "1000"}},
                   .targets = targets});
  steps.push_back({.name = "dbench 2 clients",
                   .workload = "dbench",
                   .params = {{"procs", "2"},
                              {"loadfile", o.dbench_loadfile},
                              {"time_limit", o.dbench_time},
                              {"run_once", o.dbench_once ? "true" : "false"}},
                   .targets = targets});
  steps.push_back({.name = "bonnie",
                   .workload = "bonnie",
                   .params = {{"size", o.bonnie_size + "m"},  // MiB, as bonnie++ -s
                              {"files", o.bonnie_files},
                              {"per_char", o.bonnie_per_char + "m"},
                              {"force", "true"}},
                   .targets = targets});
  return steps;
}

// "disk write 4k        ok    64.0 MiB    16384 ops in 210 ms: 319.6 MB/s, p99 45.2 us".
void print_summary(const iobench::StepResult& step) {
  std::uint64_t bytes = 0, ops = 0, wall_ns = 0;
  iobench::OpResult all;
  for (const iobench::PhaseResult& phase : step.phases) {
    bytes += phase.total_bytes();
    ops += phase.total_ops();
    wall_ns += phase.wall_ns;
    all.merge(phase.all_ops());
  }
  const double mb_per_s = iobench::to_mb_per_s(iobench::throughput_bytes_per_s(bytes, wall_ns));
  std::printf("%-18s %-11s %10s %10llu ops in %s: %.1f MB/s, p99 %s\n", step.name.c_str(),
              iobench::to_string(step.status), iobench::format_bytes(bytes).c_str(),
              static_cast<unsigned long long>(ops), iobench::format_duration(wall_ns).c_str(),
              mb_per_s, iobench::format_duration(all.latency.percentile(99)).c_str());
  if (!step.message.empty()) std::printf("  %s\n", step.message.c_str());
}

// Stops `stop` once `after` has passed, unless destroyed first.
class Deadline {
 public:
  Deadline(std::chrono::nanoseconds after, std::stop_source& stop) {
    if (after.count() <= 0) return;
    thread_ = std::jthread([after, &stop](std::stop_token own) {
      std::mutex mutex;
      std::condition_variable_any wake;
      std::unique_lock lock(mutex);
      wake.wait_for(lock, own, after, [] { return false; });
      if (!own.stop_requested()) stop.request_stop();
    });
  }

 private:
  std::jthread thread_;
};

// Loads the saved document as a tool that reads old results would, and checks it holds the
// figures of the run it was written from.
bool reads_back_equal(const std::string& path, const iobench::RunResult& result) {
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const iobench::ResultDocument document = iobench::parse_result_json(text);
  const iobench::RunResult& loaded = document.run;
  bool same = loaded.steps.size() == result.steps.size() && loaded.status == result.status;
  for (std::size_t s = 0; same && s < result.steps.size(); ++s) {
    const iobench::StepResult& a = result.steps[s];
    const iobench::StepResult& b = loaded.steps[s];
    same = a.name == b.name && a.status == b.status && a.phases.size() == b.phases.size();
    for (std::size_t p = 0; same && p < a.phases.size(); ++p) {
      const iobench::PhaseResult& x = a.phases[p];
      const iobench::PhaseResult& y = b.phases[p];
      same = x.name == y.name && x.total_bytes() == y.total_bytes() &&
             x.total_ops() == y.total_ops() && x.wall_ns == y.wall_ns &&
             x.all_ops().latency.percentile(99.0) == y.all_ops().latency.percentile(99.0);
    }
  }
  std::printf("%s read back: %zu step(s), %s\n", path.c_str(), loaded.steps.size(),
              same ? "the same figures" : "DIFFERENT figures");
  return same;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  try {
    options = parse_options(argc, argv);
  } catch (const iobench::ConfigError& e) {
    std::fprintf(stderr, "consumer: %s\n%.*s", e.what(), static_cast<int>(kUsage.size()),
                 kUsage.data());
    return 2;
  }
  try {
    const iobench::Registry registry = iobench::make_builtin_registry();
    const std::vector<iobench::Step> steps = plan(options);
    std::stop_source stop;
    const bool terminal = ::isatty(2) != 0;
    iobench::Runner runner(
        registry, {.progress_interval = std::chrono::seconds(1),
                   .on_progress =
                       [terminal](const iobench::ProgressSnapshot& p) {
                         if (!terminal) return;
                         std::fprintf(stderr, "\r[%zu/%zu %s] %s: %.1f MiB/s    ", p.step_index + 1,
                                      p.step_count, p.step_name.c_str(), p.phase_name.c_str(),
                                      iobench::to_mib_per_s(p.interval_bytes_per_s));
                       },
                   .stop_token = stop.get_token()});
    runner.validate(steps);  // every problem at once, before anything is written

    iobench::install_stop_signal_handlers();  // Ctrl-C: stop, clean up, report what was done
    const Deadline deadline(options.deadline, stop);
    const iobench::RunResult result = runner.run(steps);  // prints nothing itself
    if (terminal) std::fprintf(stderr, "\r\033[K");

    for (const iobench::StepResult& step : result.steps) print_summary(step);
    for (const iobench::StepResult& step : result.steps) {
      if (step.workload != "bonnie") continue;
      std::cout << '\n';
      iobench::write_bonnie_table(step, std::cout);
    }
    std::ofstream json(options.json, std::ios::binary | std::ios::trunc);
    json << iobench::to_json(result) << '\n';
    json.close();
    if (!json) {
      std::fprintf(stderr, "consumer: cannot write %s\n", options.json.c_str());
      return 1;
    }
    if (!reads_back_equal(options.json, result)) return 1;
    switch (result.status) {
      case iobench::Status::kOk:
      case iobench::Status::kSkipped:
        return 0;
      case iobench::Status::kInterrupted:
        return 130;
      case iobench::Status::kFailed:
        return 1;
      case iobench::Status::kNoMeasurement:  // every phase ended inside its warm-up
        return 3;
    }
    return 1;
  } catch (const iobench::ConfigError& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 2;
  } catch (const iobench::Error& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
