#pragma once

// Small helpers the filebench tests share: the message a .f text's parse fails with, a .f file
// written to disk, the pages of a file in the page cache, and the reference filebench binary.

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iobench/error.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "plugins/filebench/wml_parser.hpp"

namespace filebench_test {

/// The message of the ConfigError ("FILE:LINE:COL: problem; fix") that parsing the .f text
/// `text` named `file_name` from memory throws (`include` refused), or "no error" where it parses.
inline std::string wml_error_of(const std::string& text, const std::string& file_name = "t.f") {
  try {
    (void)iobench::plugins::filebench::parse_wml(text, file_name);
  } catch (const iobench::ConfigError& e) {
    return e.what();
  }
  return "no error";
}

/// As above, each `include` read through `reader`.
inline std::string wml_error_of(const std::string& text, const std::string& file_name,
                                const iobench::plugins::filebench::WmlIncludeReader& reader) {
  try {
    (void)iobench::plugins::filebench::parse_wml(text, file_name, reader);
  } catch (const iobench::ConfigError& e) {
    return e.what();
  }
  return "no error";
}

/// Writes `text` to the file `path` (making its parent directories) and returns `path`.
inline std::filesystem::path write_file(const std::filesystem::path& path,
                                        const std::string& text) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path);
  out << text;
  out.close();
  REQUIRE(out.good());
  return path;
}

/// Pages of the non-empty file `path` in the page cache (mincore of a shared mapping of it).
inline std::size_t pages_in_cache(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  const auto size = static_cast<std::size_t>(std::filesystem::file_size(path));
  REQUIRE(size > 0);
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  REQUIRE(map != MAP_FAILED);
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident((size + page - 1) / page);
  REQUIRE(::mincore(map, size, resident.data()) == 0);
  REQUIRE(::munmap(map, size) == 0);
  std::size_t n = 0;
  for (const unsigned char r : resident) n += r & 1U;
  return n;
}

/// The filebench binary IOBENCH_FILEBENCH names, or null where it is unset or empty: then a
/// "skipped" warning is printed (to Catch and stderr) and the test should return.
inline const char* filebench_binary_or_skip() {
  const char* filebench = std::getenv("IOBENCH_FILEBENCH");
  if (filebench != nullptr && *filebench != '\0') return filebench;
  const char* why = "skipped: no filebench binary (set IOBENCH_FILEBENCH)";
  WARN(why);
  std::cerr << why << "\n";
  return nullptr;
}

}  // namespace filebench_test
