// verify at queue depths above 1 when one block could be written twice at once (a file of fewer
// blocks than the depth, a random order's next pass): through an engine whose "device" applies
// each batch's writes last-submitted-first but completes them in submit order, and through
// io_uring and libaio. A request never overlaps one in flight (IoDriverOptions::
// serialize_overlaps), so the block holds the write that completed last and verify finds nothing.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <deque>
#include <iobench/engine.hpp>
#include <iobench/registry.hpp>
#include <iobench/runner.hpp>
#include <vector>

#include "tests/support/test_support.hpp"

using namespace iobench;

namespace {

// psync's file under a queue that reorders: a reap carries out every pending request, the last
// submitted first, then completes them in the order submitted. Two writes of one block in flight
// together thus leave the older one on disk while the newer one completes last.
class ReorderQueue final : public IoQueue {
 public:
  ReorderQueue(std::uint32_t depth, IoFile& file) : IoQueue(depth), file_(file) {}
  void submit(std::span<const IoRequest> requests) override {
    pending_.insert(pending_.end(), requests.begin(), requests.end());
    in_flight_ += static_cast<std::uint32_t>(requests.size());
  }
  std::size_t reap(std::span<IoCompletion> out, std::size_t /*min*/) override {
    for (auto it = pending_.rbegin(); it != pending_.rend(); ++it) {
      if (it->direction == IoDirection::kWrite) {
        file_.write_at({it->buffer, it->length}, it->offset);
      } else {
        file_.read_at({it->buffer, it->length}, it->offset);
      }
    }
    for (const IoRequest& r : pending_) done_.push_back({r.tag, r.length});
    pending_.clear();
    std::size_t n = 0;
    for (; n < out.size() && !done_.empty(); ++n) {
      out[n] = done_.front();
      done_.pop_front();
    }
    in_flight_ -= static_cast<std::uint32_t>(n);
    return n;
  }

 private:
  IoFile& file_;
  std::vector<IoRequest> pending_;
  std::deque<IoCompletion> done_;
};

class ReorderFile final : public IoFile {
 public:
  explicit ReorderFile(std::unique_ptr<IoFile> file) : file_(std::move(file)) {}
  void read_at(std::span<std::byte> buf, std::uint64_t offset) override {
    file_->read_at(buf, offset);
  }
  void write_at(std::span<const std::byte> buf, std::uint64_t offset) override {
    file_->write_at(buf, offset);
  }
  void sync() override { file_->sync(); }
  void close() override { file_->close(); }
  [[nodiscard]] std::uint64_t size() const override { return file_->size(); }
  [[nodiscard]] int fd() const override { return file_->fd(); }
  [[nodiscard]] const std::filesystem::path& path() const override { return file_->path(); }
  std::unique_ptr<IoQueue> make_queue(const QueueOptions& options) override {
    return std::make_unique<ReorderQueue>(options.depth, *file_);
  }

 private:
  std::unique_ptr<IoFile> file_;
};

class ReorderEngine final : public Engine {
 public:
  explicit ReorderEngine(std::unique_ptr<Engine> psync) : psync_(std::move(psync)) {}
  [[nodiscard]] std::string name() const override { return "reorder"; }
  [[nodiscard]] EngineCaps caps() const override { return {.async = true, .max_depth = 64}; }
  [[nodiscard]] std::unique_ptr<IoFile> open(const FileLocation& location,
                                             const OpenOptions& options) const override {
    return std::make_unique<ReorderFile>(psync_->open(location, options));
  }

 private:
  std::unique_ptr<Engine> psync_;
};

Registry registry_with_reorder() {
  Registry registry = test::make_full_registry();
  registry.add_engine({.name = "reorder",
                       .summary = "psync under a reordering queue (test)",
                       .options = {},
                       .factory = [](const EngineSpec&) -> std::unique_ptr<Engine> {
                         Registry builtins;
                         register_builtins(builtins);
                         return std::make_unique<ReorderEngine>(builtins.create_engine("psync"));
                       }});
  return registry;
}

RunResult run_verify_step(const Registry& registry, std::map<std::string, std::string> params,
                          const std::filesystem::path& target) {
  test::CapturingReporter reporter;
  return Runner(registry, RunOptions{})
      .run(std::vector<Step>{Step{
               .workload = "disk", .params = std::move(params), .targets = {target}}},
           reporter);
}

// True if `dir` takes O_DIRECT opens (tmpfs before 6.6 and some others refuse them).
bool direct_io_works(const std::filesystem::path& dir) {
  const auto probe = dir / ".direct-probe";
  const int fd = ::open(probe.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_DIRECT, 0600);
  if (fd >= 0) ::close(fd);
  std::filesystem::remove(probe);
  return fd >= 0;
}

// Checks a write + verify step of `blocks` blocks of 4 KiB written `passes` times: every write
// counted once, every block read back once and found as last written.
void check_written_and_verified(const RunResult& run, std::uint64_t blocks, std::uint64_t passes) {
  INFO(run.steps.at(0).message);
  REQUIRE(run.status == Status::kOk);
  const StepResult& step = run.steps.at(0);
  REQUIRE(step.phases.size() == 2);
  CHECK(step.phases[0].name == "write");
  CHECK(step.phases[0].ops[0].ops == blocks * passes);
  CHECK(step.phases[0].ops[0].bytes == blocks * passes * 4096);
  CHECK(step.phases[1].name == "verify");
  CHECK(step.phases[1].status == Status::kOk);
  CHECK(step.phases[1].ops[0].ops == blocks);
  CHECK(step.phases[1].ops[0].bytes == blocks * 4096);
  CHECK(step.phases[1].ops[0].errors == 0);
}

}  // namespace

TEST_CASE("verify at iodepth 8 never has one block written twice at once", "[disk][engine]") {
  const Registry registry = registry_with_reorder();
  test::TempDir dir("disk-verify-overlap");
  // 2 blocks at depth 8: each pass's writes would be in flight beside the next passes' writes
  // of the same blocks (without serialize_overlaps every batch of 8 holds each block 4 times,
  // and the oldest write is left: a lost write); a random order of 12 blocks: a pass's last
  // blocks beside the next pass's first.
  for (const auto& [seek, blocks] : {std::pair<std::string, std::uint64_t>{"sequential", 2},
                                     std::pair<std::string, std::uint64_t>{"random", 12}}) {
    INFO("seek=" << seek << " blocks=" << blocks);
    const RunResult run = run_verify_step(registry,
                                          {{"engine", "reorder"},
                                           {"operation", "write"},
                                           {"seek", seek},
                                           {"bs", "4k"},
                                           {"blocks", std::to_string(blocks)},
                                           {"iodepth", "8"},
                                           {"iterations", "40"},
                                           {"verify", "true"}},
                                          dir.path());
    check_written_and_verified(run, blocks, 40);
  }
}

TEST_CASE("verify of a 2-block file at iodepth 8 through io_uring and libaio", "[disk][engine]") {
  const Registry& registry = test::shared_full_registry();
  test::TempDir dir("disk-verify-depth");
  const bool direct_ok = direct_io_works(dir.path());
  for (const char* engine : {"io_uring", "libaio"}) {
    INFO("engine " << engine);
    if (const auto why = registry.create_engine(engine)->unavailable_reason(); !why.empty()) {
      WARN("skipping " << engine << ": " << why);
      continue;
    }
    if (!direct_ok) {
      WARN("skipping " << engine << ": " << dir.path() << " refuses O_DIRECT");
      continue;
    }
    const RunResult run = run_verify_step(registry,
                                          {{"engine", engine},
                                           {"mode", "direct"},
                                           {"operation", "write"},
                                           {"bs", "4k"},
                                           {"blocks", "2"},
                                           {"iodepth", "8"},
                                           {"iterations", "200"},
                                           {"verify", "true"}},
                                          dir.path());
    check_written_and_verified(run, 2, 200);
  }
}
