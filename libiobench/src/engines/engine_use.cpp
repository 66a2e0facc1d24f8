#include <fmt/format.h>

#include <iobench/error.hpp>
#include <iobench/workload.hpp>

namespace iobench {

void check_engine_use(const Engine& engine, bool direct, std::uint32_t iodepth,
                      std::string_view direct_param) {
  const EngineCaps caps = engine.caps();
  const std::string name = engine.name();
  if (direct && !caps.supports_direct) {
    throw ConfigError(fmt::format(
        "engine {} cannot do O_DIRECT ({}): {}; use another engine (psync, io_uring, libaio) "
        "or buffered I/O",
        name, direct_param,
        caps.needs_map_size ? "a mapping always goes through the page cache"
                            : "it does not support it"));
  }
  if (!direct && caps.async_needs_direct) {
    throw ConfigError(fmt::format(
        "engine {} without O_DIRECT would not be asynchronous: the kernel copies buffered "
        "requests inside the submit call, so iodepth would not hold; add {} or use io_uring for "
        "buffered asynchronous I/O",
        name, direct_param));
  }
  if (!direct && caps.polls_completions) {
    throw ConfigError(
        fmt::format("engine {}: polled completions (hipri) need O_DIRECT; add {} or drop hipri",
                    name, direct_param));
  }
  if (iodepth < 1 || iodepth > caps.max_depth) {
    throw ConfigError(
        caps.max_depth == 1
            ? fmt::format("iodepth={}: engine {} does one I/O at a time; use iodepth=1, or an "
                          "asynchronous engine (io_uring, libaio) for a deeper queue",
                          iodepth, name)
            : fmt::format("iodepth={}: engine {} takes 1..{}", iodepth, name, caps.max_depth));
  }
}

void check_engine_checks_data(const Engine& engine, bool checks_data,
                              std::string_view check_param) {
  if (!checks_data || engine.caps().moves_data) return;
  throw ConfigError(fmt::format(
      "{} with engine {}: the engine moves no bytes, so reads return nothing to check and every "
      "block would read as corrupt; use an engine that moves data (psync, pvsync2, io_uring, "
      "libaio, mmap) or drop {}",
      check_param, engine.name(), check_param));
}

}  // namespace iobench
