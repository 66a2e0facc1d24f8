#include "plugins/disk/device_purge.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iobench/engine.hpp>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <tuple>

#include "plugins/disk/device_safety.hpp"

namespace iobench::plugins::disk {
namespace {

constexpr std::size_t kOverwriteChunkBytes = 16 << 20;

// Errors that say "this device cannot do that": the next method is tried.
bool refused(int err) {
  return err == EOPNOTSUPP || err == EINVAL || err == ENOTTY || err == EIO || err == EPERM;
}

void overwrite(int fd, const std::filesystem::path& device, std::uint64_t bytes,
               const std::function<bool()>& stop) {
  AlignedBuffer zeros(kOverwriteChunkBytes);
  std::memset(zeros.span().data(), 0, zeros.span().size());
  for (std::uint64_t at = 0; at < bytes;) {
    if (stop && stop())
      throw IoError(EINTR, "purge overwrite (the run was stopped)", device.string());
    const auto n =
        static_cast<std::size_t>(std::min<std::uint64_t>(kOverwriteChunkBytes, bytes - at));
    write_all_at(fd, zeros.span().first(n), static_cast<off_t>(at), device);
    at += n;
  }
  if (::fsync(fd) != 0) throw IoError(errno, "fsync after the purge overwrite", device.string());
}

}  // namespace

std::string_view to_string(PurgeMethod method) noexcept {
  switch (method) {
    case PurgeMethod::kNvmeFormat:
      return "nvme-format";
    case PurgeMethod::kSecDiscard:
      return "secdiscard";
    case PurgeMethod::kDiscard:
      return "discard";
    case PurgeMethod::kOverwrite:
      return "overwrite";
  }
  return "overwrite";
}

std::string PurgeRecord::text() const {
  std::string out(to_string(method));
  for (std::size_t i = 0; i < skipped.size(); ++i) {
    out += fmt::format("{}{}", i == 0 ? " (" : "; ", skipped[i]);
  }
  if (!skipped.empty()) out += ")";
  return out;
}

PurgeRecord purge_device(const std::filesystem::path& device, const std::string& name,
                         PurgeMethod first, const std::function<bool()>& stop, std::uint64_t rdev) {
  UniqueFd fd(::open(device.c_str(), O_WRONLY | O_EXCL | O_CLOEXEC));
  if (!fd) throw IoError(errno, "open for the purge", device.string());
  require_checked_device(fd.get(), device, rdev, "open for the purge");
  std::uint64_t bytes = 0;
  if (::ioctl(fd.get(), BLKGETSIZE64, &bytes) != 0) {
    throw IoError(errno, "ioctl(BLKGETSIZE64)", device.string());
  }
  PurgeRecord record;
  const auto tried = [&](PurgeMethod method, const std::string& why) {
    record.skipped.push_back(fmt::format("{}: {}", to_string(method), why));
  };
  auto method = first;
  if (method == PurgeMethod::kNvmeFormat) {
    // A Format NVM needs the namespace's LBA format and the controller's format attributes
    // (Identify), which iobench reads through libnvme; this build has none, so an NVMe device
    // falls back to the block layer's discards as any other device.
    tried(method, name.starts_with("nvme")
                      ? "not built with libnvme (iobench cannot send Format NVM or Sanitize)"
                      : fmt::format("{} is not an NVMe device", name));
    method = PurgeMethod::kSecDiscard;
  }
  for (const auto& [candidate, request, call] :
       {std::tuple{PurgeMethod::kSecDiscard, BLKSECDISCARD, "BLKSECDISCARD"},
        std::tuple{PurgeMethod::kDiscard, BLKDISCARD, "BLKDISCARD"}}) {
    if (method != candidate) continue;
    std::uint64_t range[2] = {0, bytes};
    if (::ioctl(fd.get(), request, range) == 0) {
      record.method = candidate;
      fd.close(device);
      return record;
    }
    const int err = errno;
    if (!refused(err))
      throw IoError(err, fmt::format("ioctl({}) for the purge", call), device.string());
    tried(candidate, std::strerror(err));
    method = static_cast<PurgeMethod>(static_cast<int>(method) + 1);
  }
  overwrite(fd.get(), device, bytes, stop);
  record.method = PurgeMethod::kOverwrite;
  fd.close(device);
  return record;
}

}  // namespace iobench::plugins::disk
