#include <signal.h>

#include <atomic>
#include <iobench/runner.hpp>

namespace iobench {
namespace {

std::atomic<bool> g_stop_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "used from a signal handler");

extern "C" void handle_stop_signal(int signo) {
  if (g_stop_requested.exchange(true)) {
    // Second signal: the user wants out now. Default action, then re-raise.
    ::signal(signo, SIG_DFL);
    ::raise(signo);
  }
}

}  // namespace

void request_stop() noexcept { g_stop_requested.store(true); }
bool stop_requested() noexcept { return g_stop_requested.load(std::memory_order_relaxed); }
void clear_stop_request() noexcept { g_stop_requested.store(false); }

void install_stop_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = handle_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking call returns EINTR and the loop re-checks
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

}  // namespace iobench
