// The WML parser's flowop statements: `flowop KIND name=...` with their attributes checked
// against the kind.
#include <fmt/format.h>

#include <algorithm>
#include <iobench/error.hpp>

#include "plugins/filebench/randvar.hpp"
#include "plugins/filebench/wml_limits.hpp"
#include "plugins/filebench/wml_parser_state.hpp"
#include "plugins/filebench/wml_vocabulary.hpp"

namespace iobench::plugins::filebench::detail {

FlowopDef WmlParser::flowop() {
  const Token word = expect_word("'flowop' or '}'");
  if (word.text != "flowop") {
    fail(word.where, fmt::format("expected 'flowop' or '}}' in a thread, found '{}'", word.text));
  }
  const Token kind = expect_word("a flowop type (createfile, read, ...)");
  FlowopDef f;
  f.where = kind.where;
  const std::optional<FlowopKind> known = flowop_kind_of(kind.text);
  if (!known) {
    if (contains(kUnmodelledFlowops, kind.text)) {
      fail(kind.where, fmt::format("flowop '{}' is accepted by filebench but not modelled by "
                                   "iobench yet; remove it",
                                   kind.text));
    }
    fail(kind.where, fmt::format("unknown flowop '{}'; iobench models createfile, openfile, "
                                 "closefile, deletefile, appendfile, appendfilerand, "
                                 "readwholefile, read, write, writewholefile, fsync, statfile, "
                                 "delay, finishoncount, finishonbytes, opslimit, listdir, "
                                 "fsyncset, makedir, removedir, hog, eventlimit, iopslimit, "
                                 "bwlimit, semblock, sempost, block, wakeup, aiowrite, aiowait",
                                 kind.text));
  }
  f.kind = *known;
  const bool finish = f.kind == FlowopKind::kFinishOnCount || f.kind == FlowopKind::kFinishOnBytes;
  // filebench's eventlimit takes one event a call and looks at no flowop's counts.
  const bool targeted = finish || (flowop_is_limit(f.kind) && f.kind != FlowopKind::kEventLimit);
  std::pair<std::string, WmlPosition> target;
  for (const Attr& a : attributes()) {
    if (a.name == "name") {
      f.name = text(need_value(a), a.name);
      if (const std::string_view why = bad_name(f.name, false); !why.empty())
        fail(a.value->where, fmt::format("flowop name '{}' {}", f.name, why));
      // Quoted too: filebench's lexer matches its keywords inside quotes as well.
      if (is_filebench_keyword(f.name)) {
        fail(a.value->where, fmt::format("flowop name '{}' is a filebench keyword, which "
                                         "filebench's parser refuses there (a syntax error); "
                                         "rename the flowop, e.g. '{}1'",
                                         f.name, f.name));
      }
    } else if (a.name == "filesetname" || a.name == "filename") {
      const std::string name = text(need_value(a), a.name);
      f.fileset = model_.fileset_index(name);
      if (f.fileset == kNoFileset) {
        fail(a.value->where, fmt::format("fileset '{}' is not defined; define it before the "
                                         "process that uses it",
                                         name));
      }
    } else if (a.name == "iosize" && need_value(a).randvar) {
      f.iosize_var = a.value->randvar;  // drawn per op; the mean stands for it in checks
      f.iosize =
          std::max<std::uint64_t>(1, static_cast<std::uint64_t>(randvar_mean(*f.iosize_var)));
    } else if (a.name == "iosize" && need_value(a).cvar) {
      f.iosize_cvar = a.value->cvar->cvar;  // drawn per op; the mean stands for it in checks
      f.iosize = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(a.value->cvar->mean_bytes));
    } else if (a.name == "iosize") {
      f.iosize = number(need_value(a), a.name, true);
    } else if (a.name == "fd" || a.name == "srcfd") {
      const std::uint64_t n = number(need_value(a), a.name, false);
      if (n >= kMaxFd) fail(a.value->where, fmt::format("{} must be below {}", a.name, kMaxFd));
      (a.name == "fd" ? f.fd : f.srcfd) = static_cast<std::uint32_t>(n);
    } else if (a.name == "iters") {
      // filebench's lexer reads 128k as 131072 wherever a whole number goes (its
      // filemicro_seqwriterand.f: iters=128k).
      f.iters = number(need_value(a), a.name, true);
      if (f.iters < 1 || f.iters > 1'000'000) {
        fail(a.value->where,
             fmt::format("iters={} is out of range; give 1 to 1000000", a.value->token.text));
      }
    } else if (a.name == "opennext") {
      f.opennext = flag(a);
    } else if (a.name == "indexed" && flowop_picks_files(f.kind) && need_value(a).randvar) {
      f.index_var = a.value->randvar;
    } else if (a.name == "indexed" && flowop_picks_files(f.kind)) {
      f.index = number(need_value(a), a.name, false);
    } else if (a.name == "random") {
      f.random = flag(a);
    } else if (a.name == "dsync") {
      f.dsync = flag(a);
    } else if (a.name == "directio" && flowop_takes_directio(f.kind)) {
      f.directio = flag(a);
    } else if (a.name == "workingset" &&
               (f.kind == FlowopKind::kRead || f.kind == FlowopKind::kWrite ||
                f.kind == FlowopKind::kAioWrite)) {
      f.workingset = number(need_value(a), a.name, true);
      if (f.workingset > kMaxSizeBytes)
        fail(a.value->where, "workingset is too large; give at most 2^44 bytes");
    } else if (a.name == "value" && f.kind == FlowopKind::kDelay) {
      f.value = real(need_value(a), a.name);
      if (f.value > kMaxDelaySeconds)  // filebench sleeps value seconds: keep the ns in range
        fail(a.value->where, fmt::format("delay value={} is above one day; give at most {} "
                                         "seconds",
                                         a.value->token.text, kMaxDelaySeconds));
    } else if (a.name == "value" && finish) {
      // filebench reads every number with its k/m/g suffixes (finishoncount value=128k too).
      f.limit =
          number(need_value(a), a.name,
                 f.kind == FlowopKind::kFinishOnBytes || f.kind == FlowopKind::kFinishOnCount);
    } else if (a.name == "value" && f.kind == FlowopKind::kHog) {
      f.limit = number(need_value(a), a.name, false);
      if (f.limit > kMaxHogIterations) {
        fail(a.value->where, fmt::format("hog value={} is above {} iterations; give at most {}",
                                         f.limit, kMaxHogIterations, kMaxHogIterations));
      }
    } else if (a.name == "value" &&
               (f.kind == FlowopKind::kSemBlock || f.kind == FlowopKind::kSemPost)) {
      f.limit = count32(a, 1'000'000);
    } else if (a.name == "highwater" && f.kind == FlowopKind::kSemBlock) {
      f.highwater = number(need_value(a), a.name, false);
      if (f.highwater > 1'000'000)
        fail(a.value->where, "highwater is out of range; give 0 to 1000000");
    } else if (a.name == "blocking" && f.kind == FlowopKind::kSemPost) {
      f.blocking = flag(a);
    } else if (a.name == "target" &&
               (f.kind == FlowopKind::kSemPost || f.kind == FlowopKind::kWakeup)) {
      f.post_target = text(need_value(a), a.name);
    } else if (a.name == "target" && targeted) {
      target = {text(need_value(a), a.name), a.value->where};
    } else {
      bad_attribute(a, fmt::format("flowop {}", kind.text),
                    "name, filesetname, iosize, fd, srcfd, iters, opennext, random, dsync, "
                    "directio (createfile, openfile and the flowops that read or write), indexed "
                    "(the flowops that pick files), workingset (read, write, aiowrite), value "
                    "(delay, "
                    "hog, finishoncount, finishonbytes, semblock, sempost), target "
                    "(finishoncount, finishonbytes, opslimit, iopslimit, bwlimit, sempost, "
                    "wakeup), "
                    "highwater (semblock), blocking (sempost)");
    }
  }
  targets_.push_back(std::move(target));
  if (f.name.empty()) fail(kind.where, fmt::format("flowop {} needs name=NAME", kind.text));
  check_flowop(f, kind);
  return f;
}

void WmlParser::check_flowop(const FlowopDef& f, const Token& kind) const {
  const bool finish = f.kind == FlowopKind::kFinishOnCount || f.kind == FlowopKind::kFinishOnBytes;
  if (finish && f.limit == 0) {
    fail(kind.where, fmt::format("flowop {} '{}' needs value={} above 0", kind.text, f.name,
                                 f.kind == FlowopKind::kFinishOnCount ? "OPS" : "BYTES"));
  }
  const bool sem = f.kind == FlowopKind::kSemBlock || f.kind == FlowopKind::kSemPost;
  if (sem && f.limit == 0) {
    fail(kind.where, fmt::format("flowop {} '{}' needs value=N (the count it {})", kind.text,
                                 f.name, f.kind == FlowopKind::kSemBlock ? "waits for" : "posts"));
  }
  if (f.kind == FlowopKind::kSemPost && f.post_target.empty()) {
    fail(kind.where,
         fmt::format("flowop sempost '{}' needs target=SEMBLOCK (the semblock it posts to)",
                     f.name));
  }
  if (f.kind == FlowopKind::kWakeup && f.post_target.empty()) {
    fail(kind.where,
         fmt::format("flowop wakeup '{}' needs target=BLOCK (the block flowop it wakes)", f.name));
  }
  const bool needs_iosize = f.kind == FlowopKind::kRead || f.kind == FlowopKind::kWrite ||
                            f.kind == FlowopKind::kAppendFile ||
                            f.kind == FlowopKind::kAppendFileRand ||
                            f.kind == FlowopKind::kAioWrite;
  if (needs_iosize && f.iosize == 0)
    fail(kind.where, fmt::format("flowop {} '{}' needs iosize=BYTES", kind.text, f.name));
  // O_DIRECT moves whole logical blocks: 512 bytes is the least there is (and filebench's unit
  // for aligning a directio buffer); a file system asking for more fails the op with EINVAL.
  if (f.directio && !f.iosize_var && !f.iosize_cvar && f.iosize % kDirectIoAlignment != 0) {
    fail(kind.where, fmt::format("flowop {} '{}' has directio and iosize {}, not a multiple of "
                                 "{} bytes (a logical block); give e.g. iosize={}",
                                 kind.text, f.name, f.iosize, kDirectIoAlignment,
                                 (f.iosize / kDirectIoAlignment + 1) * kDirectIoAlignment));
  }
  // filebench's aiowrite fails the run unless random (fb_lfsflow_aiowrite).
  if (f.kind == FlowopKind::kAioWrite && !f.random) {
    fail(kind.where, fmt::format("flowop aiowrite '{}' needs random: filebench's aiowrite writes "
                                 "at random offsets only",
                                 f.name));
  }
  if (f.kind == FlowopKind::kAioWrite && f.iosize > UINT32_MAX) {
    fail(kind.where, fmt::format("flowop aiowrite '{}' has iosize {} above 4 GiB; give less",
                                 f.name, f.iosize));
  }
  const bool needs_fileset = f.kind == FlowopKind::kCreateFile || f.kind == FlowopKind::kOpenFile ||
                             f.kind == FlowopKind::kStatFile || f.kind == FlowopKind::kListDir ||
                             f.kind == FlowopKind::kFsyncSet;
  if (needs_fileset && f.fileset == kNoFileset) {
    fail(kind.where, fmt::format("flowop {} '{}' needs filesetname=FILESET", kind.text, f.name));
  }
  const bool dir_op = f.kind == FlowopKind::kMakeDir || f.kind == FlowopKind::kRemoveDir;
  if (dir_op && (f.fileset == kNoFileset || model_.filesets[f.fileset].leafdirs == 0)) {
    fail(kind.where, fmt::format("flowop {} '{}' needs filesetname= of a fileset with leafdirs=N "
                                 "(its empty leaf directories)",
                                 kind.text, f.name));
  }
  if (f.kind == FlowopKind::kListDir && model_.filesets[f.fileset].single_file) {
    fail(kind.where, fmt::format("flowop listdir '{}' needs a fileset with directories; '{}' is "
                                 "a define file",
                                 f.name, model_.filesets[f.fileset].name));
  }
}

void WmlParser::resolve_targets(ThreadDef& t) {
  for (std::size_t i = 0; i < t.flowops.size(); ++i) {
    // Named, not a structured binding: clang before 16 cannot capture one in the lambda below.
    const std::string& name = targets_[i].first;
    const auto& where = targets_[i].second;
    if (name.empty()) continue;
    FlowopDef& f = t.flowops[i];
    const auto it = std::find_if(t.flowops.begin(), t.flowops.end(),
                                 [&](const FlowopDef& g) { return g.name == name; });
    if (it == t.flowops.end()) {
      fail(where, fmt::format("target flowop '{}' is not in thread '{}'; name one of its flowops",
                              name, t.name));
    }
    // filebench refuses a byte or I/O limit on a flowop that moves no bytes.
    const bool rw = f.kind == FlowopKind::kFinishOnBytes || f.kind == FlowopKind::kIopsLimit ||
                    f.kind == FlowopKind::kBwLimit;
    if (rw && !flowop_reads(it->kind) && !flowop_writes(it->kind)) {
      fail(where, fmt::format("{} target '{}' does no reads or writes; name a read or write "
                              "flowop",
                              flowop_kind_name(f.kind), name));
    }
    f.target = static_cast<std::uint32_t>(it - t.flowops.begin());
  }
}

void WmlParser::check_post_targets() const {
  for (const ProcessDef& p : model_.processes) {
    for (const ThreadDef& t : p.threads) {
      for (const FlowopDef& f : t.flowops) {
        const bool post = f.kind == FlowopKind::kSemPost;
        if (!post && f.kind != FlowopKind::kWakeup) continue;
        const FlowopKind wanted = post ? FlowopKind::kSemBlock : FlowopKind::kBlock;
        bool found = false;
        for (const ProcessDef& q : model_.processes) {
          for (const ThreadDef& u : q.threads) {
            for (const FlowopDef& g : u.flowops)
              found = found || (g.kind == wanted && g.name == f.post_target);
          }
        }
        // filebench finds no target only at the first call and then stops the run.
        if (!found && post) {
          fail(f.where, fmt::format("sempost '{}' posts to '{}', which is no semblock of the "
                                    "file; name a semblock flowop",
                                    f.name, f.post_target));
        }
        if (!found) {
          fail(f.where, fmt::format("wakeup '{}' wakes '{}', which is no block flowop of the "
                                    "file; name a block flowop",
                                    f.name, f.post_target));
        }
      }
    }
  }
}

}  // namespace iobench::plugins::filebench::detail
