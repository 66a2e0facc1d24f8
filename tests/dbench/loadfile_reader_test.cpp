#include "plugins/dbench/loadfile_reader.hpp"

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iobench/error.hpp>
#include <string>

#include "plugins/dbench/loadfile_parser.hpp"
#include "tests/support/test_support.hpp"

namespace dbench = iobench::plugins::dbench;
using dbench::Expect;
using dbench::OpCode;

namespace {

constexpr const char* kDebianClientTxt = "/usr/share/dbench/client.txt";

void write_plain(const std::filesystem::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

void write_gzip(const std::filesystem::path& path, std::string_view text) {
  gzFile file = gzopen(path.c_str(), "wb6");
  REQUIRE(file != nullptr);
  REQUIRE(gzwrite(file, text.data(), static_cast<unsigned>(text.size())) ==
          static_cast<int>(text.size()));
  REQUIRE(gzclose(file) == Z_OK);
}

std::string read_error(const std::filesystem::path& path) {
  try {
    (void)dbench::read_loadfile_text(path);
  } catch (const iobench::ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("plain and gzip loadfiles read the same text", "[dbench]") {
  iobench::test::TempDir dir("dbread");
  const std::string text = "Deltree \"\\clients\\client1\" NT_STATUS_OK\nClose 1 NT_STATUS_OK\n";
  write_plain(dir.path() / "a.txt", text);
  write_gzip(dir.path() / "a.txt.gz", text);
  write_gzip(dir.path() / "named-plain.txt", text);  // recognised by content, not by name
  CHECK(dbench::read_loadfile_text(dir.path() / "a.txt") == text);
  CHECK(dbench::read_loadfile_text(dir.path() / "a.txt.gz") == text);
  CHECK(dbench::read_loadfile_text(dir.path() / "named-plain.txt") == text);
  write_plain(dir.path() / "empty.txt", "");
  CHECK(dbench::read_loadfile_text(dir.path() / "empty.txt").empty());
}

TEST_CASE("unreadable loadfiles give a clear error", "[dbench]") {
  iobench::test::TempDir dir("dbread");
  const auto missing = dir.path() / "missing.txt";
  CHECK(read_error(missing) == "loadfile '" + missing.string() +
                                   "' cannot be opened: No such file or directory; give an "
                                   "existing dbench loadfile (e.g. /usr/share/dbench/client.txt)");
  // A gzip stream cut in half is reported, not silently truncated.
  std::string big;
  for (int i = 0; i < 20000; ++i)
    big += "ReadX 1 " + std::to_string(i * 7919) + " 4096 4096 NT_STATUS_OK\n";
  write_gzip(dir.path() / "full.gz", big);
  const std::string compressed = iobench::test::read_file(dir.path() / "full.gz");
  write_plain(dir.path() / "cut.gz", std::string_view(compressed).substr(0, compressed.size() / 2));
  const auto msg = read_error(dir.path() / "cut.gz");
  CHECK(msg.find("loadfile '" + (dir.path() / "cut.gz").string() + "' cannot be read: ") == 0);
  CHECK(msg.find("expected a plain or gzip-compressed dbench loadfile") != std::string::npos);
  // Only a regular file is a loadfile: a replay reads it again for every pass. A FIFO is
  // refused at once, not waited on for a writer.
  const auto not_regular = [](const std::filesystem::path& path, const std::string& kind) {
    return "loadfile '" + path.string() + "' is " + kind +
           ", not a regular file: each client reads it again for every pass; save it to a file "
           "first (e.g. zcat client.txt.gz > client.txt, or give the .gz file itself)";
  };
  CHECK(read_error(dir.path()) == "loadfile '" + dir.path().string() +
                                      "' is a directory, not a regular file: each client reads "
                                      "it again for every pass; give a loadfile in it (e.g. " +
                                      (dir.path() / "client.txt").string() + ")");
  CHECK(read_error("/dev/null") == not_regular("/dev/null", "a character device"));
  const auto fifo = dir.path() / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(read_error(fifo) == not_regular(fifo, "a pipe (FIFO)"));
  // A socket cannot even be opened (ENXIO): it is still named for what it is.
  const auto socket_path = dir.path() / "socket";
  const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(sock >= 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  REQUIRE(socket_path.string().size() < sizeof address.sun_path);
  std::strcpy(address.sun_path, socket_path.c_str());
  REQUIRE(::bind(sock, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  CHECK(read_error(socket_path) == not_regular(socket_path, "a socket"));
  ::close(sock);
}

TEST_CASE("a loadfile changed while it is read is refused at its end", "[dbench]") {
  iobench::test::TempDir dir("dbread");
  const auto path = dir.path() / "l.txt";
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "Close " + std::to_string(1000 + i) + " NT_STATUS_OK\n";
  write_plain(path, text);
  // Read whole and unchanged: no complaint.
  CHECK(dbench::read_loadfile_text(path) == text);
  // Rewritten in place (same inode) after its first chunk was read: the size tells at the end,
  // for a validation (parse_loadfile_file) and a replay's pass (LoadfileStream) alike.
  dbench::LoadfileTextReader reader(path, dbench::kDefaultMaxLoadfileBytes);
  std::string got;
  REQUIRE(reader.read(got, 4096));
  CHECK(reader.identity_now() == reader.identity());
  std::ofstream(path, std::ios::binary | std::ios::app) << "Close 1 NT_STATUS_OK\n";
  CHECK(reader.identity_now().inode == reader.identity().inode);
  std::string message;
  try {
    while (reader.read(got, 4096)) {
    }
  } catch (const iobench::ConfigError& e) {
    message = e.what();
  }
  CHECK(message == "loadfile '" + path.string() +
                       "' changed while it was read (its size, times or inode); run again once "
                       "nothing writes to it");
  CHECK(got.size() == text.size() + 21);  // every byte read, including the appended line
}

TEST_CASE("Debian client txt parses with the documented statistics", "[dbench]") {
  if (!std::filesystem::exists(kDebianClientTxt)) {
    WARN("skipped: " << kDebianClientTxt << " is missing (install Debian's dbench package)");
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const std::string text = dbench::read_loadfile_text(kDebianClientTxt);
  const auto t1 = std::chrono::steady_clock::now();
  dbench::ParseOptions options;
  options.file_name = "client.txt";
  const dbench::Loadfile lf = dbench::parse_loadfile(text, options);
  const auto t2 = std::chrono::steady_clock::now();
  const auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count(); };
  WARN("client.txt: read " << ms(t1 - t0) << " ms, parse " << ms(t2 - t1) << " ms, in-memory form "
                           << lf.memory_bytes() << " bytes (" << lf.code.size() << " instructions, "
                           << lf.paths.size() << " paths, " << lf.handles.size() << " handles)");

  CHECK(text.size() == 26'214'401);
  CHECK(lf.format == dbench::LoadfileFormat::kNbench);
  CHECK(lf.stats.text_lines == 458'344);
  CHECK(lf.code.size() == 458'344);
  // One pass of client.txt, by op (dbench.md §1.7).
  const auto& n = lf.stats.op_lines;
  CHECK(n[static_cast<std::size_t>(OpCode::kReadX)] == 124'199);
  CHECK(n[static_cast<std::size_t>(OpCode::kNtCreateX)] == 79'230);
  CHECK(n[static_cast<std::size_t>(OpCode::kQpathinfo)] == 71'814);
  CHECK(n[static_cast<std::size_t>(OpCode::kClose)] == 58'200);
  CHECK(n[static_cast<std::size_t>(OpCode::kWriteX)] == 39'502);
  CHECK(n[static_cast<std::size_t>(OpCode::kFind)] == 27'765);
  CHECK(n[static_cast<std::size_t>(OpCode::kUnlink)] == 16'000);
  CHECK(n[static_cast<std::size_t>(OpCode::kQfsinfo)] == 13'168);
  CHECK(n[static_cast<std::size_t>(OpCode::kQfileinfo)] == 12'585);
  CHECK(n[static_cast<std::size_t>(OpCode::kSfileinfo)] == 6'454);
  CHECK(n[static_cast<std::size_t>(OpCode::kFlush)] == 5'553);
  CHECK(n[static_cast<std::size_t>(OpCode::kRename)] == 3'355);
  CHECK(n[static_cast<std::size_t>(OpCode::kLockX)] == 258);
  CHECK(n[static_cast<std::size_t>(OpCode::kUnlockX)] == 258);
  CHECK(n[static_cast<std::size_t>(OpCode::kDeltree)] == 2);
  CHECK(n[static_cast<std::size_t>(OpCode::kMkdir)] == 1);
  CHECK(n[static_cast<std::size_t>(OpCode::kRmdir)] == 0);
  CHECK_FALSE(lf.stats.has_timestamps);

  std::uint64_t write_bytes = 0;
  std::uint64_t read_bytes = 0;
  std::uint64_t expect_ok = 0;
  std::uint64_t create_ok = 0;
  for (const auto& ins : lf.code) {
    if (ins.op == OpCode::kWriteX) write_bytes += static_cast<std::uint64_t>(ins.value[1]);
    if (ins.op == OpCode::kReadX) read_bytes += static_cast<std::uint64_t>(ins.value[1]);
    expect_ok += ins.expect() == Expect::kOk;
    create_ok += ins.op == OpCode::kNtCreateX && ins.expect() == Expect::kOk;
  }
  CHECK(write_bytes == 1'015'974'170);
  CHECK(read_bytes == 1'472'088'767);
  CHECK(expect_ok == 398'601);
  CHECK(create_ok == 58'200);
  CHECK(lf.stats.max_write_bytes == 65536);
  CHECK(lf.top_level_names == std::vector<std::string>{"clients"});
  // The compact program (issue 11): about 9 bytes a line, well under the text's 26 MB.
  CHECK(lf.memory_bytes() < 6ULL * 1024 * 1024);
  // Peak data per client is about 24 MB; the bound used for the free-space check is above it.
  CHECK(lf.stats.written_bytes > 23'000'000);
}

namespace {

/// A gzip bomb: `members` concatenated gzip members (zlib reads them as one stream), each
/// inflating to 16 MiB of comment lines; a few KiB on disk.
void write_gzip_bomb(const std::filesystem::path& path, int members) {
  const std::string member_path = path.string() + ".member";
  {
    const std::string line = "# " + std::string(61, 'x') + "\n";  // 64 bytes
    std::string chunk;
    for (int i = 0; i < 16384; ++i) chunk += line;  // 1 MiB
    gzFile file = gzopen(member_path.c_str(), "wb9");
    REQUIRE(file != nullptr);
    for (int i = 0; i < 16; ++i) {
      REQUIRE(gzwrite(file, chunk.data(), static_cast<unsigned>(chunk.size())) ==
              static_cast<int>(chunk.size()));
    }
    REQUIRE(gzclose(file) == Z_OK);
  }
  const std::string member = iobench::test::read_file(member_path);
  std::filesystem::remove(member_path);
  std::ofstream out(path, std::ios::binary);
  for (int i = 0; i < members; ++i)
    out.write(member.data(), static_cast<std::streamsize>(member.size()));
}

}  // namespace

TEST_CASE("a loadfile past its size limit is refused while reading, in bounded memory",
          "[dbench]") {
  iobench::test::TempDir dir("dbbomb");
  const auto bomb = dir.path() / "bomb.gz";
  write_gzip_bomb(bomb, 32);  // 512 MiB of text
  CHECK(std::filesystem::file_size(bomb) < 2 << 20);
  // Read in a child, whose peak memory is its own: the growth must stay near the 8 MiB limit.
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    rusage before{};
    ::getrusage(RUSAGE_SELF, &before);
    int code = 3;
    try {
      (void)dbench::read_loadfile_text(bomb, 8 << 20);
    } catch (const iobench::ConfigError& e) {
      const std::string what = e.what();
      code =
          what.find("holds more than 8.00 MiB of text (max_loadfile_size=8m)") != std::string::npos
              ? 0
              : 2;
    }
    rusage after{};
    ::getrusage(RUSAGE_SELF, &after);
    // ru_maxrss is in KiB; allow the limit plus zlib's buffers and some slack (not under
    // ThreadSanitizer, whose shadow memory multiplies every allocation's resident size).
    if (code == 0 && !IOBENCH_TEST_UNDER_TSAN && after.ru_maxrss - before.ru_maxrss > 32 * 1024) {
      code = 1;
    }
    ::_exit(code);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);  // 1: too much memory, 2: wrong message, 3: not refused

  // A plain file one byte past the limit is refused too; one at the limit is read.
  const std::string text(1 << 20, '\n');
  write_plain(dir.path() / "plain.txt", text);
  CHECK(dbench::read_loadfile_text(dir.path() / "plain.txt", 1 << 20).size() == 1 << 20);
  CHECK_THROWS_WITH(
      dbench::read_loadfile_text(dir.path() / "plain.txt", (1 << 20) - 1),
      Catch::Contains("holds more than 1.00 MiB of text (max_loadfile_size=1048575)"));

  // Through the CLI: exit 2, naming the file, the limit and the param that raises it.
  iobench::test::TempDir target("dbbomb-target");
  const auto r = iobench::test::run_cli(
      {"validate", "dbench", "-d", target.path().string(), "loadfile=" + bomb.string()});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("loadfile '" + bomb.string() +
                                    "' holds more than 128 MiB of text (max_loadfile_size=128m)"));
  CHECK_THAT(r.err, Catch::Contains("raise max_loadfile_size (e.g. max_loadfile_size=1024m)"));
  CHECK(target.entries().empty());
}
