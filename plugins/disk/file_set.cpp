#include "plugins/disk/file_set.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <cerrno>
#include <iobench/error.hpp>

namespace iobench::plugins::disk {
namespace {

// Routes each request to its file's queue (offsets made file-relative), does trims itself, and
// hands back every queue's completions (tags are the caller's: they pass through unchanged).
class FileSetQueue final : public IoQueue {
 public:
  FileSetQueue(DiskFileSet& set, std::vector<std::unique_ptr<IoQueue>> queues, std::uint32_t depth)
      : IoQueue(depth), set_(set), queues_(std::move(queues)), batch_(depth) {
    trimmed_.reserve(depth);
  }

  void submit(std::span<const IoRequest> requests) override {
    // Consecutive requests for the same file go down in one batch.
    std::size_t pending = 0;
    std::size_t pending_file = 0;
    const auto flush = [&] {
      if (pending == 0) return;
      queues_[pending_file]->submit(std::span<const IoRequest>(batch_.data(), pending));
      in_flight_ += static_cast<std::uint32_t>(pending);
      pending = 0;
    };
    for (const IoRequest& request : requests) {
      if (set_.trim_slots()[request.tag] != 0) {
        flush();
        set_.trim(request.offset, request.length);
        trimmed_.push_back(IoCompletion{.tag = request.tag, .result = request.length});
        ++in_flight_;
        continue;
      }
      const auto [file, offset] = set_.locate(request.offset);
      if (pending > 0 && file != pending_file) flush();
      pending_file = file;
      batch_[pending] = request;
      batch_[pending].offset = offset;
      ++pending;
    }
    flush();
  }

  std::size_t reap(std::span<IoCompletion> out, std::size_t min_completions) override {
    std::size_t n = 0;
    while (n < out.size() && !trimmed_.empty()) {
      out[n++] = trimmed_.back();
      trimmed_.pop_back();
    }
    // Whatever is ready everywhere; then, if short, wait on a queue with requests in flight
    // (each completes in time, so waiting on one of them cannot hang).
    for (const auto& queue : queues_) {
      if (n < out.size() && queue->in_flight() > 0) n += queue->reap(out.subspan(n), 0);
    }
    for (const auto& queue : queues_) {
      if (n >= min_completions || n >= out.size()) break;
      if (queue->in_flight() > 0) n += queue->reap(out.subspan(n), 1);
    }
    in_flight_ -= static_cast<std::uint32_t>(n);
    return n;
  }

 private:
  DiskFileSet& set_;
  std::vector<std::unique_ptr<IoQueue>> queues_;
  std::vector<IoRequest> batch_;
  std::vector<IoCompletion> trimmed_;
};

}  // namespace

DiskFileSet::DiskFileSet(std::vector<std::unique_ptr<IoFile>> files, std::uint64_t file_span,
                         std::uint32_t slots)
    : files_(std::move(files)), span_(file_span), trim_slots_(slots, 0) {
  for (const auto& file : files_) {
    struct stat st {};
    block_device_.push_back(
        file->fd() >= 0 && ::fstat(file->fd(), &st) == 0 && S_ISBLK(st.st_mode) ? 1 : 0);
  }
}

void DiskFileSet::read_at(std::span<std::byte> buf, std::uint64_t offset) {
  const auto [file, at] = locate(offset);
  files_[file]->read_at(buf, at);
}

void DiskFileSet::write_at(std::span<const std::byte> buf, std::uint64_t offset) {
  const auto [file, at] = locate(offset);
  files_[file]->write_at(buf, at);
}

void DiskFileSet::trim(std::uint64_t offset, std::uint64_t length) {
  const auto [file, at] = locate(offset);
  const int fd = files_[file]->fd();
  if (fd < 0) return;  // the null engine: no file
  if (block_device_[file] != 0) {
    std::uint64_t range[2] = {at, length};
    if (::ioctl(fd, BLKDISCARD, range) != 0) {
      throw IoError(errno, "ioctl(BLKDISCARD) for a trim", files_[file]->path().string());
    }
    return;
  }
  if (::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(at),
                  static_cast<off_t>(length)) != 0) {
    throw IoError(errno, "fallocate(FALLOC_FL_PUNCH_HOLE) for a trim",
                  files_[file]->path().string());
  }
}

void DiskFileSet::sync() {
  for (const auto& file : files_) file->sync();
}

void DiskFileSet::close() {
  for (const auto& file : files_) file->close();
}

std::uint64_t DiskFileSet::size() const {
  std::uint64_t total = 0;
  for (const auto& file : files_) total += file->size();
  return total;
}

std::unique_ptr<IoQueue> DiskFileSet::make_queue(const QueueOptions& options) {
  std::vector<std::unique_ptr<IoQueue>> queues;
  queues.reserve(files_.size());
  for (const auto& file : files_) queues.push_back(file->make_queue(options));
  return std::make_unique<FileSetQueue>(*this, std::move(queues), options.depth);
}

}  // namespace iobench::plugins::disk
