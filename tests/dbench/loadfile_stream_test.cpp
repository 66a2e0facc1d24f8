// A loadfile replayed as it is read (LoadfileStream) gives the instructions and tables a whole
// parse gives, in every pass, while holding only a window of them; Program::drop_before keeps
// indexes, and the validation keeps no program.
#include "plugins/dbench/loadfile_stream.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iobench/error.hpp>
#include <string>
#include <vector>

#include "plugins/dbench/fileio_client.hpp"
#include "plugins/dbench/loadfile_parser.hpp"
#include "tests/support/test_support.hpp"

namespace dbench = iobench::plugins::dbench;
using dbench::Instruction;
using dbench::OpCode;

namespace {

/// `blocks` repetitions of a block using every construct the window must survive: nested LOOPs
/// (one of zero count, jumped over), REPEAT, RANDOMSTRING templates, expressions, comments.
std::string busy_loadfile(int blocks) {
  std::string text = "# a loadfile for the stream\nRANDOMSTRING 1 \"[ab][cd]\"\n";
  for (int i = 0; i < blocks; ++i) {
    const std::string dir = "\\clients\\client1\\d" + std::to_string(i % 50);
    text += "Mkdir \"" + dir + "\" *\n";
    text += "NTCreateX \"" + dir + "\\f$1\" 0x40 0x2 " + std::to_string(1000 + i) + " *\n";
    text += "LOOP 3\n";
    text += "WriteX " + std::to_string(1000 + i) + " */4096%65536 4096 4096 NT_STATUS_OK\n";
    text += "LOOP 0\nReadX " + std::to_string(1000 + i) + " 0 10 10 NT_STATUS_OK\nENDLOOP\n";
    text += "ENDLOOP\n";
    text += "REPEAT 2\n";
    text += "ReadX " + std::to_string(1000 + i) + " +4096 4096 4096 NT_STATUS_OK\n";
    text += "# comment " + std::to_string(i) + "\n";
    text += "Close " + std::to_string(1000 + i) + " NT_STATUS_OK\n";
  }
  return text;
}

/// The instructions a replay walks, as ReplayWorker walks them: LOOPs taken their count of
/// times (a zero count jumps past its ENDLOOP), everything else in order.
template <typename At>
std::vector<Instruction> walk(At&& at, std::size_t limit) {
  std::vector<Instruction> out;
  struct Frame {
    std::size_t begin;
    std::int64_t left;
  };
  std::vector<Frame> loops;
  std::size_t ip = 0;
  while (out.size() < limit) {
    const Instruction* ins = at(ip, loops.empty() ? ip : loops.front().begin);
    if (ins == nullptr) break;
    out.push_back(*ins);
    if (ins->op == OpCode::kLoopBegin) {
      if (ins->value[0] <= 0) {
        ip = ins->a + 1;
      } else {
        loops.push_back({ip, ins->value[0]});
        ++ip;
      }
    } else if (ins->op == OpCode::kLoopEnd) {
      if (--loops.back().left > 0) {
        ip = loops.back().begin + 1;
      } else {
        loops.pop_back();
        ++ip;
      }
    } else {
      ++ip;
    }
  }
  return out;
}

std::string write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

/// One pass of a loadfile without LOOPs, read in order as a replay reads it (each instruction
/// released before the next); `largest_window` gets the most bytes the stream held meanwhile.
std::vector<Instruction> read_pass(dbench::LoadfileStream& stream,
                                   std::size_t* largest_window = nullptr) {
  std::vector<Instruction> out;
  for (std::size_t i = 0;; ++i) {
    stream.release_before(i);
    const Instruction* ins = stream.at(i);
    if (largest_window != nullptr) {
      *largest_window = std::max(*largest_window, stream.window_bytes());
    }
    if (ins == nullptr) return out;
    out.push_back(*ins);
  }
}

/// `replayed` is `whole`'s program, instruction for instruction.
void check_same_program(const std::vector<Instruction>& replayed, const dbench::Loadfile& whole) {
  REQUIRE(replayed.size() == whole.code.size());
  for (std::size_t k = 0; k < replayed.size(); ++k) {
    INFO(k);
    REQUIRE(replayed[k] == whole.code[k]);
  }
}

}  // namespace

TEST_CASE("a dropped program keeps its indexes, its loops and its last instruction", "[dbench]") {
  const dbench::Loadfile whole = dbench::parse_loadfile(busy_loadfile(400), {});
  dbench::Program window;
  for (const Instruction& ins : whole.code) window.push_back(ins);
  const std::size_t total = window.size();
  const std::size_t full_bytes = window.memory_bytes();
  window.drop_before(total / 2);
  CHECK(window.size() == total);
  CHECK(window.first() <= total / 2);
  CHECK(window.first() > total / 2 - dbench::Program::kCheckpointEvery);
  CHECK(window.memory_bytes() < full_bytes * 6 / 10);
  dbench::Program::Cursor cursor(window);
  for (std::size_t i = window.first(); i < total; ++i) {
    INFO(i);
    REQUIRE(cursor.at(i) == whole.code[i]);
  }
  // Everything asked for: the last instruction stays (a REPEAT may still be dropped by it).
  window.drop_before(total);
  CHECK(window.first() < total);
  CHECK(window.back() == whole.code[total - 1]);
  window.pop_back();
  CHECK(window.size() == total - 1);
}

TEST_CASE("a streamed loadfile replays what the whole parse holds, pass after pass, in a window",
          "[dbench]") {
  iobench::test::TempDir dir("stream");
  const std::string text = busy_loadfile(3000);  // about 40,000 lines, 1.5 MB
  const std::string path = write_file(dir.path() / "busy.txt", text);
  dbench::ParseOptions options;
  options.file_name = path;
  const dbench::Loadfile whole = dbench::parse_loadfile(text, options);
  const dbench::Loadfile validated =
      dbench::parse_loadfile_file(path, dbench::kDefaultMaxLoadfileBytes, options, false);
  // The validation kept no program, only its last instructions, and the same tables.
  CHECK(validated.code.size() == whole.code.size());
  CHECK(validated.code.first() + dbench::Program::kCheckpointEvery >= validated.code.size());
  CHECK(validated.paths.size() == whole.paths.size());
  CHECK(validated.stats.written_bytes == whole.stats.written_bytes);
  CHECK(validated.stats.op_lines == whole.stats.op_lines);

  const auto expected = walk(
      [&](std::size_t i, std::size_t) -> const Instruction* {
        static Instruction held;
        if (i >= whole.code.size()) return nullptr;
        held = whole.code[i];
        return &held;
      },
      10'000'000);
  REQUIRE(expected.size() > whole.code.size());  // LOOPs ran their bodies again

  dbench::LoadfileStream stream(path, dbench::kDefaultMaxLoadfileBytes, options, validated);
  std::size_t largest_window = 0;
  for (int pass = 0; pass < 2; ++pass) {
    INFO("pass " << pass);
    const auto replayed = walk(
        [&](std::size_t i, std::size_t keep_from) {
          stream.release_before(keep_from);
          const Instruction* ins = stream.at(i);
          largest_window = std::max(largest_window, stream.window_bytes());
          return ins;
        },
        10'000'000);
    REQUIRE(replayed.size() == expected.size());
    for (std::size_t k = 0; k < expected.size(); ++k) {
      INFO(k);
      REQUIRE(replayed[k] == expected[k]);
    }
    // The tables are the whole parse's, id for id.
    REQUIRE(stream.tables().paths.size() == whole.paths.size());
    for (std::size_t p = 0; p < whole.paths.size(); ++p) {
      CHECK(stream.tables().paths[p].text == whole.paths[p].text);
      CHECK(stream.tables().paths[p].is_template == whole.paths[p].is_template);
    }
    CHECK(stream.tables().handles == whole.handles);
    CHECK(stream.tables().strings == whole.strings);
    stream.rewind();
  }
  // A window: a chunk's instructions and a few blocks, not the program.
  INFO("whole program " << whole.code.memory_bytes() << " bytes, largest window "
                        << largest_window);
  CHECK(largest_window < whole.code.memory_bytes() / 10);
}

TEST_CASE("a loadfile changed after its validation is refused by the replay", "[dbench]") {
  iobench::test::TempDir dir("stream-changed");
  const std::string text = busy_loadfile(2);
  const std::string path = write_file(dir.path() / "l.txt", text);
  dbench::ParseOptions options;
  options.file_name = path;
  const dbench::Loadfile validated =
      dbench::parse_loadfile_file(path, dbench::kDefaultMaxLoadfileBytes, options, false);
  write_file(dir.path() / "l.txt", text + "Close 1000 NT_STATUS_OK\n");
  CHECK_THROWS_AS(
      dbench::LoadfileStream(path, dbench::kDefaultMaxLoadfileBytes, options, validated),
      dbench::ReplayError);
  CHECK_THROWS_WITH(
      dbench::LoadfileStream(path, dbench::kDefaultMaxLoadfileBytes, options, validated),
      Catch::Contains("changed after the run validated it"));
}

TEST_CASE("a REPEAT before a skipped unknown line is not replayed, wherever a chunk ends",
          "[dbench]") {
  // unknown_ops=warn drops a REPEAT whose line is skipped; the stream must not hand the REPEAT
  // out before its line is read, even when that line is in the next chunk or the file ends.
  iobench::test::TempDir dir("stream-repeat");
  dbench::ParseOptions options;
  options.unknown_ops = dbench::UnknownOpPolicy::kWarn;
  const std::string repeat = "REPEAT 3\nFutureOp \"\\clients\\client1\\x\" NT_STATUS_OK\n";
  for (const bool at_end : {false, true}) {
    // The REPEAT's line starts from 40 bytes before a chunk's end to 20 after it.
    for (std::size_t shift = 0; shift < 60; ++shift) {
      std::string text;
      for (int i = 0; text.size() + 40 < dbench::LoadfileStream::kChunkBytes - 40; ++i) {
        text += "Close " + std::to_string(1000 + i) + " NT_STATUS_OK\n";
      }
      while (text.size() + 9 < dbench::LoadfileStream::kChunkBytes - 40 + shift) text += "#\n";
      text += repeat;
      if (!at_end)
        text += "Close 1 NT_STATUS_OK\nUnlink \"\\clients\\client1\\y\" 0x10 NT_STATUS_OK\n";
      INFO("REPEAT ends at byte " << text.find("FutureOp") << (at_end ? ", at the end" : ""));
      const std::string path = write_file(dir.path() / "l.txt", text);
      options.file_name = path;
      const dbench::Loadfile whole = dbench::parse_loadfile(text, options);
      REQUIRE(whole.stats.unknown_lines == 1);
      const dbench::Loadfile validated =
          dbench::parse_loadfile_file(path, dbench::kDefaultMaxLoadfileBytes, options, false);
      dbench::LoadfileStream stream(path, dbench::kDefaultMaxLoadfileBytes, options, validated);
      const auto replayed = read_pass(stream);
      check_same_program(replayed, whole);
      for (const Instruction& ins : replayed) REQUIRE(ins.op != OpCode::kRepeat);
    }
  }
}

TEST_CASE("the window stays small when every chunk ends with a REPEAT awaiting its line",
          "[dbench]") {
  // Each chunk is read alone, after forgetting what was released, even when the REPEAT that
  // ends it makes the replay wait for the next chunk's first line.
  iobench::test::TempDir dir("stream-repeat-window");
  constexpr std::size_t kChunk = dbench::LoadfileStream::kChunkBytes;
  const std::string op = "ReadX 1000 0 4096 4096 NT_STATUS_OK\n";
  std::string text = "NTCreateX \"\\clients\\client1\\f\" 0x40 0x2 1000 NT_STATUS_OK\n";
  for (std::size_t chunk = 1; chunk <= 300; ++chunk) {
    const std::size_t repeat_at = chunk * kChunk - 5 - 9;  // "REPEAT 1\n" ends 5 bytes short
    while (text.size() + op.size() <= repeat_at) text += op;
    if (text.size() < repeat_at) text += std::string(repeat_at - text.size() - 1, '#') + "\n";
    text += "REPEAT 1\n" + op;
  }
  text += "Close 1000 NT_STATUS_OK\n";
  const std::string path = write_file(dir.path() / "l.txt", text);
  dbench::ParseOptions options;
  options.file_name = path;
  const dbench::Loadfile whole = dbench::parse_loadfile(text, options);
  const dbench::Loadfile validated =
      dbench::parse_loadfile_file(path, dbench::kDefaultMaxLoadfileBytes, options, false);
  dbench::LoadfileStream stream(path, dbench::kDefaultMaxLoadfileBytes, options, validated);
  std::size_t largest_window = 0;
  check_same_program(read_pass(stream, &largest_window), whole);
  INFO("whole program " << whole.code.memory_bytes() << " bytes, largest window "
                        << largest_window);
  CHECK(largest_window < whole.code.memory_bytes() / 10);
}

TEST_CASE("a loadfile rewritten in place during a pass is refused at the pass's end", "[dbench]") {
  iobench::test::TempDir dir("stream-rewritten");
  const std::string text = busy_loadfile(3000);  // many chunks
  const std::string path = write_file(dir.path() / "l.txt", text);
  dbench::ParseOptions options;
  options.file_name = path;
  const dbench::Loadfile validated =
      dbench::parse_loadfile_file(path, dbench::kDefaultMaxLoadfileBytes, options, false);
  dbench::LoadfileStream stream(path, dbench::kDefaultMaxLoadfileBytes, options, validated);
  REQUIRE(stream.at(0) != nullptr);
  std::ofstream(path, std::ios::binary | std::ios::app) << "# appended while the replay reads\n";
  std::string message;
  try {
    for (std::size_t i = 0; stream.at(i) != nullptr; ++i) stream.release_before(i);
  } catch (const iobench::ConfigError& e) {
    message = e.what();
  }
  CHECK(message == "loadfile '" + path +
                       "' changed while it was read (its size, times or inode); run again once "
                       "nothing writes to it");
}

TEST_CASE("a streamed loadfile takes its paths and handles from the validation and builds none",
          "[dbench]") {
  // 20,000 handle numbers and 2,000 paths: the validation's tables take hundreds of KiB, which
  // each client process built again before (a Loadfile of its own, filled as it read).
  iobench::test::TempDir dir("stream-tables");
  std::string text;
  for (int i = 0; i < 20000; ++i) {
    const std::string handle = std::to_string(100000 + i);
    text += "NTCreateX \"\\clients\\client1\\dir\\file" + std::to_string(i % 2000) +
            ".txt\" 0x40 0x2 " + handle + " NT_STATUS_OK\nClose " + handle + " NT_STATUS_OK\n";
  }
  const std::string path = write_file(dir.path() / "many.txt", text);
  dbench::ParseOptions options;
  options.file_name = path;
  const dbench::Loadfile whole = dbench::parse_loadfile(text, options);
  const dbench::Loadfile validated =
      dbench::parse_loadfile_file(path, dbench::kDefaultMaxLoadfileBytes, options, false);
  REQUIRE(validated.handles.size() == 20000);
  REQUIRE(validated.paths.size() == 2000);
  dbench::LoadfileStream stream(path, dbench::kDefaultMaxLoadfileBytes, options, validated);
  CHECK(&stream.tables() == &validated);
  std::size_t largest = 0;
  std::vector<Instruction> replayed;
  for (std::size_t i = 0;; ++i) {
    stream.release_before(i);
    const Instruction* ins = stream.at(i);
    largest = std::max(largest, stream.memory_bytes());
    if (ins == nullptr) break;
    replayed.push_back(*ins);
  }
  check_same_program(replayed, whole);  // the validation's ids, instruction for instruction
  const std::size_t tables = validated.memory_bytes() - validated.code.memory_bytes();
  INFO("validated tables " << tables << " bytes, the stream's own Loadfile at most " << largest);
  CHECK(tables > 300'000);
  CHECK(largest < tables / 10);
}

TEST_CASE("a replay meeting a path or handle the validation does not have is refused", "[dbench]") {
  iobench::test::TempDir dir("stream-unknown-id");
  const std::string text =
      "NTCreateX \"\\clients\\client1\\a\" 0x40 0x2 7 NT_STATUS_OK\nClose 7 NT_STATUS_OK\n";
  const std::string path = write_file(dir.path() / "l.txt", text);
  dbench::ParseOptions options;
  options.file_name = path;
  const dbench::Loadfile file =
      dbench::parse_loadfile_file(path, dbench::kDefaultMaxLoadfileBytes, options, false);
  // Tables of other text, claiming to be this file's validation (as if the file had changed
  // between the validation and the replay while keeping its size and times).
  for (const std::string& other :
       {std::string("NTCreateX \"\\clients\\client1\\b\" 0x40 0x2 7 NT_STATUS_OK\n"),
        std::string("NTCreateX \"\\clients\\client1\\a\" 0x40 0x2 8 NT_STATUS_OK\n")}) {
    INFO(other);
    dbench::Loadfile validated = dbench::parse_loadfile(other, options);
    validated.source = file.source;
    dbench::LoadfileStream stream(path, dbench::kDefaultMaxLoadfileBytes, options, validated);
    CHECK_THROWS_WITH(stream.at(0), Catch::Contains("no longer reads as it did") &&
                                        Catch::Contains("not in the loadfile as validated"));
  }
}
