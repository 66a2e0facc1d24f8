#include "plugins/dbench/loadfile_reader.hpp"

#include <zlib.h>

#include <catch2/catch.hpp>
#include <chrono>
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
  // A directory is not a loadfile.
  CHECK_FALSE(read_error(dir.path()).empty());
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
  // The bound on the in-memory form.
  CHECK(lf.memory_bytes() < 64ULL * 1024 * 1024);
  // Peak data per client is about 24 MB; the bound used for the free-space check is above it.
  CHECK(lf.stats.written_extent_bytes > 23'000'000);
}
