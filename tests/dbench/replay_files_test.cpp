// Replays of small crafted loadfiles through the real Runner, checking the exact files and
// directories the clients leave after each loadfile line, and the recorded counts.

#include <sys/stat.h>
#include <sys/xattr.h>

#include <regex>

#include "tests/dbench/dbench_test_support.hpp"

using dbench_test::counter;
using dbench_test::Fixture;
using dbench_test::op;
using dbench_test::tree;

namespace {

constexpr const char* kSteps[] = {
    R"(Deltree "\clients\client1" NT_STATUS_OK)",
    R"(Mkdir "\clients" NT_STATUS_OK)",
    R"(NTCreateX "\clients\client1" 0x1 0x2 100 NT_STATUS_OK)",
    R"(Close 100 NT_STATUS_OK)",
    R"(NTCreateX "\clients\client1\a.doc" 0x40 0x2 101 NT_STATUS_OK)",
    R"(WriteX 101 0 4096 4096 NT_STATUS_OK)",
    R"(WriteX 101 65534 1 1 NT_STATUS_OK)",
    R"(ReadX 101 0 4096 4096 NT_STATUS_OK)",
    R"(Close 101 NT_STATUS_OK)",
    R"(Rename "\clients\client1\a.doc" "\clients\client1\b.doc" NT_STATUS_OK)",
    R"(NTCreateX "\clients\client1\sub" 0x1 0x2 102 NT_STATUS_OK)",
    R"(Close 102 NT_STATUS_OK)",
    R"(NTCreateX "\clients\client1\sub\c.tmp" 0x40 0x5 103 NT_STATUS_OK)",
    R"(WriteX 103 0 10 10 NT_STATUS_OK)",
    R"(Close 103 NT_STATUS_OK)",
    R"(NTCreateX "\clients\client1\sub\c.tmp" 0x40 0x5 104 NT_STATUS_OK)",
    R"(Close 104 NT_STATUS_OK)",
    R"(Unlink "\clients\client1\b.doc" 0x6 NT_STATUS_OK)",
    R"(NTCreateX "\clients\client1\mixfile" 0x40 0x1 105 NT_STATUS_OBJECT_NAME_NOT_FOUND)",
    R"(Deltree "\clients\client1" NT_STATUS_OK)",
    R"(Rmdir "\clients\client1\sub" NT_STATUS_OK)",
};

/// What both clients' directories hold after loadfile line `line` (1-based), per client.
std::vector<std::string> expected_after(std::size_t line) {
  std::vector<std::string> per_client;
  if (line >= 5 && line < 10) {
    const char* size = line < 6 ? "0" : line < 7 ? "4096" : "65535";
    per_client.push_back(std::string("f a.doc ") + size);
  }
  if (line >= 10 && line < 18) per_client.push_back("f b.doc 65535");
  if (line >= 11 && line < 21) per_client.push_back("d sub");
  if (line >= 13 && line < 20) {
    per_client.push_back(std::string("f sub/c.tmp ") + (line >= 14 && line < 16 ? "10" : "0"));
  }
  std::vector<std::string> out;
  if (line >= 2) out.push_back("d clients");
  for (const char* client : {"client0", "client1"}) {
    if (line < 3) continue;
    out.push_back(std::string("d clients/") + client);
    for (const std::string& entry : per_client) {
      out.push_back(entry.substr(0, 2) + "clients/" + client + "/" + entry.substr(2));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("each loadfile line leaves exactly the expected files", "[dbench]") {
  Fixture fx;
  const std::size_t lines = std::size(kSteps);
  for (std::size_t n = 1; n <= lines; ++n) {
    std::string text;
    for (std::size_t i = 0; i < n; ++i) text += std::string(kSteps[i]) + "\n";
    const auto step = fx.run({{"loadfile", fx.loadfile(text)},
                              {"procs", "2"},
                              {"run_once", "true"},
                              {"skip_cleanup", "true"},
                              {"time_limit", "60s"}});
    INFO("after line " << n << ": " << kSteps[n - 1] << "\n" << step.message);
    REQUIRE(step.status == iobench::Status::kOk);
    CHECK(tree(fx.run_dir()) == expected_after(n));
    CHECK(counter(step, "lines") == 2 * n);
    fx.clear_target();
  }
}

TEST_CASE("a full run counts every operation and byte of both clients", "[dbench]") {
  Fixture fx;
  std::string text;
  for (const char* line : kSteps) text += std::string(line) + "\n";
  const auto step = fx.run({{"loadfile", fx.loadfile(text)},
                            {"procs", "2"},
                            {"clients_per_process", "2"},
                            {"run_once", "true"},
                            {"time_limit", "60s"}});
  REQUIRE(step.status == iobench::Status::kOk);
  const std::size_t clients = 4;
  CHECK(op(step, "NTCreateX").ops == 6 * clients);
  CHECK(op(step, "Close").ops == 5 * clients);
  CHECK(op(step, "WriteX").ops == 3 * clients);
  CHECK(op(step, "WriteX").bytes == (4096 + 1 + 10) * clients);
  CHECK(op(step, "ReadX").ops == 1 * clients);
  CHECK(op(step, "ReadX").bytes == 4096 * clients);
  CHECK(op(step, "Rename").ops == clients);
  CHECK(op(step, "Unlink").ops == clients);
  CHECK(op(step, "Deltree").ops == 2 * clients);
  CHECK(op(step, "Rmdir").ops == clients);
  CHECK(op(step, "Mkdir").ops == clients);
  CHECK(counter(step, "lines") == std::size(kSteps) * clients);
  CHECK(counter(step, "mismatch.NTCreateX") == 0);
  CHECK(counter(step, "short_read.ReadX") == 0);
  const auto& phase = step.phases.front();
  CHECK(phase.workers.size() == 2);
  CHECK(phase.op_names.size() == 17);
  // Unpaced: the latency is the service time, no latency parts.
  CHECK_FALSE(phase.latency_parts_kind.any());
  CHECK(phase.latency_parts.empty());
  CHECK(phase.op_names.front() == "NTCreateX");
  // Cleanup removed everything the clients created, directories included.
  CHECK(tree(fx.run_dir()).empty());
}

TEST_CASE("LOOP REPEAT and previous value offsets write where expected", "[dbench]") {
  Fixture fx;
  const auto lf = fx.loadfile(R"(Mkdir "\clients" NT_STATUS_OK
NTCreateX "\clients\client1" 0x1 0x2 1 NT_STATUS_OK
Close 1 NT_STATUS_OK
WRITEPATTERN "xyz"
NTCreateX "\clients\client1\f" 0x40 0x2 2 NT_STATUS_OK
WriteX 2 0 0 0 NT_STATUS_OK
LOOP 3
REPEAT 2
WriteX 2 +1000 1000 1000 NT_STATUS_OK
ENDLOOP
WriteX 2 0 1 1 NT_STATUS_OK
WriteX 2 +child 1 1 NT_STATUS_OK
Close 2 NT_STATUS_OK
)");
  const auto step = fx.run({{"loadfile", lf},
                            {"procs", "3"},
                            {"run_once", "true"},
                            {"skip_cleanup", "true"},
                            {"time_limit", "60s"}});
  REQUIRE(step.status == iobench::Status::kOk);
  CHECK(op(step, "WriteX").ops == 3 * (1 + 6 + 2));
  CHECK(op(step, "WriteX").bytes == 3 * (6000 + 2));
  for (int c = 0; c < 3; ++c) {
    const auto file = fx.run_dir() / "clients" / ("client" + std::to_string(c)) / "f";
    CHECK(std::filesystem::file_size(file) == 7000);
    const std::string content = iobench::test::read_file(file);
    CHECK(content.substr(1000, 7) == "xyzxyzx");
    CHECK(content.substr(2000, 4) == "xyzx");  // every write starts at the pattern's start
    CHECK(content[999] == '\0');               // never written: a hole
    CHECK(content[0] == 'x');                  // "WriteX 2 0 1 1"
    CHECK(content[static_cast<std::size_t>(c)] == 'x');  // "+child": offset 0 + client id
  }
}

TEST_CASE("random modifiers and RANDOMSTRING names stay in their ranges", "[dbench]") {
  Fixture fx;
  const auto lf = fx.loadfile(R"(Mkdir "\clients" NT_STATUS_OK
NTCreateX "\clients\client1" 0x1 0x2 1 NT_STATUS_OK
Close 1 NT_STATUS_OK
RANDOMSTRING 1 "r[ab][cd]"
NTCreateX "\clients\client1\$1.txt" 0x40 0x2 2 NT_STATUS_OK
REPEAT 40
WriteX 2 */4096%65536 4096 4096 NT_STATUS_OK
Close 2 NT_STATUS_OK
NTCreateX "\clients\client1\~$1.DOC" 0x40 0x2 3 NT_STATUS_OK
Close 3 NT_STATUS_OK
)");
  const auto step = fx.run({{"loadfile", lf},
                            {"procs", "2"},
                            {"run_once", "true"},
                            {"skip_cleanup", "true"},
                            {"time_limit", "60s"}});
  REQUIRE(step.status == iobench::Status::kOk);
  const std::regex name("r[ab][cd]\\.txt");
  for (const char* client : {"client0", "client1"}) {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(fx.run_dir() / "clients" / client)) {
      names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    REQUIRE(names.size() == 2);
    CHECK(std::regex_match(names[0], name));
    // "$1" after RANDOMSTRING 1 is a reference, so "~$1.DOC" uses the drawn string too.
    CHECK(names[1].substr(0, 1) == "~");
    CHECK(std::regex_match(names[1].substr(1, 3) + ".txt", name));
    const auto size = std::filesystem::file_size(fx.run_dir() / "clients" / client / names[0]);
    CHECK(size <= 65536);
    CHECK(size % 4096 == 0);
    CHECK(size > 0);
  }
}

TEST_CASE("Deltree removes files and keeps directories", "[dbench]") {
  Fixture fx;
  const auto lf = fx.loadfile(R"(Mkdir "\clients" NT_STATUS_OK
Mkdir "\clients\client1" NT_STATUS_OK
Mkdir "\clients\client1\d1" NT_STATUS_OK
Mkdir "\clients\client1\d1\d2" NT_STATUS_OK
NTCreateX "\clients\client1\x" 0x40 0x2 1 NT_STATUS_OK
NTCreateX "\clients\client1\d1\d2\y" 0x40 0x2 2 NT_STATUS_OK
Close 1 NT_STATUS_OK
Close 2 NT_STATUS_OK
Deltree "\clients\client1" NT_STATUS_OK
)");
  const auto step = fx.run(
      {{"loadfile", lf}, {"run_once", "true"}, {"skip_cleanup", "true"}, {"time_limit", "60s"}});
  REQUIRE(step.status == iobench::Status::kOk);
  CHECK(tree(fx.run_dir()) == std::vector<std::string>{"d clients", "d clients/client0",
                                                       "d clients/client0/d1",
                                                       "d clients/client0/d1/d2"});
  CHECK(counter(step, "deltree_errors") == 0);
}

TEST_CASE("several loadfiles are spread over the processes", "[dbench]") {
  Fixture fx;
  const auto a = fx.loadfile(
      "Mkdir \"\\clients\" 0x0\nMkdir \"\\clients\\client1\" 0x0\n"
      "NTCreateX \"\\clients\\client1\\A\" 0x40 0x2 1 0x0\n",
      "a.txt");
  const auto b = fx.loadfile(
      "Mkdir \"\\clients\" 0x0\nMkdir \"\\clients\\client1\" 0x0\n"
      "NTCreateX \"\\clients\\client1\\B\" 0x40 0x2 1 0x0\n",
      "b.txt");
  const auto step = fx.run({{"loadfile", a + "," + b},
                            {"procs", "3"},
                            {"run_once", "true"},
                            {"skip_cleanup", "true"},
                            {"time_limit", "60s"}});
  REQUIRE(step.status == iobench::Status::kOk);
  CHECK(tree(fx.run_dir()) ==
        std::vector<std::string>{"d clients", "d clients/client0", "d clients/client1",
                                 "d clients/client2", "f clients/client0/A 0",
                                 "f clients/client1/B 0", "f clients/client2/A 0"});
}

TEST_CASE("fake io counts bytes without writing and one byte write fix truncates", "[dbench]") {
  Fixture fx;
  const auto lf = fx.loadfile(R"(Mkdir "\clients" 0x0
Mkdir "\clients\client1" 0x0
NTCreateX "\clients\client1\f" 0x40 0x2 1 0x0
WriteX 1 65534 1 1 0x0
WriteX 1 0 4096 4096 0x0
Close 1 0x0
)");
  auto step = fx.run({{"loadfile", lf},
                      {"fake_io", "true"},
                      {"run_once", "true"},
                      {"skip_cleanup", "true"},
                      {"time_limit", "60s"}});
  REQUIRE(step.status == iobench::Status::kOk);
  CHECK(op(step, "WriteX").bytes == 4097);
  CHECK(tree(fx.run_dir()) ==
        std::vector<std::string>{"d clients", "d clients/client0", "f clients/client0/f 0"});
  fx.clear_target();

  step = fx.run({{"loadfile", lf},
                 {"one_byte_write_fix", "true"},
                 {"run_once", "true"},
                 {"skip_cleanup", "true"},
                 {"time_limit", "60s"}});
  REQUIRE(step.status == iobench::Status::kOk);
  CHECK(op(step, "WriteX").bytes == 4097);
  const auto file = fx.run_dir() / "clients" / "client0" / "f";
  CHECK(std::filesystem::file_size(file) == 65535);
  // The 1-byte zero write became a truncate: only the 4096-byte write allocated data.
  struct stat st {};
  REQUIRE(::stat(file.c_str(), &st) == 0);
  CHECK(st.st_blocks * 512 < 8192);
}

TEST_CASE("xattr keeps DOS attributes on created files", "[dbench]") {
  Fixture fx;
  const auto lf = fx.loadfile(R"(Mkdir "\clients" 0x0
Mkdir "\clients\client1" 0x0
NTCreateX "\clients\client1\f" 0x40 0x2 1 0x0
SET_FILE_INFORMATION 1 1004 0x0
Close 1 0x0
)");
  const auto step = fx.run({{"loadfile", lf},
                            {"xattr", "true"},
                            {"run_once", "true"},
                            {"skip_cleanup", "true"},
                            {"time_limit", "60s"}});
  if (step.status != iobench::Status::kOk) {
    // Only a filesystem without user xattrs may refuse, with a clear message.
    CHECK(step.message.find("does not take user extended attributes") != std::string::npos);
    return;
  }
  const auto file = fx.run_dir() / "clients" / "client0" / "f";
  char value[64];
  const ssize_t size = ::getxattr(file.c_str(), "user.DosAttrib", value, sizeof value);
  CHECK(size == 44);  // dbench's zeroed 44-byte buffer holding a time_t or a struct timeval
}

TEST_CASE("a dbench 2 loadfile replays with its unquoted paths", "[dbench]") {
  Fixture fx;
  const auto lf = fx.loadfile(R"(QUERY_PATH_INFORMATION \clients\client1
NTCreateX \clients 0x1 0x2 12114
Close 12114
NTCreateX \clients\client1 0x1 0x2 12115
Close 12115
NTCreateX \clients\client1\mixfile 0x40 0x1 -1
NTCreateX \clients\client1\filler.000 0x40 0x2 12120
QUERY_FS_INFORMATION 1
WriteX 12120 65534 1 1
QUERY_FILE_INFORMATION 12120
WriteX 12120 0 65471 65471
Close 12120
FIND_FIRST \clients\client1\FILLER"*
Rename \clients\client1\filler.000 \clients\client1\filler.001
)");
  const auto step = fx.run({{"loadfile", lf},
                            {"procs", "2"},
                            {"run_once", "true"},
                            {"skip_cleanup", "true"},
                            {"time_limit", "60s"}});
  INFO(step.message);
  REQUIRE(step.status == iobench::Status::kOk);
  CHECK(dbench_test::counter(step, "mismatch.NTCreateX") == 0);  // -1: expected to fail
  CHECK(op(step, "Find").ops == 2);
  CHECK(tree(fx.run_dir()) == std::vector<std::string>{"d clients", "d clients/client0",
                                                       "d clients/client1",
                                                       "f clients/client0/filler.001 65535",
                                                       "f clients/client1/filler.001 65535"});
}
