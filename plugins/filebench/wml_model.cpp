#include "plugins/filebench/wml_model.hpp"

#include <fmt/format.h>

#include <array>

namespace iobench::plugins::filebench {

namespace {

struct FlowopName {
  std::string_view name;
  FlowopKind kind;
};
constexpr std::array<FlowopName, 30> kFlowops = {{
    {"createfile", FlowopKind::kCreateFile},
    {"openfile", FlowopKind::kOpenFile},
    {"closefile", FlowopKind::kCloseFile},
    {"deletefile", FlowopKind::kDeleteFile},
    {"appendfile", FlowopKind::kAppendFile},
    {"appendfilerand", FlowopKind::kAppendFileRand},
    {"readwholefile", FlowopKind::kReadWholeFile},
    {"read", FlowopKind::kRead},
    {"write", FlowopKind::kWrite},
    {"writewholefile", FlowopKind::kWriteWholeFile},
    {"fsync", FlowopKind::kFsync},
    {"statfile", FlowopKind::kStatFile},
    {"delay", FlowopKind::kDelay},
    {"finishoncount", FlowopKind::kFinishOnCount},
    {"finishonbytes", FlowopKind::kFinishOnBytes},
    {"opslimit", FlowopKind::kOpsLimit},
    {"listdir", FlowopKind::kListDir},
    {"fsyncset", FlowopKind::kFsyncSet},
    {"makedir", FlowopKind::kMakeDir},
    {"removedir", FlowopKind::kRemoveDir},
    {"hog", FlowopKind::kHog},
    {"eventlimit", FlowopKind::kEventLimit},
    {"iopslimit", FlowopKind::kIopsLimit},
    {"bwlimit", FlowopKind::kBwLimit},
    {"semblock", FlowopKind::kSemBlock},
    {"sempost", FlowopKind::kSemPost},
    {"block", FlowopKind::kBlock},
    {"wakeup", FlowopKind::kWakeup},
    {"aiowrite", FlowopKind::kAioWrite},
    {"aiowait", FlowopKind::kAioWait},
}};

}  // namespace

std::optional<FlowopKind> flowop_kind_of(std::string_view name) noexcept {
  for (const FlowopName& n : kFlowops) {
    if (n.name == name) return n.kind;
  }
  return std::nullopt;
}

const char* flowop_kind_name(FlowopKind kind) noexcept {
  for (const FlowopName& n : kFlowops) {
    if (n.kind == kind) return n.name.data();
  }
  return "?";
}

bool flowop_reads(FlowopKind kind) noexcept {
  return kind == FlowopKind::kRead || kind == FlowopKind::kReadWholeFile;
}

bool flowop_writes(FlowopKind kind) noexcept {
  return kind == FlowopKind::kWrite || kind == FlowopKind::kWriteWholeFile ||
         kind == FlowopKind::kAppendFile || kind == FlowopKind::kAppendFileRand ||
         kind == FlowopKind::kAioWrite;
}

bool flowop_is_io(FlowopKind kind) noexcept {
  return kind != FlowopKind::kDelay && kind != FlowopKind::kFinishOnCount &&
         kind != FlowopKind::kFinishOnBytes && !flowop_is_limit(kind) && kind != FlowopKind::kHog &&
         kind != FlowopKind::kSemBlock && kind != FlowopKind::kSemPost &&
         kind != FlowopKind::kBlock && kind != FlowopKind::kWakeup;
}

bool flowop_takes_directio(FlowopKind kind) noexcept {
  return kind == FlowopKind::kCreateFile || kind == FlowopKind::kOpenFile || flowop_reads(kind) ||
         flowop_writes(kind);
}

bool flowop_picks_files(FlowopKind kind) noexcept {
  return flowop_takes_directio(kind) || kind == FlowopKind::kDeleteFile ||
         kind == FlowopKind::kStatFile || kind == FlowopKind::kFsync;
}

bool flowop_is_limit(FlowopKind kind) noexcept {
  return kind == FlowopKind::kOpsLimit || kind == FlowopKind::kIopsLimit ||
         kind == FlowopKind::kBwLimit || kind == FlowopKind::kEventLimit;
}

std::string WmlModel::located(WmlPosition at, std::string_view main_name,
                              std::string_view message) const {
  const bool included = at.file != 0 && at.file < sources.size();
  return fmt::format(
      "{}:{}:{}: {}{}", included ? std::string_view(sources[at.file].name) : main_name, at.line,
      at.column, message, included ? std::string_view(sources[at.file].included_from) : "");
}

std::size_t WmlModel::thread_count() const noexcept {
  std::size_t n = 0;
  for (const ProcessDef& p : processes) {
    for (const ThreadDef& t : p.threads) n += std::size_t{p.instances} * t.instances;
  }
  return n;
}

std::uint32_t WmlModel::fileset_index(const std::string& name) const noexcept {
  for (std::size_t i = 0; i < filesets.size(); ++i) {
    if (filesets[i].name == name) return static_cast<std::uint32_t>(i);
  }
  return kNoFileset;
}

}  // namespace iobench::plugins::filebench
