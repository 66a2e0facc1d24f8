#include "engines/mapping_fault_guard.hpp"

#include <setjmp.h>
#include <signal.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace iobench::detail {
namespace {

// The recovery point of the copy running in this thread. begin == end: no guarded copy.
// initial-exec TLS: the handler reads it with one %fs-relative load, no __tls_get_addr call
// (which may allocate, so is not async-signal-safe); libiobench is loaded at program start.
struct GuardState {
  sigjmp_buf env;
  const std::byte* begin = nullptr;
  const std::byte* end = nullptr;
  const std::byte* fault = nullptr;
};
__attribute__((tls_model("initial-exec"))) thread_local GuardState t_guard;

// The SIGBUS disposition before ours; written once, before our handler is installed.
struct sigaction g_previous {};

// Hands a SIGBUS that is not ours to whoever had it before, as if we had never been there.
void forward(int signo, siginfo_t* info, void* context) {
  if ((g_previous.sa_flags & SA_SIGINFO) != 0 && g_previous.sa_sigaction != nullptr) {
    g_previous.sa_sigaction(signo, info, context);
    return;
  }
  if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN &&
      g_previous.sa_handler != nullptr) {
    g_previous.sa_handler(signo);
    return;
  }
  if (g_previous.sa_handler == SIG_IGN && info->si_code <= 0) return;  // a kill(2) ignored
  // Default action. A fault re-executes the faulting instruction on return and is then fatal;
  // a signal sent by kill(2) or raise(3) is raised again (SA_NODEFER: it is not blocked here).
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(SIGBUS, &fallback, nullptr);
  if (info->si_code <= 0) ::raise(SIGBUS);
}

extern "C" void on_sigbus(int signo, siginfo_t* info, void* context) {
  GuardState& guard = t_guard;
  const auto* address = static_cast<const std::byte*>(info->si_addr);
  // si_code > 0: raised by the kernel for a fault of this thread (not sent with kill(2)).
  if (info->si_code > 0 && guard.begin != guard.end && address >= guard.begin &&
      address < guard.end) {
    guard.fault = address;
    siglongjmp(guard.env, 1);
  }
  forward(signo, info, context);
}

}  // namespace

int install_mapping_fault_handler() noexcept {
  // Under a mutex: workers open their mappings concurrently. Checked at every call, not once:
  // whoever installs a SIGBUS handler after us (a test framework restoring its own at the end
  // of a test case, an embedding program) would otherwise silently disable the guard.
  static std::mutex mutex;
  const std::lock_guard lock(mutex);
  struct sigaction current {};
  if (::sigaction(SIGBUS, nullptr, &current) != 0) return errno;
  if ((current.sa_flags & SA_SIGINFO) != 0 && current.sa_sigaction == on_sigbus) return 0;
  struct sigaction action {};
  action.sa_sigaction = on_sigbus;
  sigemptyset(&action.sa_mask);
  // SA_NODEFER: SIGBUS is not added to the mask while the handler runs, so leaving it by
  // siglongjmp (which does not restore the mask: sigsetjmp(env, 0)) leaves the mask as it was.
  action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
  g_previous = current;  // before ours is in place: the handler reads it
  if (::sigaction(SIGBUS, &action, nullptr) != 0) return errno;
  return 0;
}

const std::byte* guarded_copy(void* dst, const void* src, std::size_t bytes, const std::byte* map,
                              std::size_t map_bytes) noexcept {
  // t_guard is named directly, never through a local: a local's value is indeterminate after
  // siglongjmp (-Wclobbered), a thread-local object is not.
  if (sigsetjmp(t_guard.env, 0) != 0) {
    t_guard.begin = t_guard.end = nullptr;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    return t_guard.fault;
  }
  t_guard.begin = map;
  t_guard.end = map + map_bytes;
  // The handler must see the range before the copy can fault, and the copy must not move
  // past the reset (the compiler may not reorder across a signal fence).
  std::atomic_signal_fence(std::memory_order_seq_cst);
  std::memcpy(dst, src, bytes);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  t_guard.begin = t_guard.end = nullptr;
  return nullptr;
}

}  // namespace iobench::detail
