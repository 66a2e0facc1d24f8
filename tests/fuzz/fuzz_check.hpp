#pragma once

// What every fuzz target shares: the libFuzzer entry point's signature, a check that aborts with
// a message when an invariant breaks (libFuzzer then saves the input as a crash; the replay
// tests fail), and the input as text.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace iobench::fuzz {

/// Prints "invariant broken: WHAT (DETAIL)" and aborts.
[[noreturn]] inline void invariant_broken(const char* what, std::string_view detail,
                                          const char* file, int line) {
  std::fprintf(stderr, "%s:%d: invariant broken: %s (%.*s)\n", file, line, what,
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

/// The fuzz input as text (any bytes, NUL included).
[[nodiscard]] inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace iobench::fuzz

/// Aborts with `detail` (a std::string or string_view) when `condition` is false.
#define FUZZ_CHECK(condition, detail)                                                              \
  do {                                                                                             \
    if (!(condition)) ::iobench::fuzz::invariant_broken(#condition, (detail), __FILE__, __LINE__); \
  } while (false)
