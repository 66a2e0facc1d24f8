#include <signal.h>

#include <atomic>
#include <iobench/runner.hpp>

namespace iobench {
namespace {

std::atomic<unsigned> g_stop_requests{0};
static_assert(std::atomic<unsigned>::is_always_lock_free, "used from a signal handler");

// Every stop signal only counts: the run sees the first at once and ends cleanly; later ones
// hurry that end (the runner kills worker processes instead of waiting for them), and none
// skips the clean-up. A user who must leave at once has SIGKILL (the run's files then stay).
extern "C" void handle_stop_signal(int /*signo*/) { request_stop(); }

}  // namespace

void request_stop() noexcept { g_stop_requests.fetch_add(1); }
bool stop_requested() noexcept { return g_stop_requests.load(std::memory_order_relaxed) != 0; }
unsigned stop_request_count() noexcept { return g_stop_requests.load(std::memory_order_relaxed); }
void clear_stop_request() noexcept { g_stop_requests.store(0); }

void install_stop_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = handle_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking call returns EINTR and the loop re-checks
  for (const int signo : stop_signals()) {
    // A signal ignored when we started stays ignored: nohup(1) ignores SIGHUP, a shell's
    // background job SIGINT, and the user asked for exactly that.
    struct sigaction previous {};
    if (::sigaction(signo, nullptr, &previous) == 0 && previous.sa_handler == SIG_IGN) continue;
    ::sigaction(signo, &action, nullptr);
  }
}

std::span<const int> stop_signals() noexcept {
  static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
  return kSignals;
}

}  // namespace iobench
