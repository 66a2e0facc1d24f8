// Fuzz target: reading a loadfile's bytes, plain or gzip-compressed (read_loadfile_text, which
// decides by content), from a memory file.
//
// Invariants: a file that does not start with the gzip magic is returned byte for byte; any
// text gzip-compressed (by zlib, as gzip(1) does) reads back as that text; corrupt or cut
// compressed data gives a ConfigError naming the file, nothing else; no text returned is longer
// than the limit it was read with. The limit holds to the byte: a text of N bytes (plain, or
// gzip-compressed) reads back whole with a limit of N and is refused with N - 1, naming the
// max_loadfile_size param.
//
// Limits: read_loadfile_text reserves room for its whole limit up front (never touched in a
// normal run), and under ASan allocating and freeing that much writes its shadow memory, page by
// page, each time: with the default 128 MiB limit (kDefaultMaxLoadfileBytes), two reads per input
// ran 7 inputs/s (bench/fuzz.sh -t 30; perf: 89 % in memset and page faults, two 128 MiB mmaps
// per input). So a text read back is read with its own size as the limit (and one byte less),
// and the input itself, when it is gzip data that may inflate to anything, with kFuzzLimit: above
// one read chunk (1 MiB), so that a text can take several reads and a small gzip bomb is refused
// past the limit. A fuzz input of a few KiB cannot inflate to 128 MiB anyway (deflate's ratio
// is at most about 1000:1).
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <iobench/error.hpp>
#include <optional>
#include <string>
#include <vector>

#include "plugins/dbench/loadfile_reader.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace db = iobench::plugins::dbench;

// The text limit for gzip data from the fuzzer (see above): 2 MiB.
constexpr std::size_t kFuzzLimit = std::size_t{2} << 20;

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

// The text of a file holding `bytes`, read with a limit of `limit` bytes of text; nullopt after
// a ConfigError (which must name the file; `refused` gets its message).
std::optional<std::string> read(std::string_view bytes, std::size_t limit,
                                std::string* refused = nullptr) {
  const MemoryFile file(bytes);
  try {
    std::string text = db::read_loadfile_text(file.path(), limit);
    FUZZ_CHECK(text.size() <= limit, "over the size limit");
    return text;
  } catch (const iobench::ConfigError& e) {
    FUZZ_CHECK(std::string_view(e.what()).find(file.path()) != std::string_view::npos, e.what());
    if (refused != nullptr) *refused = e.what();
    return std::nullopt;
  }
}

// A file holding `bytes` (`text` itself, or it gzip-compressed) reads back as `text` with a limit
// of exactly its size, and is refused for its size with a limit of one byte less.
void check_reads_back(std::string_view bytes, std::string_view text, const char* what) {
  const auto got = read(bytes, text.size());
  FUZZ_CHECK(got && *got == text, what);
  if (text.empty()) return;
  std::string refused;
  FUZZ_CHECK(!read(bytes, text.size() - 1, &refused), "a text over the limit was read");
  FUZZ_CHECK(refused.find("max_loadfile_size=") != std::string::npos, refused);
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
  if (gzip_magic) {
    // Any gzip data: a text within the limit, or a ConfigError naming the file.
    (void)read(bytes, std::max(kFuzzLimit, size));
  } else {
    check_reads_back(bytes, bytes, "a plain file read back differently");
  }
  check_reads_back(gzip(bytes), bytes, "a gzip file read back differently");
  return 0;
}
