#pragma once

/// IoDriver's one-at-a-time loops over the psync engine's queue, without the queue's two virtual
/// calls per op: the loop finds the queue's descriptor once (psync_queue_fd()) and makes the
/// pread(2)/pwrite(2) itself, inline; what is not a whole transfer (a failure, EINTR, a short
/// transfer) goes to psync_finish_request(), which does what the queue's submit() does then.
/// Why: on 4 KiB page-cache reads (~0.93 us each on this project's 2-CPU Intel Xeon VM) the
/// queue's submit() and reap() around the call were ~1 % of the loop's time (perf), where the
/// ops are all the run measures. Every other queue keeps the virtual calls. Included by
/// <iobench/io_driver.hpp>; a program should not call these itself.
///
/// Compatibility: psync_transfer() is inline, so a plugin built against this header makes the
/// call as this version's psync queue does; the library may turn the shortcut off for any queue
/// (psync_queue_fd() returning -1), and such a plugin then goes through submit() and reap().

#include <sys/types.h>

#include <cstdint>
#include <iobench/detail/direct_syscall.hpp>
#include <iobench/engine.hpp>

namespace iobench::detail {

/// The descriptor a queue made by the psync engine reads and writes, for IoDriver to call
/// pread/pwrite on itself; -1 for any other queue (another engine's, a plugin's), and the library
/// may return -1 for psync's too: callers then use the queue's submit() and reap(). One
/// dynamic_cast: call it once per loop, not per op.
[[nodiscard]] int psync_queue_fd(const IoQueue& queue) noexcept;

/// Finishes request `r` of the psync queue whose descriptor psync_queue_fd() gave, after its
/// call returned `n` (not r.length; -1 with errno still as the call set it): retries EINTR and
/// moves the rest of a short transfer with blocking calls, or throws the IoError of the failed
/// call naming pread/pwrite and the file (a read meeting the end of the file: IoError "short
/// read"), as the queue's submit() does. Throws Error if `queue` is not psync's.
[[gnu::cold]] void psync_finish_request(IoQueue& queue, const IoRequest& r, ssize_t n);

/// One request of the psync queue `queue` on its descriptor `fd`, made inline: the completion
/// submit() and reap() would have returned ({r.tag, r.length}: a request either moves all its
/// bytes or throws). Throws IoError as psync_finish_request().
[[gnu::always_inline]] inline IoCompletion psync_transfer(IoQueue& queue, int fd,
                                                          const IoRequest& r) {
  const ssize_t n = r.direction == IoDirection::kRead
                        ? direct_pread(fd, r.buffer, r.length, static_cast<off_t>(r.offset))
                        : direct_pwrite(fd, r.buffer, r.length, static_cast<off_t>(r.offset));
  if (n != static_cast<ssize_t>(r.length)) [[unlikely]]
    psync_finish_request(queue, r, n);
  return {r.tag, static_cast<std::int64_t>(r.length)};
}

}  // namespace iobench::detail
