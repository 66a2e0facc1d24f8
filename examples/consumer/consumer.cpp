// Measures 4 KiB pread latency of one file with iobench's histogram, engine and units: what a
// tool author gets from `find_package(iobench)` and `iobench::iobench`.
// Usage: consumer FILE_IN_A_DIRECTORY_YOU_OWN [SIZE]  (creates FILE, reads it, removes it)
#include <cstdio>
#include <filesystem>
#include <iobench/iobench.hpp>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: consumer NEW_FILE [SIZE]\n");
    return 2;
  }
  try {
    const std::filesystem::path path = argv[1];
    const std::uint64_t size = argc > 2 ? iobench::parse_size(argv[2], "SIZE") : 4 * iobench::kMiB;
    const auto engine = iobench::make_psync_engine();
    iobench::AlignedBuffer block(4096);
    auto file = engine->open(path, {.read = true, .write = true, .create = true});
    for (std::uint64_t offset = 0; offset < size; offset += block.size()) {
      file->write_at(block.span(), offset);
    }
    iobench::LatencyHistogram histogram;
    for (std::uint64_t offset = 0; offset < size; offset += block.size()) {
      const std::uint64_t start = iobench::monotonic_ns();
      file->read_at(block.span(), offset);
      histogram.record(iobench::monotonic_ns() - start);
    }
    file->close();
    std::filesystem::remove(path);
    std::printf("iobench %s: %llu reads, mean %.0f ns, p99 %llu ns, max %llu ns\n", IOBENCH_VERSION,
                static_cast<unsigned long long>(histogram.count()), histogram.mean(),
                static_cast<unsigned long long>(histogram.percentile(99)),
                static_cast<unsigned long long>(histogram.max()));
    return histogram.count() == size / block.size() ? 0 : 1;
  } catch (const iobench::Error& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
