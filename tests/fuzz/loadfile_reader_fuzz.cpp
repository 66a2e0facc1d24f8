// Fuzz target: reading a loadfile's bytes, plain or gzip-compressed (read_loadfile_text, which
// decides by content), from a memory file.
//
// Invariants: a file that does not start with the gzip magic is returned byte for byte; any
// text gzip-compressed (by zlib, as gzip(1) does) reads back as that text; corrupt or cut
// compressed data gives a ConfigError naming the file, nothing else.
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <iobench/error.hpp>
#include <optional>
#include <string>
#include <vector>

#include "plugins/dbench/loadfile_reader.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace db = iobench::plugins::dbench;

// A memory file holding `bytes`, read through its /proc/self/fd path like any loadfile.
class MemoryFile {
 public:
  explicit MemoryFile(std::string_view bytes) : fd_(::memfd_create("loadfile", MFD_CLOEXEC)) {
    if (fd_ < 0) std::abort();
    for (std::size_t done = 0; done < bytes.size();) {
      const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n <= 0) std::abort();
      done += static_cast<std::size_t>(n);
    }
  }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  ~MemoryFile() { ::close(fd_); }
  [[nodiscard]] std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

std::optional<std::string> read(std::string_view bytes) {
  const MemoryFile file(bytes);
  try {
    return db::read_loadfile_text(file.path());
  } catch (const iobench::ConfigError& e) {
    FUZZ_CHECK(std::string_view(e.what()).find(file.path()) != std::string_view::npos, e.what());
    return std::nullopt;
  }
}

// `text` as a gzip file (zlib's deflate with a gzip header and trailer).
std::string gzip(std::string_view text) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    std::abort();
  }
  std::string out(deflateBound(&stream, text.size()) + 32, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  if (deflate(&stream, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes = iobench::fuzz::as_text(data, size);
  const bool gzip_magic = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
  const auto text = read(bytes);
  if (!gzip_magic) FUZZ_CHECK(text && *text == bytes, "a plain file read back differently");
  if (text) FUZZ_CHECK(text->size() <= db::kDefaultMaxLoadfileBytes, "over the size limit");

  const auto unpacked = read(gzip(bytes));
  FUZZ_CHECK(unpacked && *unpacked == bytes, "a gzip file read back differently");
  return 0;
}
