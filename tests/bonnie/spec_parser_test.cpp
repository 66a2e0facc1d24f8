#include "plugins/bonnie/spec_parser.hpp"

#include <catch2/catch.hpp>
#include <iobench/error.hpp>
#include <string>

using iobench::ConfigError;
using namespace iobench::plugins::bonnie;

TEST_CASE("bonnie size spec takes size chunk seeks and seekers", "[bonnie][parser]") {
  CHECK(parse_io_spec("512", "size") == IoSpec{.size_mib = 512});
  CHECK(parse_io_spec("512m", "size").size_mib == 512);
  CHECK(parse_io_spec("2g", "size").size_mib == 2048);
  CHECK(parse_io_spec("2G", "size").size_mib == 2048);
  CHECK(parse_io_spec("1t", "size").size_mib == 1024 * 1024);
  CHECK(parse_io_spec("0", "size") == IoSpec{.size_mib = 0});
  CHECK(parse_io_spec("16:4k", "size") == IoSpec{.size_mib = 16, .chunk_bytes = 4096});
  CHECK(parse_io_spec("16:256", "size").chunk_bytes == 256);
  CHECK(parse_io_spec("2048:1m", "size").chunk_bytes == 1048576);
  CHECK(parse_io_spec("2048:1048576", "size").chunk_bytes == 1048576);
  CHECK(parse_io_spec("16:8k:400", "size") ==
        IoSpec{.size_mib = 16, .chunk_bytes = 8192, .seeks = 400, .seekers = 5});
  CHECK(parse_io_spec("16:8k:2k:3", "size") ==
        IoSpec{.size_mib = 16, .chunk_bytes = 8192, .seeks = 2048, .seekers = 3});
  CHECK(parse_io_spec("16:8k:0:0", "size").seekers == 0);
}

TEST_CASE("bonnie size spec rejects every bad form", "[bonnie][parser]") {
  for (const char* bad : {
           "",                      // empty
           "abc",                   // not a number
           "16x",                   // unknown suffix (bonnie++ ignores it)
           "16K",                   // bonnie++ reads 16K as 16 MiB; a KiB size is not a size here
           "1.5g",                  // fraction
           "-16",                   // sign
           " 16",                   // whitespace
           "16:",                   // empty chunk
           "16::10",                // empty chunk (bonnie++'s tokenizer would make 10 the chunk)
           "16:100",                // chunk not a power of two
           "16:128",                // chunk below 256
           "16:2m",                 // chunk above 1 MiB
           "16:4q",                 // bad chunk suffix
           "16:4k:-1",              // negative seeks
           "16:4k:1x",              // bad seeks suffix
           "16:4k:10:2x",           // seekers with junk
           "16:4k:10:2k",           // seekers take no suffix
           "16:4k:10:1025",         // too many seekers
           "16:4k:10:5:1",          // five fields
           "0:4k",                  // size 0 with more fields
           "99999999999999999999",  // overflow
           "1:1m:1:1:",             // trailing colon
       }) {
    INFO("size=" << bad);
    CHECK_THROWS_AS(parse_io_spec(bad, "size"), ConfigError);
  }
}

TEST_CASE("bonnie size spec errors name the field the value and the fix", "[bonnie][parser]") {
  try {
    (void)parse_io_spec("16:100", "size");
    FAIL("no error");
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    CHECK(message.find("bonnie: size='16:100': ") == 0);
    CHECK(message.find("power of two") != std::string::npos);
    CHECK(message.find("8k") != std::string::npos);
  }
  try {
    (void)parse_io_spec("16::10", "size");
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("field 2") != std::string::npos);
  }
}

TEST_CASE("bonnie files spec takes num max min dirs and chunk", "[bonnie][parser]") {
  CHECK(parse_file_spec("16", "files") == FileSpec{});
  CHECK(parse_file_spec("16", "files").count() == 16384);
  CHECK(parse_file_spec("0", "files").num_k == 0);
  CHECK(parse_file_spec("2m", "files").num_k == 2048);
  const FileSpec full = parse_file_spec("1:4k:1k:3:1m", "files");
  CHECK(full.num_k == 1);
  CHECK(full.kind == FileKind::kRegular);
  CHECK(full.max_bytes == 4096);
  CHECK(full.min_bytes == 1024);
  CHECK(full.dirs == 3);
  CHECK(full.chunk_bytes == 1048576);
  CHECK(parse_file_spec("1:4k", "files").min_bytes == 0);
  CHECK(parse_file_spec("1:-1", "files").kind == FileKind::kHardLink);
  CHECK(parse_file_spec("1:link", "files").kind == FileKind::kHardLink);
  CHECK(parse_file_spec("1:-2", "files").kind == FileKind::kSymlink);
  CHECK(parse_file_spec("1:symlink:0", "files").kind == FileKind::kSymlink);
  CHECK(parse_file_spec("1:-2:0:2", "files").dirs == 2);
  CHECK(parse_file_spec("1:-2", "files").max_bytes == 0);
  CHECK(parse_file_spec("1:0:0:1k", "files").dirs == 1024);
  CHECK(parse_file_spec("1:0:0:99999", "files").dirs == 99999);
  CHECK(parse_file_spec("28339", "files").num_k == 28339);
  CHECK(parse_file_spec("1:1g:1g", "files").max_bytes == 1024ULL * 1024 * 1024);
}

TEST_CASE("bonnie files spec rejects every bad form", "[bonnie][parser]") {
  for (const char* bad : {
           "",                // empty
           "x",               // not a number
           "1x",              // junk suffix (bonnie++ accepts it)
           "16k",             // num is already in 1024s; no k
           "28340",           // more files than bonnie++ can name
           "28m",             // 28672 x 1024 files
           "1:",              // empty max
           "1::2",            // empty max (bonnie++ would read 2 as max)
           "1:-3",            // unknown negative max
           "1:4q",            // bad max suffix
           "1:4k:8k",         // min > max
           "1:0:1",           // min > max (0)
           "1:-1:5",          // min with links
           "1:-2:1",          // min with symlinks
           "1:4k:1k:0",       // zero dirs
           "1:4k:1k:100000",  // too many dirs
           "1:4k:1k:98k",     // 100352 dirs
           "1:4k:1k:3:0",     // zero chunk
           "1:4k:1k:3:65m",   // chunk too large
           "1:4k:1k:3:4k:1",  // six fields
           "0:4k",            // num 0 with more fields
           "1:4k:1k:3:",      // trailing colon
       }) {
    INFO("files=" << bad);
    CHECK_THROWS_AS(parse_file_spec(bad, "files"), ConfigError);
  }
}
