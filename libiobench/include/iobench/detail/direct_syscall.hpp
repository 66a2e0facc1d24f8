#pragma once

/// pread(2) and pwrite(2) as one `syscall` instruction, for the psync engine's queue and
/// IoDriver's one-at-a-time loops over it (<iobench/detail/psync_fast_path.hpp>). Not to be
/// included directly.
//
// glibc's pread() in a process with more than one thread (every iobench run: the runner's thread
// besides the workers) is a cancellation point: it switches asynchronous cancellation on and off
// around the call, two atomic read-modify-writes of the thread's cancel state, plus a PLT hop
// into libc, whose pages are TLB-cold right after the previous system call. On 4 KiB page-cache
// reads (about 1.9 us each on this project's 2-core AMD EPYC VM) those were 10-15 ns of the
// loop's 60-odd ns of user time per op (perf, cpu-clock samples). iobench's workers are never
// cancelled (they stop through the run's stop flag), so the call is made directly.
//
// ThreadSanitizer builds keep glibc's calls: TSan's pread/pwrite interceptors are what tell it
// about the file descriptors, and a bare syscall would hide them from it. Since the calls are
// inline, a program or plugin that includes this (through <iobench/io_driver.hpp>) chooses for
// its own loops: a TSan build of the library with a plain build of a plugin leaves the plugin's
// calls unseen by TSan.

#include <sys/types.h>

#include <cerrno>
#include <cstddef>

// The bare call: x86-64 Linux (not x32), and no sanitizer that must see the call (TSan's
// interceptors track descriptors; MSan's mark the bytes read as initialised). A library and a
// plugin decide this each in its own build. Undefined again at the end of this file.
#if defined(__x86_64__) && !defined(__ILP32__) && defined(__linux__) && \
    !defined(__SANITIZE_THREAD__)
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define IOBENCH_DETAIL_LIBC_PREAD 1
#endif
#endif
#else
#define IOBENCH_DETAIL_LIBC_PREAD 1
#endif

#ifdef IOBENCH_DETAIL_LIBC_PREAD
#include <unistd.h>
#endif

namespace iobench::detail {

#ifndef IOBENCH_DETAIL_LIBC_PREAD
/// x86-64 Linux's system call numbers of pread64 and pwrite64 (fixed by the kernel's ABI).
inline constexpr long kSysPread64 = 17;
inline constexpr long kSysPwrite64 = 18;

/// One system call by the x86-64 convention: number in rax, arguments in rdi, rsi, rdx, r10;
/// rcx and r11 are clobbered; a result in [-4095, -1] is -errno (set in errno, -1 returned).
[[gnu::always_inline]] inline ssize_t direct_syscall4(long number, long a, long b, long c,
                                                      long d) noexcept {
  long result;
  register long r10 asm("r10") = d;
  asm volatile("syscall"
               : "=a"(result)
               : "0"(number), "D"(a), "S"(b), "d"(c), "r"(r10)
               : "rcx", "r11", "memory");
  if (result < 0 && result > -4096) [[unlikely]] {
    errno = static_cast<int>(-result);
    return -1;
  }
  return result;
}
#endif

/// pread(2): the same arguments, result and errno; not a cancellation point.
[[gnu::always_inline]] inline ssize_t direct_pread(int fd, void* buffer, std::size_t bytes,
                                                   off_t offset) noexcept {
#ifndef IOBENCH_DETAIL_LIBC_PREAD
  return direct_syscall4(kSysPread64, fd, reinterpret_cast<long>(buffer), static_cast<long>(bytes),
                         offset);
#else
  return ::pread(fd, buffer, bytes, offset);
#endif
}

/// pwrite(2): the same arguments, result and errno; not a cancellation point.
[[gnu::always_inline]] inline ssize_t direct_pwrite(int fd, const void* buffer, std::size_t bytes,
                                                    off_t offset) noexcept {
#ifndef IOBENCH_DETAIL_LIBC_PREAD
  return direct_syscall4(kSysPwrite64, fd, reinterpret_cast<long>(buffer), static_cast<long>(bytes),
                         offset);
#else
  return ::pwrite(fd, buffer, bytes, offset);
#endif
}

}  // namespace iobench::detail

#undef IOBENCH_DETAIL_LIBC_PREAD
