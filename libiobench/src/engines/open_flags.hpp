#pragma once

#include <fcntl.h>

#include <iobench/engine.hpp>

namespace iobench::detail {

/// open(2) flags for `options` (without O_CREAT/O_EXCL, which create_file_exclusive adds).
[[nodiscard]] inline int open_flags(const OpenOptions& options) noexcept {
  int flags = options.write ? (options.read ? O_RDWR : O_WRONLY) : O_RDONLY;
  if (options.direct) flags |= O_DIRECT;
  if (options.sync) flags |= O_SYNC;
  if (options.dsync) flags |= O_DSYNC;
  return flags;
}

}  // namespace iobench::detail
