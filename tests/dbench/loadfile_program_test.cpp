#include "plugins/dbench/loadfile_program.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iobench/error.hpp>
#include <limits>
#include <string>
#include <vector>

#include "plugins/dbench/loadfile_parser.hpp"
#include "plugins/dbench/loadfile_reader.hpp"
#include "tests/support/test_support.hpp"

namespace dbench = iobench::plugins::dbench;
using dbench::Instruction;
using dbench::OpCode;
using dbench::Program;

namespace {

/// Instructions covering the encoding's corners: extreme and negative values, ids absent and
/// large, timestamps, line jumps, expression flags, ReadX sizes that differ.
std::vector<Instruction> samples() {
  std::vector<Instruction> out;
  std::uint32_t line = 0;
  const auto add = [&](OpCode op, std::array<std::int64_t, 3> v, std::uint32_t a, std::uint32_t b,
                       std::uint32_t step, std::int64_t ts, std::uint8_t flags) {
    Instruction ins;
    ins.op = op;
    ins.value = v;
    ins.a = a;
    ins.b = b;
    line += step;
    ins.line = line;
    ins.timestamp_ns = ts;
    ins.flags = flags;
    ins.status = static_cast<std::uint16_t>(out.size() % 300);
    out.push_back(ins);
  };
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  for (std::uint32_t i = 0; i < 100; ++i) {
    add(OpCode::kReadX, {4096 * i, 65536, 65536}, i, dbench::kNoId, 1, -1, 0);
    add(OpCode::kWriteX, {kMax, 1, 0}, 7, dbench::kNoId, 2, 4'742'382'000, 0x10);
    add(OpCode::kReadX, {0, 3, 1}, 0xfffffffeU, dbench::kNoId, 1, -1, 0x04);  // size 2 an expr
    add(OpCode::kNtCreateX, {0x40, 2, 0}, 300000, 12, 1000, 0, 0x20);
    add(OpCode::kLockX, {kMin, -1, 0}, 3, dbench::kNoId, 1, kMax, 0x03);
    add(OpCode::kClose, {0, 0, 0}, dbench::kNoId, dbench::kNoId, 1, -1, 0);
    add(OpCode::kFind, {260, 1366, kMax}, 5, dbench::kNoId, 1, -1, 0x30);
  }
  return out;
}

}  // namespace

TEST_CASE("Program decodes exactly what was pushed, in order and at random", "[dbench]") {
  const std::vector<Instruction> in = samples();
  Program p;
  for (const Instruction& ins : in) p.push_back(ins);
  REQUIRE(p.size() == in.size());
  std::size_t i = 0;
  for (const Instruction& ins : p) CHECK(ins == in[i++]);
  CHECK(i == in.size());
  for (std::size_t k = in.size(); k-- > 0;) CHECK(p[k] == in[k]);  // backwards: seeks
  Program::Cursor cursor(p);
  for (const std::size_t k : {std::size_t{5}, std::size_t{4}, std::size_t{640}, std::size_t{31},
                              std::size_t{32}, std::size_t{33}, in.size() - 1}) {
    CHECK(cursor.at(k) == in[k]);
  }
  CHECK(p.back() == in.back());
  // The compact form: under half the 48 bytes of an Instruction, even with these extreme values.
  CHECK(p.memory_bytes() < in.size() * sizeof(Instruction) / 2);
}

TEST_CASE("Program drops its last instruction and patches loop targets", "[dbench]") {
  const std::vector<Instruction> in = samples();
  for (const std::size_t n : {std::size_t{1}, std::size_t{32}, std::size_t{33}, std::size_t{64}}) {
    Program p;
    for (std::size_t k = 0; k < n; ++k) p.push_back(in[k]);
    p.pop_back();  // the first instruction after a checkpoint too (n = 33)
    REQUIRE(p.size() == n - 1);
    Instruction next = in[n];
    next.line = (n == 1 ? 0 : in[n - 2].line) + 1;
    p.push_back(next);
    REQUIRE(p.size() == n);
    for (std::size_t k = 0; k + 1 < n; ++k) CHECK(p[k] == in[k]);
    CHECK(p[n - 1] == next);
  }
  Program p;
  Instruction loop;
  loop.op = OpCode::kLoopBegin;
  loop.value[0] = 3;
  for (std::uint32_t k = 1; k <= 40; ++k) {
    loop.line = k;
    p.push_back(loop);
  }
  p.set_loop_end(35, 0xdeadbeefU);
  p.set_loop_end(0, 7);
  CHECK(p[35].a == 0xdeadbeefU);
  CHECK(p[0].a == 7);
  CHECK(p[34].a == dbench::kNoId);
  CHECK(p[35].line == 36);
  CHECK(p[35].value[0] == 3);
}

TEST_CASE("A loadfile parsed from its file equals the one parsed from its text", "[dbench]") {
  // Lines longer than the reader's chunks, a last line without '\n', comments and CRLF.
  iobench::test::TempDir dir("dbprog");
  const std::filesystem::path path = dir.path() / "lf.txt";
  std::string text = "# comment\r\n";
  for (int i = 0; i < 4000; ++i) {
    text += "NTCreateX \"\\clients\\client1\\f" + std::to_string(i % 50) +
            std::string(i % 7 == 0 ? 900 : 1, 'x') + "\" 0x40 2 " + std::to_string(100 + i) +
            " NT_STATUS_OK\r\n";
    text += "ReadX " + std::to_string(100 + i) + " 0 4096 4096 NT_STATUS_OK\n";
    text += "Close " + std::to_string(100 + i) + " NT_STATUS_OK\n";
  }
  text += "QUERY_FS_INFORMATION 259 NT_STATUS_OK";
  std::ofstream(path, std::ios::binary) << text;
  dbench::ParseOptions options;
  options.file_name = "lf.txt";
  const dbench::Loadfile a = dbench::parse_loadfile(text, options);
  const dbench::Loadfile b =
      dbench::parse_loadfile_file(path, dbench::kDefaultMaxLoadfileBytes, options);
  REQUIRE(a.code.size() == 12001);
  REQUIRE(b.code.size() == a.code.size());
  for (std::size_t k = 0; k < a.code.size(); ++k) CHECK(a.code[k] == b.code[k]);
  CHECK(b.stats.text_lines == 12002);
  CHECK(b.paths.size() == a.paths.size());
  CHECK(b.code[12000].op == OpCode::kQfsinfo);
  CHECK(b.code[12000].value[0] == 259);
  // Errors name the same lines either way.
  std::ofstream(path, std::ios::binary) << text << "\nClose x NT_STATUS_OK\n";
  const auto message = [&] {
    try {
      (void)dbench::parse_loadfile_file(path, dbench::kDefaultMaxLoadfileBytes, options);
    } catch (const iobench::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  }();
  CHECK(message.find("lf.txt:12003:7: bad handle for Close 'x'") != std::string::npos);
}
