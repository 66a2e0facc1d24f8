// main() of the replay build of a fuzz target (GCC; no libFuzzer): runs every file named on the
// command line, and every file below every directory named, through LLVMFuzzerTestOneInput once,
// in name order. A broken invariant aborts (the ctest test fails, naming the input first).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_check.hpp"

namespace {

std::vector<std::filesystem::path> inputs_of(const std::filesystem::path& arg) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(arg)) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(arg)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(arg);
  }
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
    return 2;
  }
  std::size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    if (!std::filesystem::exists(argv[i])) {
      std::fprintf(stderr, "%s: no such file or directory\n", argv[i]);
      return 2;
    }
    for (const auto& path : inputs_of(argv[i])) {
      std::ifstream in(path, std::ios::binary);
      const std::vector<char> bytes{std::istreambuf_iterator<char>(in),
                                    std::istreambuf_iterator<char>()};
      if (!in.eof() && in.fail()) {
        std::fprintf(stderr, "%s: cannot be read\n", path.c_str());
        return 2;
      }
      std::fprintf(stderr, "replay %s (%zu bytes)\n", path.c_str(), bytes.size());
      // A copy in its own allocation, so that ASan sees reads past the end.
      const std::vector<std::uint8_t> input(bytes.begin(), bytes.end());
      (void)LLVMFuzzerTestOneInput(input.empty() ? nullptr : input.data(), input.size());
      ++count;
    }
  }
  std::fprintf(stderr, "%zu inputs replayed\n", count);
  return count > 0 ? 0 : 2;
}
