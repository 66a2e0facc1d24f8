// The smallest tool on the installed package, built by the package test twice: with nothing but
//   c++ one_file.cpp $(pkg-config --cflags --libs iobench)
// (no -std, no -I: the .pc file must give them), and as a CMake project that does
// find_package(iobench) and links iobench::iobench alone (find_package_consumer/).
// 1. Runs the disk workload through the library: 32 writes of 4 KiB into DIR, and reads the
//    phase's throughput through PhaseResult::throughput_bytes_per_s().
// 2. Drives an IoDriver (a template in <iobench/io_driver.hpp>, whose error path formats with
//    fmt inline) over an in-memory file: instantiating it makes this program call libfmt itself,
//    so it links only if the package declares fmt as a dependency.
// Exit 0 if every figure is exact.
#include <cstdio>
#include <cstring>
#include <iobench/iobench.hpp>
#include <vector>

namespace {

// A file in memory: what IoDriver writes lands in `data`.
class MemoryFile final : public iobench::IoFile {
 public:
  void read_at(std::span<std::byte> buf, std::uint64_t offset) override {
    std::memcpy(buf.data(), data.data() + offset, buf.size());
  }
  void write_at(std::span<const std::byte> buf, std::uint64_t offset) override {
    if (data.size() < offset + buf.size()) data.resize(offset + buf.size());
    std::memcpy(data.data() + offset, buf.data(), buf.size());
  }
  void sync() override {}
  void close() override {}
  [[nodiscard]] std::uint64_t size() const override { return data.size(); }
  [[nodiscard]] int fd() const override { return -1; }
  [[nodiscard]] const std::filesystem::path& path() const override { return path_; }

  std::vector<std::byte> data;

 private:
  std::filesystem::path path_{"memory"};
};

// 16 appends of 4 KiB, each filled with its index.
struct Appends {
  std::uint32_t done = 0;
  bool next(iobench::IoRequest& request, iobench::OpId& op) {
    if (done == 16) return false;
    request.direction = iobench::IoDirection::kWrite;
    request.length = 4096;
    request.offset = std::uint64_t{done} * 4096;
    std::memset(request.buffer, static_cast<int>(done), request.length);
    ++done;
    op = 0;
    return true;
  }
  void completed(const iobench::IoRequest& /*request*/, iobench::OpId /*op*/) {}
};

// The IoDriver part: true if the 16 writes were recorded and landed.
bool drive_memory_file(const iobench::Registry& registry) {
  const auto engine = registry.create_engine("psync");
  const iobench::PhaseSpec spec{.name = "memory", .op_names = {"write"}};
  iobench::testing::WorkerHarness harness(spec, {}, *engine);
  MemoryFile file;
  std::vector<std::byte> buffer(4096);
  const auto queue = file.make_queue({.depth = 1, .buffers = buffer, .buffer_bytes = 4096});
  iobench::IoDriver driver(file, *queue, buffer, 4096, {});
  Appends source;
  harness.start_measuring();
  driver.run(harness.context(), source);
  const iobench::OpStats& writes = harness.ops()[0];
  std::printf("one_file: IoDriver %llu writes, %llu bytes\n",
              static_cast<unsigned long long>(writes.ops),
              static_cast<unsigned long long>(writes.bytes));
  return writes.ops == 16 && writes.bytes == 65536 && file.data.size() == 65536 &&
         file.data[15 * 4096] == std::byte{15};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: one_file DIR\n");
    return 2;
  }
  iobench::Registry registry;
  iobench::register_builtins(registry);
  iobench::register_builtin_workloads(registry);
  iobench::Runner runner(registry, {});
  const iobench::RunResult result = runner.run(std::vector<iobench::Step>{
      {.workload = "disk",
       .params = {{"operation", "write"}, {"bs", "4k"}, {"size", "128k"}},
       .targets = {argv[1]}}});
  const iobench::PhaseResult& phase = result.steps.at(0).phases.at(0);
  const std::size_t write = phase.op_index("write");
  const iobench::OpResult& writes = phase.ops.at(write);
  std::printf("one_file: %s, %llu writes, %llu bytes\n", iobench::to_string(result.status),
              static_cast<unsigned long long>(writes.ops),
              static_cast<unsigned long long>(writes.bytes));
  // Bytes per second over the phase's wall time; the disk phase's only bytes are its writes.
  const double expected = 131072.0 * 1e9 / static_cast<double>(phase.wall_ns);
  const double rate = phase.throughput_bytes_per_s();
  std::printf("one_file: %.0f bytes/s over %llu ns\n", rate,
              static_cast<unsigned long long>(phase.wall_ns));
  const bool exact = result.status == iobench::Status::kOk && writes.ops == 32 &&
                     writes.bytes == 131072 && phase.wall_ns > 0 && rate == expected &&
                     phase.throughput_bytes_per_s(write) == expected;
  const bool driven = drive_memory_file(registry);
  return exact && driven ? 0 : 1;
}
