// fio_aligned_with_disk: fio's jobs placed as the disk steps doing the same I/O, so that
// `iobench compare fio.json disk.json` compares them instead of listing both as not compared.
#include "report/compare_fio.hpp"

#include <fmt/format.h>

#include <iobench/error.hpp>
#include <iobench/printable.hpp>
#include <iobench/units.hpp>
#include <map>
#include <string>

namespace iobench::detail {
namespace {

// What a fio job and a disk step must agree on to be compared.
struct Signature {
  std::string operation;  // read, write
  std::string seek;       // sequential, random
  std::uint64_t bs = 0;   // bytes
  std::uint64_t iodepth = 1;
  std::string engine;  // without options ("io_uring:fixedbufs" -> "io_uring")
  std::string mode;    // buffered, direct, mmap

  bool operator==(const Signature&) const = default;
};

std::string param(const StepResult& step, const std::string& key, std::string fallback) {
  const auto it = step.params.find(key);
  return it == step.params.end() || it->second.empty() ? fallback : it->second;
}

std::string describe(const Signature& s) {
  return fmt::format("operation={} seek={} bs={} iodepth={} engine={} mode={}", s.operation, s.seek,
                     s.bs, s.iodepth, s.engine, s.mode);
}

std::optional<Signature> disk_signature(const StepResult& step) {
  if (step.workload != "disk") return std::nullopt;
  try {
    Signature s;
    s.operation = param(step, "operation", "write");
    s.seek = param(step, "seek", "sequential");
    s.bs = parse_size(param(step, "bs", "1m"), "bs");
    s.iodepth = parse_count(param(step, "iodepth", "1"), "iodepth");
    s.mode = param(step, "mode", "buffered");
    const std::string engine = step.engine.empty() ? param(step, "engine", "psync") : step.engine;
    s.engine = engine.substr(0, engine.find(':'));
    if (s.mode == "mmap") s.engine = "mmap";
    return s;
  } catch (const ConfigError&) {
    return std::nullopt;  // a param that does not parse: not a step to line fio up with
  }
}

// The disk signature of a fio job (fio's defaults where it sets nothing), or why there is none.
std::optional<Signature> fio_signature(const StepResult& job, std::string& why) {
  static const std::map<std::string, std::pair<std::string, std::string>> kRw{
      {"read", {"read", "sequential"}},     {"randread", {"read", "random"}},
      {"write", {"write", "sequential"}},   {"randwrite", {"write", "random"}},
      {"rw", {"mixed", "sequential"}},      {"readwrite", {"mixed", "sequential"}},
      {"randrw", {"mixed", "random"}},      {"trim", {"trim", "sequential"}},
      {"randtrim", {"trim", "random"}},     {"trimwrite", {"trim", "sequential"}},
      {"randtrimwrite", {"trim", "random"}}};
  const std::string rw = param(job, "rw", param(job, "readwrite", "read"));
  const auto it = kRw.find(rw.substr(0, rw.find(':')));
  if (it == kRw.end()) {
    why = fmt::format("rw={} is no disk operation", rw);
    return std::nullopt;
  }
  if (it->second.first == "mixed") {
    why =
        fmt::format("rw={}: fio reports its reads and writes apart, disk's mixed phase is one", rw);
    return std::nullopt;
  }
  if (it->second.first == "trim") {
    why = fmt::format("rw={}: disk does not trim", rw);
    return std::nullopt;
  }
  Signature s;
  s.operation = it->second.first;
  s.seek = it->second.second;
  try {
    s.bs = parse_size(param(job, "bs", param(job, "blocksize", "4k")), "bs");
    s.iodepth = parse_count(param(job, "iodepth", "1"), "iodepth");
    const bool direct = param(job, "direct", "0") == "1" || param(job, "buffered", "1") == "0";
    s.engine = param(job, "ioengine", "psync");
    s.mode = s.engine == "mmap" ? "mmap" : direct ? "direct" : "buffered";
  } catch (const ConfigError& e) {
    why = e.what();
    return std::nullopt;
  }
  return s;
}

// The disk steps of one input with their suite placement (or their own name).
struct DiskStep {
  std::string suite_step;
  std::optional<std::string> point;
  Signature signature;
};

std::vector<DiskStep> disk_steps(const ResultDocument& document) {
  std::vector<DiskStep> out;
  const bool placed = document.placements.size() == document.run.steps.size();
  for (std::size_t i = 0; i < document.run.steps.size(); ++i) {
    const auto signature = disk_signature(document.run.steps[i]);
    if (!signature) continue;
    DiskStep step{.suite_step = document.run.steps[i].name, .point = {}, .signature = *signature};
    if (placed) {
      step.suite_step = document.placements[i].suite_step;
      step.point = document.placements[i].sweep_point;
    }
    const bool known = std::any_of(out.begin(), out.end(), [&](const DiskStep& d) {
      return d.suite_step == step.suite_step && d.point == step.point;
    });
    if (!known) out.push_back(std::move(step));
  }
  return out;
}

// `job` as the disk step `target`: its params under disk's names beside fio's own.
void place_as_disk(ResultDocument& document, std::size_t index, const DiskStep& target,
                   std::size_t repetition) {
  StepResult& job = document.run.steps[index];
  const Signature& s = target.signature;
  job.workload = "disk";
  job.engine = s.engine;
  job.params["operation"] = s.operation;
  job.params["seek"] = s.seek;
  job.params["bs"] = std::to_string(s.bs);
  job.params["iodepth"] = std::to_string(s.iodepth);
  job.params["mode"] = s.mode;
  document.placements[index] = StepPlacement{
      .suite_step = target.suite_step, .sweep_point = target.point, .repetition = repetition};
}

}  // namespace

std::vector<std::optional<ResultDocument>> fio_aligned_with_disk(
    std::span<const CompareInput> inputs) {
  std::vector<std::optional<ResultDocument>> out(inputs.size());
  std::vector<DiskStep> disk;
  for (const CompareInput& input : inputs) {
    for (DiskStep& step : disk_steps(input.document)) disk.push_back(std::move(step));
  }
  if (disk.empty()) return out;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const ResultDocument& document = inputs[i].document;
    if (!document.source || document.source->format != "fio-json") continue;
    ResultDocument copy = document;
    std::map<std::string, std::size_t> entries;
    for (const StepResult& job : copy.run.steps) ++entries[job.name];
    copy.placements.clear();
    for (const StepResult& job : copy.run.steps) {
      copy.placements.push_back(
          StepPlacement{.suite_step = job.name, .sweep_point = {}, .repetition = 1});
    }
    std::map<std::pair<std::string, std::optional<std::string>>, std::size_t> uses;
    for (std::size_t j = 0; j < copy.run.steps.size(); ++j) {
      const StepResult& job = copy.run.steps[j];
      std::string why;
      std::optional<Signature> signature;
      if (entries[job.name] > 1) {
        why = fmt::format(
            "{} entries (numjobs without --group_reporting): each is one clone's, "
            "not the job's figures",
            entries[job.name]);
      } else {
        signature = fio_signature(job, why);
      }
      const DiskStep* target = nullptr;
      for (const DiskStep& step : disk) {
        if (signature && step.signature == *signature) target = &step;
        if (target != nullptr) break;
      }
      if (signature && target == nullptr) {
        why = fmt::format("no disk step does {}", describe(*signature));
      }
      if (target == nullptr) {
        copy.source->not_mapped.push_back(fmt::format(
            "fio job '{}' not lined up with a disk step: {}", printable(job.name), why));
        continue;
      }
      place_as_disk(copy, j, *target, ++uses[{target->suite_step, target->point}]);
    }
    out[i] = std::move(copy);
  }
  return out;
}

}  // namespace iobench::detail
