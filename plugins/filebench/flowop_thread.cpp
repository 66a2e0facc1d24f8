#include "plugins/filebench/flowop_thread.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <iobench/clock.hpp>
#include <iobench/error.hpp>
#include <iobench/random_mix.hpp>
#include <string>
#include <string_view>
#include <thread>

#include "plugins/filebench/randvar.hpp"

namespace iobench::plugins::filebench {

namespace {

constexpr std::size_t kBufferAlignment = 4096;  // O_DIRECT's strictest buffer alignment

// The `bytes` of `storage` (bytes + kBufferAlignment long) from its first 4096-byte boundary.
std::span<char> aligned_part(std::vector<char>& storage, std::size_t bytes) {
  const auto at = reinterpret_cast<std::uintptr_t>(storage.data());
  const std::size_t skip = (kBufferAlignment - at % kBufferAlignment) % kBufferAlignment;
  return {storage.data() + skip, bytes};
}

int unlink_name(const ConfinedDir& dir, std::string_view name) { return dir.try_unlink(name); }
}  // namespace

FlowopThread::FlowopThread(const ThreadDef& def, std::vector<OpId> op_ids,
                           std::span<FilesetState* const> filesets,
                           std::span<const FilesetDef> fileset_defs, ConfinedDir run_dir,
                           std::uint64_t seed, RunTotals& totals, EventGenerator* events,
                           SemaphoreLinks semaphores, const Engine* aio_engine, QuitMode quit)
    : def_(def),
      op_ids_(std::move(op_ids)),
      filesets_(filesets),
      fileset_defs_(fileset_defs),
      run_dir_(std::move(run_dir)),
      dirs_(run_dir_, filesets),
      rng_(seed),
      buffer_storage_(def.useism ? 0 : static_cast<std::size_t>(def.memsize) + kBufferAlignment,
                      'f'),
      buffer_(def.useism ? std::span<char>{}
                         : aligned_part(buffer_storage_, static_cast<std::size_t>(def.memsize))),
      slots_(kMaxFd),
      open_rotors_(filesets.size(), 0),
      totals_(totals),
      ops_done_(def.flowops.size(), 0),
      bytes_done_(def.flowops.size(), 0),
      events_(events),
      limit_state_(def.flowops.size()),
      semaphores_(std::move(semaphores)),
      quit_(quit),
      seed_(seed) {
  if (def.useism) {  // a page-aligned shared mapping: aligned for directio as the heap buffer
    ism_ = SharedMapping(static_cast<std::size_t>(def.memsize));
    buffer_ = {static_cast<char*>(ism_.data()), static_cast<std::size_t>(def.memsize)};
    std::fill(buffer_.begin(), buffer_.end(), 'f');
  }
  // The buffer begins with who writes it (made in the worker's thread, in its process), so a
  // file shows which process and thread wrote it; the rest stays 'f'.
  const std::string tag = fmt::format("iobench pid={} tid={}\n", ::getpid(), ::gettid());
  std::copy_n(tag.data(), std::min(tag.size(), buffer_.size()), buffer_.data());
  std::vector<std::string> names;
  bool writes_async = false;
  for (const FlowopDef& f : def.flowops) {
    names.push_back(f.name);
    writes_async = writes_async || f.kind == FlowopKind::kAioWrite;
  }
  if (aio_engine == nullptr || !writes_async) return;  // aiowait alone has nothing to wait for
  aio_ = std::make_unique<AioWriter>(*aio_engine, buffer_.size(), std::move(names));
}

FlowopThread::~FlowopThread() {
  aio_.reset();  // waits for what is in flight; a failure was reported by run() or lost with it
  for (Slot& slot : slots_) close_slot(slot);
}

void FlowopThread::fail(const FlowopDef& f, const char* call, int err) const {
  // O_DIRECT's EINVAL: the file system refuses it, or an offset, size or buffer is not aligned.
  const bool direct = f.directio && err == EINVAL;
  throw IoError(err,
                fmt::format("flowop {} ({}{})", f.name, call,
                            direct ? " with O_DIRECT (directio): the file system must support it "
                                     "and offsets and sizes be multiples of its logical block"
                                   : ""),
                run_dir_.path().string());
}

void FlowopThread::close_slot(Slot& slot) {
  // Its aiowrites end first (the engine file is a second descriptor of the same file).
  if (aio_) aio_->close(static_cast<std::uint32_t>(&slot - slots_.data()));
  if (slot.fd >= 0) ::close(slot.fd);
  if (slot.fileset != kNoFileset) filesets_[slot.fileset]->release(slot.file, slot.exists);
  slot = Slot{};
}

std::uint64_t FlowopThread::drawn_size(const Slot& slot) const {
  if (slot.fileset == kNoFileset) return 0;
  return filesets_[slot.fileset]->layout().files[slot.file].size;
}

std::optional<std::uint32_t> FlowopThread::pick_for(const FlowopDef& f, bool existing, bool open) {
  FilesetState& set = *filesets_[f.fileset];
  const auto go_on = [this] { return running(); };
  if (f.index_var) {
    const RandVarDef& v = *f.index_var;
    // Drawn as iosize= draws the variable: its seed= and its place mixed in.
    const std::uint64_t index = draw_randvar(
        v, stream_of(v.id, splitmix64_mix(v.seed ^ splitmix64_mix(0x5A4D0ULL + v.id))));
    return set.pick_from(existing, index, go_on);
  }
  if (f.index) return set.pick_from(existing, *f.index, go_on);
  if (!(open && existing && f.opennext)) return set.pick(existing, go_on);
  std::uint32_t& rotor = open_rotors_[f.fileset];
  const std::optional<std::uint32_t> file = set.pick_from(true, rotor, go_on);
  if (file) rotor = *file + 1;
  return file;
}

std::uint32_t FlowopThread::fd_slot(const FlowopDef& f) {
  if (f.fd > 0 || !f.opennext) return f.fd;
  if (fd_rotor_ == 0) fd_rotor_ = kMaxFd;
  return --fd_rotor_;
}

bool FlowopThread::running() const {
  return ctx_->keep_going() && !totals_.finished.load(std::memory_order_relaxed);
}

FlowopThread::ListDirError FlowopThread::list_dir(const std::string& path, std::uint64_t& bytes) {
  // opendir's open flags; the kernel resolves the name beneath the run directory.
  int fd = -1;
  const int err = run_dir_.try_open(path, O_RDONLY | O_NONBLOCK | O_DIRECTORY | O_CLOEXEC, 0, fd);
  if (err != 0) return {"open", err};
  const UniqueFd owned(fd);
  // opendir's fstat: its buffer is the directory's st_blksize, between 32 KiB and 1 MiB.
  struct stat st {};
  if (::fstat(fd, &st) != 0) return {"fstat", errno};
  constexpr std::size_t kLeast = 32 * 1024;
  constexpr std::size_t kMost = 1024 * 1024;
  const std::size_t size =
      std::clamp(static_cast<std::size_t>(std::max<blksize_t>(st.st_blksize, 0)), kLeast, kMost);
  if (dirent_buffer_.size() < size) dirent_buffer_.resize(size);
  for (;;) {
    const ssize_t got = ::getdents64(fd, dirent_buffer_.data(), size);
    if (got < 0 && errno == ENOENT) return {};  // removed while read: glibc's readdir ends
    if (got < 0) return {"getdents64", errno};
    if (got == 0) return {};
    for (ssize_t at = 0; at < got;) {
      dirent64 entry_head{};
      const char* const record = dirent_buffer_.data() + at;
      std::memcpy(&entry_head, record, offsetof(dirent64, d_name));
      // filebench counts each entry as its name plus a struct dirent, less the name's 1-byte
      // array.
      bytes += ::strnlen(record + offsetof(dirent64, d_name),
                         entry_head.d_reclen - offsetof(dirent64, d_name)) +
               sizeof(dirent) - 1;
      at += entry_head.d_reclen;
    }
  }
}

void FlowopThread::fsync_set(WorkerContext& ctx, std::size_t index) {
  const FlowopDef& f = def_.flowops[index];
  for (const Slot& slot : slots_) {
    if (slot.fd < 0 || slot.fileset != f.fileset) continue;
    const std::uint64_t start = monotonic_ns();
    if (::fsync(slot.fd) != 0) fail(f, "fsync", errno);
    const std::uint64_t end = monotonic_ns();
    ctx.record(op_ids_[index], 0, end - start, end);
    ++ops_done_[index];
    totals_.io_ops.fetch_add(1, std::memory_order_relaxed);
  }
}

bool FlowopThread::finish_reached(const FlowopDef& f) const {
  const bool count = f.kind == FlowopKind::kFinishOnCount;
  std::uint64_t done = 0;
  if (f.target != kNoTarget) {
    done = count ? ops_done_[f.target] : bytes_done_[f.target];
  } else {
    done = (count ? totals_.io_ops : totals_.io_bytes).load(std::memory_order_relaxed);
  }
  return count ? done >= f.limit : done > f.limit;
}

bool FlowopThread::open_slot(const FlowopDef& f, Slot& slot, bool create, std::uint64_t& start) {
  FilesetState& set = *filesets_[f.fileset];
  const std::optional<std::uint32_t> file = pick_for(f, !create, true);
  if (!file) return false;
  start = monotonic_ns();
  ctx_->op_begins(start);  // untimed work (a pick, an open) came before
  const bool readonly = fileset_defs_[f.fileset].readonly;
  // dsync: O_SYNC, as filebench's fileset_openfile sets for FLOW_ATTR_DSYNC.
  const int flags = (readonly ? O_RDONLY : O_RDWR) | (f.dsync ? O_SYNC : 0) |
                    (f.directio ? O_DIRECT : 0) | (create ? O_CREAT | O_EXCL : 0);
  int fd = -1;
  // An open is one openat2 of the file's whole path beneath the run directory, as filebench's
  // one open(2) of its path. A create goes through the parent's cached descriptor: filebench
  // stats the parent directory before every create (and makes it if missing; here it was
  // opened, so it exists), one fstat of it timed with the create.
  const int err =
      !create ? dirs_.open_file(f.fileset, *file, flags, 0644, fd)
              : dirs_.on_file(f.fileset, *file, [&](const ConfinedDir& dir, std::string_view name) {
                  struct stat st {};
                  if (::fstat(dir.fd(), &st) != 0) return errno;
                  return dir.try_open(name, flags, 0644, fd);
                });
  if (err != 0) {
    set.release(*file, !create);
    fail(f, create ? "create" : "open", err);
  }
  slot = Slot{fd, f.fileset, *file, true};
  return true;
}

FlowopThread::Slot& FlowopThread::slot_for_io(const FlowopDef& f, std::uint32_t fd, bool& ok) {
  Slot& slot = slots_[fd];
  ok = true;
  if (slot.fd < 0) {
    if (f.fileset == kNoFileset) fail(f, "no open file on its fd and no filesetname", EBADF);
    std::uint64_t ignored = 0;
    ok = open_slot(f, slot, false, ignored);
  }
  return slot;
}

bool FlowopThread::leafdir_op(const FlowopDef& f, std::uint64_t& start) {
  const bool make = f.kind == FlowopKind::kMakeDir;
  FilesetState& set = *filesets_[f.fileset];
  const std::optional<std::uint32_t> dir = set.pick_leafdir(!make, [this] { return running(); });
  if (!dir) return false;
  start = monotonic_ns();
  ctx_->op_begins(start);  // untimed work (a pick, an open) came before
  const int err =
      dirs_.on_leafdir(f.fileset, *dir, [make](const ConfinedDir& d, std::string_view name) {
        return make ? d.try_mkdir(name, 0755) : d.try_rmdir(name);
      });
  set.release_leafdir(*dir, make ? err == 0 : err != 0);
  if (err != 0) fail(f, make ? "mkdir" : "rmdir", err);
  return true;
}

FlowopThread::Outcome FlowopThread::step(WorkerContext& ctx, std::size_t index) {
  constexpr Outcome kNoFile = Outcome::kNoFile;
  const FlowopDef& f = def_.flowops[index];
  const OpId op = op_ids_[index];
  std::uint64_t bytes = 0;
  if (other_step(ctx, index)) return Outcome::kDone;
  // Each case reads the clock where its op begins (after a pick or an untimed open), once.
  std::uint64_t start = 0;
  const std::uint32_t fd = fd_slot(f);
  switch (f.kind) {
    case FlowopKind::kFinishOnCount:
    case FlowopKind::kFinishOnBytes: {
      start = monotonic_ns();
      const bool reached = finish_reached(f);
      const std::uint64_t end = monotonic_ns();
      ctx.record(op, 0, end - start, end);
      if (!reached) return Outcome::kDone;
      totals_.finished.store(true, std::memory_order_relaxed);
      return Outcome::kFinished;
    }
    case FlowopKind::kCreateFile:
    case FlowopKind::kOpenFile: {
      Slot& slot = slots_[fd];
      if (slot.fd >= 0) fail(f, "its fd is still open; close it first", EBUSY);
      if (!open_slot(f, slot, f.kind == FlowopKind::kCreateFile, start)) return kNoFile;
      break;
    }
    case FlowopKind::kCloseFile:
      if (slots_[fd].fd < 0) fail(f, "close of a fd that is not open", EBADF);
      start = monotonic_ns();
      close_slot(slots_[fd]);
      break;
    case FlowopKind::kDeleteFile: {
      Slot& slot = slots_[fd];
      if (fd > 0 && slot.fileset != kNoFileset && slot.exists) {
        start = monotonic_ns();
        const int err = dirs_.on_file(slot.fileset, slot.file, unlink_name);
        if (err != 0) fail(f, "unlink", err);
        slot.exists = false;
        break;
      }
      if (f.fileset == kNoFileset) fail(f, "no file on its fd and no filesetname", EBADF);
      FilesetState& set = *filesets_[f.fileset];
      const std::optional<std::uint32_t> file = pick_for(f, true, false);
      if (!file) return kNoFile;
      start = monotonic_ns();
      ctx_->op_begins(start);  // untimed work (a pick, an open) came before
      const int err = dirs_.on_file(f.fileset, *file, unlink_name);
      set.release(*file, err != 0);
      if (err != 0) fail(f, "unlink", err);
      break;
    }
    case FlowopKind::kStatFile: {
      if (fd > 0 && slots_[fd].fd >= 0) {
        // filebench's statfile on an open fd=: one fstat of it (no pick, no path).
        if (slots_[fd].fileset == kNoFileset) fail(f, "its fd holds no file of a fileset", EBADF);
        start = monotonic_ns();
        struct stat st {};
        if (::fstat(slots_[fd].fd, &st) != 0) fail(f, "fstat", errno);
        break;
      }
      FilesetState& set = *filesets_[f.fileset];
      const std::optional<std::uint32_t> file = pick_for(f, true, false);
      if (!file) return kNoFile;
      start = monotonic_ns();
      ctx_->op_begins(start);  // untimed work (a pick, an open) came before
      struct stat st {};
      const int err = dirs_.on_file(
          f.fileset, *file,
          [&st](const ConfinedDir& dir, std::string_view name) { return dir.try_stat(name, st); });
      set.release(*file, true);
      if (err != 0) fail(f, "stat", err);
      break;
    }
    case FlowopKind::kListDir: {
      FilesetState& set = *filesets_[f.fileset];
      const std::optional<std::uint32_t> dir = set.pick_dir([this] { return running(); });
      if (!dir) return kNoFile;
      start = monotonic_ns();
      ctx_->op_begins(start);  // untimed work (a pick, an open) came before
      const ListDirError failed = list_dir(set.layout().dir_path(*dir), bytes);
      set.release_dir(*dir);
      if (failed.err != 0) fail(f, failed.call, failed.err);
      break;
    }
    case FlowopKind::kMakeDir:
    case FlowopKind::kRemoveDir:
      if (!leafdir_op(f, start)) return kNoFile;
      break;
    case FlowopKind::kFsyncSet:
      fsync_set(ctx, index);
      return Outcome::kDone;
    case FlowopKind::kFsync: {
      bool ok = false;
      Slot& slot = slot_for_io(f, fd, ok);
      if (!ok) return kNoFile;
      start = monotonic_ns();
      ctx_->op_begins(start);  // untimed work (a pick, an open) came before
      if (::fsync(slot.fd) != 0) fail(f, "fsync", errno);
      break;
    }
    case FlowopKind::kAioWait:
      start = monotonic_ns();
      if (aio_) (void)aio_->wait_all();
      break;
    case FlowopKind::kAioWrite: {
      bool ok = false;
      Slot& slot = slot_for_io(f, fd, ok);
      if (!ok) return kNoFile;
      bytes = aio_write(index, slot, draw_iosize(f), start);
      break;
    }
    case FlowopKind::kDelay: {
      start = monotonic_ns();
      const auto until = start + static_cast<std::uint64_t>(f.value * 1e9);
      // Sleep in slices so that the phase's end is not kept waiting.
      while (monotonic_ns() < until && running()) {
        const std::uint64_t left = until - monotonic_ns();
        std::this_thread::sleep_for(
            std::chrono::nanoseconds(std::min<std::uint64_t>(left, 10'000'000)));
      }
      break;
    }
    default: {
      std::uint64_t iosize = draw_iosize(f);
      if (f.kind == FlowopKind::kAppendFileRand) {
        // filebench draws the size first: 0 is an op of no bytes, with no call (the file on
        // its fd is not even opened).
        iosize = append_size(iosize);
        if (iosize == 0) {
          start = monotonic_ns();
          break;
        }
      }
      bool ok = false;
      Slot& slot = slot_for_io(f, fd, ok);
      if (!ok) return kNoFile;
      start = monotonic_ns();
      ctx_->op_begins(start);  // untimed work (a pick, an open) came before
      bytes = transfer(f, slot, iosize);
      break;
    }
  }
  const std::uint64_t end = monotonic_ns();
  ctx.record(op, bytes, end - start, end);
  ++ops_done_[index];
  bytes_done_[index] += bytes;
  if (flowop_is_io(f.kind)) {
    totals_.io_ops.fetch_add(1, std::memory_order_relaxed);
    totals_.io_bytes.fetch_add(bytes, std::memory_order_relaxed);
  }
  if (flowop_reads(f.kind) || flowop_writes(f.kind)) {
    totals_.rw_ops.fetch_add(1, std::memory_order_relaxed);
    totals_.rw_bytes.fetch_add(bytes, std::memory_order_relaxed);
  }
  return Outcome::kDone;
}

void FlowopThread::run(WorkerContext& ctx) {
  run_flowops(ctx);
  // The writes still in flight end with the thread (untimed); a failed one fails the run.
  if (aio_) (void)aio_->wait_all();
}

void FlowopThread::run_flowops(WorkerContext& ctx) {
  ctx_ = &ctx;
  // aiowrite keeps writes in flight across later flowops: --explain=ops cannot split one op.
  if (aio_) ctx.ops_overlap();
  // The first thread to start starts the events: none accrue before the measured run.
  if (events_ != nullptr) events_->start(monotonic_ns());
  while (running()) {
    for (std::size_t i = 0; i < def_.flowops.size(); ++i) {
      const FlowopDef& f = def_.flowops[i];
      for (std::uint64_t k = 0; k < f.iters; ++k) {
        if (!running()) return;
        const Outcome outcome = step(ctx, i);
        if (outcome == Outcome::kFinished) return;
        if (outcome == Outcome::kNoFile) {
          // A pick given up at the phase's end is not a missing file.
          if (!running()) return;
          ctx.add_counter(kNoFileCounter, 1);
          // firstdone: the first thread out of files ends the run (filebench's NORSC there).
          if (quit_ == QuitMode::kFirstDone)
            totals_.finished.store(true, std::memory_order_relaxed);
          return;
        }
      }
    }
  }
}

}  // namespace iobench::plugins::filebench
