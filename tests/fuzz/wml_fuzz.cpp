// Fuzz target: filebench Workload Model Language text through parse_wml (lexer and parser).
//
// Invariants: only ConfigError is thrown, and its message starts with the file name and a
// "LINE:COL" inside the text; in a parsed model every flowop names an existing fileset or none,
// the flowops that need one have one, finishon* and rate-limit targets are flowops of the thread,
// sempost and wakeup have a target,
// an eventgen rate and hog iterations are within their bounds, fds are
// below kMaxFd, counts are at least 1, and every position lies inside the text; the sleeps add
// up to at most kMaxRunSeconds, a psrun period is a run's, a debug level is -1 to 10.
// `include` (iobench's extension) reads no file here: parse_wml without a reader refuses it, and
// a text that includes is parsed again with a reader from memory only (the text itself as
// fuzz.f, so including it is a cycle, and a fixed part.f; any other path is missing).
#include <filesystem>
#include <iobench/error.hpp>
#include <string>

#include "plugins/filebench/event_generator.hpp"
#include "plugins/filebench/wml_limits.hpp"
#include "plugins/filebench/wml_parser.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace fb = iobench::plugins::filebench;

std::uint32_t line_count(std::string_view text) {
  std::uint32_t lines = 1;
  for (const char c : text) lines += c == '\n';
  return lines;
}

void check_position(const fb::WmlPosition& where, std::uint32_t lines) {
  FUZZ_CHECK(where.line >= 1 && where.line <= lines && where.column >= 1, "position");
}

void check(std::string_view text, const fb::WmlIncludeReader* reader);

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = iobench::fuzz::as_text(data, size);
  check(text, nullptr);
  if (text.find("include") != std::string_view::npos) {
    const fb::WmlIncludeReader reader = [text](const std::filesystem::path& path) {
      const std::string name = path.lexically_normal().string();
      if (name == "fuzz.f") return std::string(text);
      if (name == "part.f") return std::string("set $part=4k\n");
      throw iobench::ConfigError("cannot read '" + path.string() + "': No such file");
    };
    check(text, &reader);
  }
  return 0;
}

namespace {

void check(std::string_view text, const fb::WmlIncludeReader* reader) {
  const std::uint32_t lines = line_count(text);
  fb::WmlModel model;
  try {
    model =
        reader != nullptr ? fb::parse_wml(text, "fuzz.f", *reader) : fb::parse_wml(text, "fuzz.f");
  } catch (const iobench::ConfigError& e) {
    const std::string message = e.what();
    FUZZ_CHECK(message.rfind("fuzz.f:", 0) == 0, message);
    const std::size_t colon = message.find(':', 7);
    FUZZ_CHECK(colon != std::string::npos, message);
    const auto line = static_cast<std::uint32_t>(std::stoul(message.substr(7, colon - 7)));
    FUZZ_CHECK(line >= 1 && line <= lines, message);
    return;
  }
  // Positions name a file parsed: the text itself (part.f defines nothing).
  FUZZ_CHECK(!model.sources.empty() && model.sources.front().name == "fuzz.f", "sources");
  for (const fb::FilesetDef& f : model.filesets) {
    FUZZ_CHECK(f.where.file == 0, f.name);
    check_position(f.where, lines);
    FUZZ_CHECK((f.entries >= 1 || f.leafdirs >= 1) && f.prealloc_pct <= 100, f.name);
    FUZZ_CHECK(f.single_file || f.dir_width >= 2, f.name);
    FUZZ_CHECK(fb::bad_name(f.name, true).empty(), f.name);
    FUZZ_CHECK(f.size.kind == fb::SizeSpec::Kind::kFixed ||
                   (f.size.kind == fb::SizeSpec::Kind::kRandVar && f.size.randvar != nullptr) ||
                   (f.size.kind == fb::SizeSpec::Kind::kCvar && f.size.cvar != nullptr) ||
                   (f.size.mean_bytes > 0 && f.size.gamma > 0),
               f.name);
    FUZZ_CHECK(f.size.fixed_bytes <= fb::kMaxSizeBytes && f.size.mean_bytes <= fb::kMaxSizeBytes,
               f.name);
  }
  for (const fb::ProcessDef& p : model.processes) {
    check_position(p.where, lines);
    FUZZ_CHECK(p.instances >= 1 && !p.threads.empty(), p.name);
    for (const fb::ThreadDef& t : p.threads) {
      FUZZ_CHECK(t.instances >= 1 && t.memsize >= 1 && !t.flowops.empty(), t.name);
      for (const fb::FlowopDef& f : t.flowops) {
        check_position(f.where, lines);
        FUZZ_CHECK(!f.name.empty() && f.iters >= 1 && f.iters <= 1'000'000 &&
                       fb::bad_name(f.name, false).empty(),
                   f.name);
        FUZZ_CHECK(f.value >= 0 && f.value <= fb::kMaxDelaySeconds, f.name);
        FUZZ_CHECK(f.fileset == fb::kNoFileset || f.fileset < model.filesets.size(), f.name);
        FUZZ_CHECK(f.fd < fb::kMaxFd && f.srcfd < fb::kMaxFd, f.name);
        const bool needs =
            f.kind == fb::FlowopKind::kCreateFile || f.kind == fb::FlowopKind::kOpenFile ||
            f.kind == fb::FlowopKind::kStatFile || f.kind == fb::FlowopKind::kListDir ||
            f.kind == fb::FlowopKind::kFsyncSet;
        FUZZ_CHECK(!needs || f.fileset != fb::kNoFileset, f.name);
        const bool finish =
            f.kind == fb::FlowopKind::kFinishOnCount || f.kind == fb::FlowopKind::kFinishOnBytes;
        FUZZ_CHECK(!finish || f.limit >= 1, f.name);
        const bool targeted =
            finish || (fb::flowop_is_limit(f.kind) && f.kind != fb::FlowopKind::kEventLimit);
        FUZZ_CHECK(f.target == fb::kNoTarget || (targeted && f.target < t.flowops.size()), f.name);
        FUZZ_CHECK(f.kind != fb::FlowopKind::kHog || f.limit <= fb::kMaxHogIterations, f.name);
        FUZZ_CHECK(f.kind != fb::FlowopKind::kSemPost || (!f.post_target.empty() && f.limit >= 1),
                   f.name);
        FUZZ_CHECK(f.kind != fb::FlowopKind::kWakeup || !f.post_target.empty(), f.name);
      }
    }
  }
  FUZZ_CHECK(model.eventgen_rate <= fb::kMaxEventRate, "eventgen");
  // sleep, psrun, debug (issue 31): pauses within the run's bound, a psrun a run.
  FUZZ_CHECK(model.sleep_before_create_s + model.sleep_after_create_s <= fb::kMaxRunSeconds,
             "sleep");
  FUZZ_CHECK(model.psrun_period_s <= fb::kMaxRunSeconds, "psrun");
  FUZZ_CHECK(model.psrun_period_s == 0 || model.run_seconds || model.run_until_done, "psrun");
  FUZZ_CHECK(!model.psrun_reset || model.psrun_period_s >= 1, "psrun");
  FUZZ_CHECK(model.debug_level >= -1 && model.debug_level <= 10, "debug");
  FUZZ_CHECK(
      !model.run_seconds || (*model.run_seconds >= 1 && *model.run_seconds <= fb::kMaxRunSeconds),
      "run");
}

}  // namespace
