#include <cstring>
#include <iobench/error.hpp>
#include <string>

namespace iobench {
namespace {

// "<call> <path>: <strerror>", or "<call>: <strerror>" when there is no path.
std::string io_error_message(int err, const std::string& what_call, const std::string& path) {
  char buffer[256];
  // GNU strerror_r (g++ defines _GNU_SOURCE): returns the text, which may or may not be `buffer`;
  // unlike strerror it is thread-safe, and workers fail concurrently.
  const char* text = strerror_r(err, buffer, sizeof buffer);
  std::string message = what_call;
  if (!path.empty()) message += " " + path;
  message += ": ";
  message += text;
  return message;
}

}  // namespace

IoError::IoError(int err, const std::string& what_call, const std::string& path)
    : Error(io_error_message(err, what_call, path)), errno_(err) {}

}  // namespace iobench
