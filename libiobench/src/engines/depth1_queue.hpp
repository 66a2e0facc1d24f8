#pragma once

// The depth-1 queue of the synchronous engines: the request's I/O is done inside submit() and
// reap() hands its completion back. One template for every such engine, each giving the call
// that moves one request.

#include <cstdint>
#include <iobench/engine.hpp>
#include <span>
#include <utility>

namespace iobench::detail {

/// A queue of depth 1 whose submit() runs `transfer(request)` -> the request's result (bytes
/// moved, or -errno for a failure the engine reports as a completion rather than throwing).
/// A template, not a virtual call, so the per-op path costs what the engine's own queue did.
template <class Transfer>
class Depth1Queue final : public IoQueue {
 public:
  explicit Depth1Queue(Transfer transfer) noexcept : IoQueue(1), transfer_(std::move(transfer)) {}

  void submit(std::span<const IoRequest> requests) override {
    for (const IoRequest& request : requests) {
      done_ = {request.tag, transfer_(request)};
      ++in_flight_;
    }
  }

  std::size_t reap(std::span<IoCompletion> out, std::size_t /*min_completions*/) override {
    if (in_flight_ == 0 || out.empty()) return 0;
    out[0] = done_;
    --in_flight_;
    return 1;
  }

 private:
  Transfer transfer_;
  IoCompletion done_;
};

}  // namespace iobench::detail
