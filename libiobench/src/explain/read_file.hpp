#pragma once

// Reads a /proc or /sys file whole (they are generated on read: size 0 in stat, so read until
// EOF). Empty on any error; at most 4 MiB.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace iobench::explain {

inline std::string read_kernel_file(const std::string& path) {
  std::string out;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buf[8192];
  while (out.size() < (std::size_t{4} << 20)) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

/// The file's first line without blanks around it (sysfs attributes).
inline std::string read_attribute(const std::string& path) {
  std::string text = read_kernel_file(path);
  const std::size_t end = text.find('\n');
  if (end != std::string::npos) text.resize(end);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.pop_back();
  std::size_t start = 0;
  while (start < text.size() && (text[start] == ' ' || text[start] == '\t')) ++start;
  return text.substr(start);
}

}  // namespace iobench::explain
