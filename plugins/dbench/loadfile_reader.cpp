#include "plugins/dbench/loadfile_reader.hpp"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <iobench/error.hpp>
#include <memory>

namespace iobench::plugins::dbench {

namespace {

struct GzCloser {
  void operator()(gzFile_s* file) const noexcept { gzclose(file); }
};

}  // namespace

std::string read_loadfile_text(const std::filesystem::path& path) {
  errno = 0;
  std::unique_ptr<gzFile_s, GzCloser> file(gzopen(path.c_str(), "rb"));
  if (!file) {
    const int err = errno;
    throw ConfigError("loadfile '" + path.string() +
                      "' cannot be opened: " + (err != 0 ? std::strerror(err) : "out of memory") +
                      "; give an existing dbench loadfile (e.g. /usr/share/dbench/client.txt)");
  }
  gzbuffer(file.get(), 256 * 1024);
  std::string text;
  constexpr std::size_t kChunk = 1 << 20;
  for (;;) {
    const std::size_t old_size = text.size();
    if (old_size > kMaxLoadfileBytes) {
      throw ConfigError("loadfile '" + path.string() + "' is larger than 1 GiB of text; " +
                        "expected a dbench loadfile (client.txt is 25 MiB)");
    }
    text.resize(old_size + kChunk);
    const int got = gzread(file.get(), text.data() + old_size, static_cast<unsigned>(kChunk));
    // A gzip stream cut short ends with a 0 read and Z_BUF_ERROR set, not with -1.
    int zerr = Z_OK;
    const char* what = gzerror(file.get(), &zerr);
    if (got < 0 || (zerr != Z_OK && zerr != Z_STREAM_END)) {
      const std::string reason = zerr == Z_ERRNO ? std::strerror(errno) : what;
      throw ConfigError("loadfile '" + path.string() + "' cannot be read: " + reason +
                        "; expected a plain or gzip-compressed dbench loadfile");
    }
    text.resize(old_size + static_cast<std::size_t>(got));
    if (got == 0) break;
  }
  if (text.size() > kMaxLoadfileBytes) {
    throw ConfigError("loadfile '" + path.string() + "' is larger than 1 GiB of text; " +
                      "expected a dbench loadfile (client.txt is 25 MiB)");
  }
  return text;
}

}  // namespace iobench::plugins::dbench
