#include "plugins/tiotest/test_hooks.hpp"

#include <atomic>

namespace iobench::plugins::tiotest {

namespace {
std::atomic<const TestHooks*> g_hooks{nullptr};
}  // namespace

void set_test_hooks(const TestHooks* hooks) noexcept {
  g_hooks.store(hooks, std::memory_order_release);
}

const TestHooks* installed_test_hooks() noexcept { return g_hooks.load(std::memory_order_acquire); }

}  // namespace iobench::plugins::tiotest
