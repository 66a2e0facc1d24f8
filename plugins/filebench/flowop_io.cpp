// FlowopThread's byte-moving flowops: appendfile, appendfilerand, readwholefile, read, write,
// writewholefile and aiowrite, with filebench's sizes and offsets.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <iobench/error.hpp>
#include <iobench/random_mix.hpp>

#include "plugins/filebench/cvar.hpp"
#include "plugins/filebench/flowop_thread.hpp"
#include "plugins/filebench/randvar.hpp"

namespace iobench::plugins::filebench {

void FlowopThread::write_all(const FlowopDef& f, const Slot& slot, std::size_t n, off_t offset) {
  for (std::size_t done = 0; done < n;) {
    const ssize_t got =
        offset < 0 ? ::write(slot.fd, buffer_.data(), n - done)
                   : ::pwrite(slot.fd, buffer_.data(), n - done, offset + static_cast<off_t>(done));
    if (got < 0) fail(f, "write", errno);
    if (got == 0) fail(f, "write", ENOSPC);
    done += static_cast<std::size_t>(got);
  }
}

std::uint64_t FlowopThread::random_offset(const FlowopDef& f, const Slot& slot,
                                          std::uint64_t iosize) {
  const std::uint64_t wss = f.workingset != 0 ? f.workingset : drawn_size(slot);
  if (wss < iosize)
    fail(f, "file's size (or workingset) is below iosize for a random offset", EINVAL);
  // filebench's fb_random64(wss, iosize): uniform in [0, wss - iosize], rounded down to a
  // multiple of iosize, so the op stays inside the working set.
  return rng_.below(wss - iosize + 1) / iosize * iosize;
}

Rng& FlowopThread::stream_of(std::uint64_t key, std::uint64_t seed) {
  auto it = std::find_if(var_rngs_.begin(), var_rngs_.end(),
                         [key](const auto& entry) { return entry.first == key; });
  if (it == var_rngs_.end()) {
    // The worker's seed mixed with the variable's: one stream per variable and thread.
    it = var_rngs_.emplace(var_rngs_.end(), key, Rng(splitmix64_mix(seed_ ^ seed)));
  }
  return it->second;
}

std::uint64_t FlowopThread::draw_iosize(const FlowopDef& f) {
  if (!f.iosize_var && !f.iosize_cvar) return f.iosize;
  std::uint64_t iosize = 0;
  std::string from;
  if (f.iosize_var) {
    const RandVarDef& v = *f.iosize_var;
    // The variable's seed= and its place mixed in.
    iosize = draw_randvar(
        v, stream_of(v.id, splitmix64_mix(v.seed ^ splitmix64_mix(0x5A4D0ULL + v.id))));
    from = fmt::format("randvar ${}", v.name);
  } else {
    const CvarDef& c = *f.iosize_cvar;
    // Keys above the randvars' ids (below 2^32): a cvar's stream is its own.
    iosize = draw_cvar(c, stream_of(kCvarStreamKey + c.id, splitmix64_mix(0xC7A40ULL + c.id)));
    from = fmt::format("its {}", cvar_type_name(c.type));
  }
  if (iosize == 0 || iosize > buffer_.size()) {
    throw IoError(EINVAL,
                  fmt::format("flowop {} drew iosize {} from {}, outside 1 to its thread's memsize "
                              "{}; raise memsize or the variable's minimum",
                              f.name, iosize, from, buffer_.size()),
                  run_dir_.path().string());
  }
  return iosize;
}

std::uint64_t FlowopThread::aio_write(std::size_t index, Slot& slot, std::uint64_t iosize,
                                      std::uint64_t& start) {
  const FlowopDef& f = def_.flowops[index];
  const auto fd = static_cast<std::uint32_t>(&slot - slots_.data());
  if (!aio_->is_open(fd)) {
    if (slot.fileset == kNoFileset) fail(f, "its fd holds no file of a fileset", EBADF);
    const std::string path = filesets_[slot.fileset]->layout().file_path(slot.file);
    aio_->open(fd, FileLocation::beneath(run_dir_, path), f.directio, f.dsync);
  }
  const std::uint64_t offset = random_offset(f, slot, iosize);
  start = monotonic_ns();
  ctx_->op_begins(start);  // untimed work (a pick, an open) came before
  aio_->submit(fd, offset, static_cast<std::uint32_t>(iosize), static_cast<std::uint32_t>(index));
  return iosize;
}

std::uint64_t FlowopThread::working_set(const FlowopDef& f, const Slot& slot) const {
  return f.workingset != 0 ? f.workingset : drawn_size(slot);
}

std::size_t FlowopThread::whole_chunk(const FlowopDef& f, std::uint64_t chunk) const {
  if (chunk > buffer_.size()) {
    // Without memsize= filebench sizes a buffer to the I/O and makes it in one call; iobench's
    // buffer is fixed, so such an I/O moves in memsize pieces (more calls, the same bytes).
    if (!def_.memsize_given) return buffer_.size();
    // filebench's iobufsetup refuses an I/O larger than the thread's given memsize the same way.
    throw IoError(EINVAL,
                  fmt::format("flowop {} moves the whole file, {} bytes, in one I/O (no iosize), "
                              "above its thread's memsize {}; give iosize= or raise memsize",
                              f.name, chunk, buffer_.size()),
                  run_dir_.path().string());
  }
  return static_cast<std::size_t>(chunk);
}

std::uint64_t FlowopThread::append_size(std::uint64_t iosize) {
  // filebench's fb_random64(iosize, 1): a uniform draw scaled to iosize - 1 and truncated, so
  // 0..iosize-2 (iosize - 1 only for a draw of exactly 2^64 - 1, which is left out).
  return rng_.below(iosize - 1);
}

std::uint64_t FlowopThread::transfer(const FlowopDef& f, Slot& slot, std::uint64_t iosize) {
  // iosize fits the buffer (checked when the workload is built or drawn); 0: the whole buffer.
  const std::size_t block = iosize == 0 ? buffer_.size() : static_cast<std::size_t>(iosize);
  switch (f.kind) {
    case FlowopKind::kAppendFile:
    case FlowopKind::kAppendFileRand: {
      // appendfilerand's size was drawn by step() (append_size()), which made no call for 0.
      const std::size_t n = block;
      if (::lseek(slot.fd, 0, SEEK_END) < 0) fail(f, "lseek", errno);
      write_all(f, slot, n, -1);
      return n;
    }
    case FlowopKind::kReadWholeFile: {
      // filebench's readwholefile: without iosize its chunk is the working set, i.e. workingset=
      // or else the size the fileset drew for the file (one read of the whole file, then the
      // read that meets EOF); a 0-byte file reads 0 bytes once. From offset 0 to EOF with
      // read(2), leaving the offset at EOF as filebench does.
      const std::size_t chunk = iosize != 0 ? block : whole_chunk(f, working_set(f, slot));
      if (::lseek(slot.fd, 0, SEEK_SET) < 0) fail(f, "lseek", errno);
      std::uint64_t bytes = 0;
      for (;;) {
        const ssize_t got = ::read(slot.fd, buffer_.data(), chunk);
        if (got < 0) fail(f, "read", errno);
        if (got == 0) return bytes;
        bytes += static_cast<std::uint64_t>(got);
      }
    }
    case FlowopKind::kWriteWholeFile: {
      const Slot& source = f.srcfd != 0 ? slots_[f.srcfd] : slot;
      if (f.srcfd != 0 && source.fileset == kNoFileset)
        fail(f, "srcfd holds no file of a fileset", EBADF);
      // filebench's writewholefile: the chunk is iosize (0: this file's working set); the size
      // is the srcfd file's drawn size (else this file's working set); every write is
      // min(size, chunk) bytes, whole ones until the size is reached, so a 10000-byte file at
      // iosize 4k is written as 3 x 4096 = 12288 bytes.
      const std::uint64_t size = f.srcfd != 0 ? drawn_size(source) : working_set(f, slot);
      const std::uint64_t chunk = iosize != 0 ? block : working_set(f, slot);
      const std::size_t n = whole_chunk(f, std::min(size, chunk));
      if (n == 0 && size != 0)  // filebench would write 0 bytes forever
        fail(f, "writewholefile without iosize on a file whose drawn size is 0", EINVAL);
      std::uint64_t bytes = 0;
      for (std::uint64_t done = 0; done < size; done += n) {
        write_all(f, slot, n, -1);
        bytes += n;
      }
      return bytes;
    }
    case FlowopKind::kRead:
    case FlowopKind::kWrite: {
      const off_t offset = f.random ? static_cast<off_t>(random_offset(f, slot, iosize)) : -1;
      if (f.kind == FlowopKind::kWrite) {
        write_all(f, slot, block, offset);
        return block;
      }
      const ssize_t got = offset < 0 ? ::read(slot.fd, buffer_.data(), block)
                                     : ::pread(slot.fd, buffer_.data(), block, offset);
      if (got < 0) fail(f, "read", errno);
      if (got == 0 && offset < 0 && ::lseek(slot.fd, 0, SEEK_SET) < 0) fail(f, "lseek", errno);
      return static_cast<std::uint64_t>(got);
    }
    default:
      return 0;
  }
}

}  // namespace iobench::plugins::filebench
