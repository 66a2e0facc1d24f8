// fio 3.x JSON (--output-format=json; fio_ior_hdr.md 1.4) into a document: one step per job
// (jobname; with --group_reporting the one entry of the group), workload "fio", one phase per
// direction that did I/O ("read", "write", "trim", "mixed"), as iobench's disk workload names
// its read and write phases. Figures, in fio's own units: bw_bytes (bytes/s), iops (ops/s),
// lat_ns mean and max (submission + completion, ns), clat_ns percentiles p50/p99/p99.9 (ns; fio
// prints completion-latency percentiles by default), usr_cpu + sys_cpu (% of one CPU, per job:
// given to the phase only when the job did one direction, as it then is that phase's; scaled
// to the phase's wall time, so a group's figure is all its jobs' CPU, as iobench counts it).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <iobench/printable.hpp>
#include <map>
#include <nlohmann/json.hpp>

#include "report/classic/classic_reader.hpp"

namespace iobench::detail::classic {

namespace {

using Json = nlohmann::json;

constexpr std::array<std::string_view, 4> kDirections{"read", "write", "trim", "mixed"};

struct Reader {
  std::string_view source;

  [[noreturn]] void bad(const std::string& pointer, const std::string& what) const {
    throw ConfigError(fmt::format("{}: {}: {}", printable(source), pointer, what));
  }

  double number(const Json& object, const std::string& pointer, const char* key) const {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number()) {
      bad(pointer + "/" + key, "expected a number (fio 3.x JSON)");
    }
    return it->get<double>();
  }

  // The number at `key` when there is one.
  static std::optional<double> optional_number(const Json& object, const char* key) {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
  }

  static std::string text_of(const Json& value) {
    return value.is_string() ? value.get<std::string>() : value.dump();
  }
};

// The line of byte `offset` of `text` (1-based).
std::size_t line_at(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + offset, '\n'));
}

// A --group_reporting entry: the job's numjobs (its options, else the global ones) is more than
// the entries of its name (without group_reporting fio writes one entry per job).
bool is_group(const StepResult& step, std::size_t entries) {
  const auto numjobs = step.params.find("numjobs");
  if (numjobs == step.params.end()) return false;
  std::size_t jobs = 0;
  const std::string& text = numjobs->second;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), jobs);
  return ec == std::errc() && end == text.data() + text.size() && jobs > entries;
}

}  // namespace

ResultDocument read_fio_json(std::string_view text, std::string_view source) {
  ResultDocument document = classic_document(ResultFormat::kFioJson);
  // fio prints notes ("note: both iodepth >= 1 and synchronous I/O engine ...") before the
  // document on the same stdout: the JSON starts at the first line opening with '{'.
  std::size_t start = 0;
  while (start < text.size() && text[start] != '{') {
    const std::size_t next = text.find('\n', start);
    if (next == std::string_view::npos) {
      start = text.size();
      break;
    }
    start = next + 1;
  }
  Json root;
  try {
    root = Json::parse(text.substr(start), nullptr, true, false);
  } catch (const Json::parse_error& e) {
    fail(source, line_at(text, start + (e.byte > 0 ? e.byte - 1 : 0)),
         fmt::format("expected fio's JSON output (--output-format=json): {}",
                     std::string(e.what()).substr(std::string(e.what()).find(':') + 2)));
  } catch (const Json::out_of_range& e) {
    // A number past double's range ("3e308" is, "1e309" is not): nlohmann throws this, not a
    // parse error, and it says which number but not where.
    fail(source, line_at(text, start),
         fmt::format("expected fio's JSON output (--output-format=json): {}",
                     std::string(e.what()).substr(std::string(e.what()).find(']') + 2)));
  }
  const Reader r{source};
  if (!root.is_object() || !root.contains("fio version") || !root["fio version"].is_string()) {
    r.bad("/fio version", "expected fio's JSON output: an object with \"fio version\"");
  }
  document.source->tool_version = root["fio version"].get<std::string>();
  const auto jobs = root.find("jobs");
  if (jobs == root.end() || !jobs->is_array() || jobs->empty()) {
    r.bad("/jobs", "expected a non-empty array of jobs (client mode's client_stats is not read)");
  }
  std::map<std::string, std::string> global;
  if (const auto g = root.find("global options"); g != root.end() && g->is_object()) {
    for (auto it = g->begin(); it != g->end(); ++it) global[it.key()] = Reader::text_of(*it);
  }
  std::map<std::string, std::size_t> entries_named;  // a job without group_reporting: numjobs
  for (const Json& job : *jobs) {
    if (job.is_object() && job.contains("jobname") && job["jobname"].is_string()) {
      ++entries_named[job["jobname"].get<std::string>()];
    }
  }
  for (std::size_t j = 0; j < jobs->size(); ++j) {
    const Json& job = (*jobs)[j];
    const std::string pointer = fmt::format("/jobs/{}", j);
    if (!job.is_object() || !job.contains("jobname") || !job["jobname"].is_string()) {
      r.bad(pointer + "/jobname", "expected a job object with a jobname string");
    }
    StepResult& step = add_step(document, job["jobname"].get<std::string>(), "fio");
    step.params = global;
    step.params["fio_version"] = document.source->tool_version;
    if (const auto o = job.find("job options"); o != job.end() && o->is_object()) {
      for (auto it = o->begin(); it != o->end(); ++it) step.params[it.key()] = Reader::text_of(*it);
    }
    if (const auto e = Reader::optional_number(job, "error"); e && *e != 0) {
      step.status = Status::kFailed;
      step.message = fmt::format("fio reported error {}", *e);
    }
    std::vector<PhaseResult*> ran;
    for (const std::string_view direction : kDirections) {
      const auto d = job.find(direction);
      if (d == job.end()) continue;
      const std::string at = fmt::format("{}/{}", pointer, direction);
      if (!d->is_object()) r.bad(at, "expected an object");
      const double ios = r.number(*d, at, "total_ios");
      if (ios == 0 && r.number(*d, at, "io_bytes") == 0) continue;
      PhaseResult& phase = add_phase(step, std::string(direction));
      phase.wall_ns = ns_of_seconds(r.number(*d, at, "runtime") / 1e3);  // ms
      ReportedFigures& f = figures(phase);
      f.throughput_bytes_per_s = figure(r.number(*d, at, "bw_bytes"));
      f.iops = figure(r.number(*d, at, "iops"));
      if (const auto lat = d->find("lat_ns"); lat != d->end() && lat->is_object()) {
        f.latency_mean_ns = figure(r.number(*lat, at + "/lat_ns", "mean"));
        f.latency_max_ns = figure(r.number(*lat, at + "/lat_ns", "max"));
      }
      const auto clat = d->find("clat_ns");
      if (clat != d->end() && clat->is_object() && clat->contains("percentile") &&
          (*clat)["percentile"].is_object()) {
        const Json& p = (*clat)["percentile"];
        const auto pick = [&](const char* key) -> std::optional<ReportedFigure> {
          const auto v = Reader::optional_number(p, key);
          return v ? std::optional<ReportedFigure>(figure(*v)) : std::nullopt;
        };
        f.latency_p50_ns = pick("50.000000");
        f.latency_p99_ns = pick("99.000000");
        f.latency_p99_9_ns = pick("99.900000");
      }
      ran.push_back(&phase);
    }
    if (ran.empty()) r.bad(pointer, "expected a read, write or trim part that did I/O");
    double cpu = r.number(job, pointer, "usr_cpu") + r.number(job, pointer, "sys_cpu");
    if (ran.size() == 1) {
      // fio divides CPU time by job_runtime, the sum of its jobs' run times when the entry is
      // a --group_reporting group (stat.c adds both over the group's jobs): a mean per job.
      // The phase's figure is all of the group's CPU time over the phase's wall time.
      const auto job_runtime = Reader::optional_number(job, "job_runtime");
      if (is_group(step, entries_named[step.name]) && job_runtime && *job_runtime > 0 &&
          ran.front()->wall_ns > 0) {
        cpu *= *job_runtime * 1e6 / static_cast<double>(ran.front()->wall_ns);
      }
      figures(*ran.front()).cpu_percent = figure(cpu);
    } else {
      not_mapped(document, 0,
                 fmt::format("job '{}': usr_cpu + sys_cpu ({:.2f} %) is the job's, over its "
                             "directions together: not given to one phase",
                             printable(step.name), cpu));
    }
  }
  if (root.contains("disk_util")) not_mapped(document, 0, "disk_util not mapped");
  return document;
}

}  // namespace iobench::detail::classic
