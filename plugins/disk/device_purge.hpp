#pragma once

// purge=: returning a block device to a fresh state before a step's phases (SNIA PTS's purge),
// by the strongest method the device and this build support, falling back in a fixed order.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace iobench::plugins::disk {

/// The methods, in the order purge=auto tries them.
enum class PurgeMethod {
  kNvmeFormat,  ///< NVMe Format NVM / Sanitize (an NVMe namespace; needs libnvme in the build)
  kSecDiscard,  ///< ioctl BLKSECDISCARD over the whole device
  kDiscard,     ///< ioctl BLKDISCARD over the whole device
  kOverwrite,   ///< zeros written over the whole device, then fsync
};

/// "nvme-format", "secdiscard", "discard", "overwrite".
[[nodiscard]] std::string_view to_string(PurgeMethod method) noexcept;

/// What purge_device() did: the method that succeeded and, in order, each one tried before it
/// with why it was not done ("nvme-format: loop3 is not an NVMe device").
struct PurgeRecord {
  PurgeMethod method = PurgeMethod::kOverwrite;
  std::vector<std::string> skipped;
  /// "discard (nvme-format: ...; secdiscard: Operation not supported)": the result's text.
  [[nodiscard]] std::string text() const;
};

/// Purges the whole block device `device` (kernel name `name`, e.g. "loop3", "nvme0n1"),
/// trying the methods from `first` on in PurgeMethod's order: each refused one (not NVMe, not
/// supported: EOPNOTSUPP, EINVAL, ENOTTY, EIO from the ioctl) is recorded and the next tried;
/// the overwrite cannot be refused. `stop` is asked between overwrite chunks (16 MiB): true
/// ends it early, and IoError(EINTR) is thrown. The device must be open by no one else (the
/// caller checked check_destructive_device, which gave `rdev`: the opened descriptor must be
/// that device, require_checked_device()). Throws IoError for an open, write or fsync failure,
/// or when the path names another device than `rdev` now.
PurgeRecord purge_device(const std::filesystem::path& device, const std::string& name,
                         PurgeMethod first, const std::function<bool()>& stop, std::uint64_t rdev);

}  // namespace iobench::plugins::disk
