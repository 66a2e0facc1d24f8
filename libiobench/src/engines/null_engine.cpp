// The null engine (fio's ioengine=null): no file, no byte moved, every request done at once. What
// a run with it measures is iobench's own cost per op: the loop, the clock reads, the recording.
#include <iobench/engine.hpp>

namespace iobench {
namespace {

constexpr std::uint32_t kMaxDepth = 4096;

// Completes each request inside submit(); reap() hands the completions back in order. A ring of
// `depth` entries: never more than depth requests are in flight.
class NullQueue final : public IoQueue {
 public:
  explicit NullQueue(std::uint32_t depth) : IoQueue(depth), done_(depth) {}

  void submit(std::span<const IoRequest> requests) override {
    for (const IoRequest& request : requests) {
      done_[(head_ + in_flight_) % done_.size()] = {request.tag,
                                                    static_cast<std::int64_t>(request.length)};
      ++in_flight_;
    }
  }
  std::size_t reap(std::span<IoCompletion> out, std::size_t /*min_completions*/) override {
    std::size_t n = 0;
    for (; n < out.size() && in_flight_ > 0; ++n, --in_flight_) {
      out[n] = done_[head_];
      head_ = (head_ + 1) % done_.size();
    }
    return n;
  }

 private:
  std::vector<IoCompletion> done_;
  std::size_t head_ = 0;
};

class NullFile final : public IoFile {
 public:
  NullFile(std::filesystem::path path, std::uint64_t size) : path_(std::move(path)), size_(size) {}
  void read_at(std::span<std::byte> /*buf*/, std::uint64_t /*offset*/) override {}
  void write_at(std::span<const std::byte> /*buf*/, std::uint64_t /*offset*/) override {}
  void sync() override {}
  void close() override {}
  [[nodiscard]] std::uint64_t size() const override { return size_; }
  [[nodiscard]] int fd() const override { return -1; }
  [[nodiscard]] const std::filesystem::path& path() const override { return path_; }
  [[nodiscard]] std::unique_ptr<IoQueue> make_queue(const QueueOptions& options) override {
    return std::make_unique<NullQueue>(options.depth);
  }

 private:
  std::filesystem::path path_;
  std::uint64_t size_;
};

class NullEngine final : public Engine {
 public:
  [[nodiscard]] std::string name() const override { return "null"; }
  [[nodiscard]] EngineCaps caps() const override {
    return EngineCaps{.async = true,
                      .max_depth = kMaxDepth,
                      .supports_direct = true,
                      .moves_data = false};
  }
  [[nodiscard]] std::unique_ptr<IoFile> open(const FileLocation& location,
                                             const OpenOptions& options) const override {
    return std::make_unique<NullFile>(location.path(), options.map_size_bytes);
  }
};

}  // namespace

std::unique_ptr<Engine> make_null_engine() { return std::make_unique<NullEngine>(); }

}  // namespace iobench
