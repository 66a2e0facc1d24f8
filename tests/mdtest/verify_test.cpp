// mdtest -X (verify_read): created files hold their writer's IOR data pattern, the read phase
// checks every byte it reads, a file that differs counts in "mismatches" and fails the phase.

#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iobench/result.hpp>
#include <iterator>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "plugins/common/ior_data_pattern.hpp"
#include "plugins/common/rank0_dirs.hpp"
#include "plugins/mdtest/ranks.hpp"
#include "plugins/mdtest/summary.hpp"
#include "tests/mdtest/mdtest_run.hpp"

using namespace iobench;
using iobench::test::TempDir;
using iobench::test::mdtest::phase_ops;
using iobench::test::mdtest::run_mdtest;

namespace {

const PhaseResult& read_phase(const StepResult& step, const std::string& name) {
  for (const PhaseResult& p : step.phases) {
    if (p.name == name) return p;
  }
  throw std::runtime_error("no phase " + name);
}

/// The phase's counter `name`, or -1 when it has none.
long long named_counter(const PhaseResult& p, const std::string& name) {
  for (std::size_t i = 0; i < p.counter_names.size() && i < p.counters.size(); ++i) {
    if (p.counter_names[i] == name) return static_cast<long long>(p.counters[i]);
  }
  return -1;
}

std::vector<std::byte> verify_file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  for (std::size_t i = 0; i < chars.size(); ++i) bytes[i] = static_cast<std::byte>(chars[i]);
  return bytes;
}

void verify_flip_byte(const std::filesystem::path& path, std::streamoff offset) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  f.seekg(offset);
  char c = 0;
  f.get(c);
  f.seekp(offset);
  f.put(static_cast<char>(c ^ 0x01));
  REQUIRE(f.good());
}

// A kept create-only run: 2 ranks x 4 files of 100 bytes in the shared tree.
const std::map<std::string, std::string> kVerifyCreate = {
    {"ranks", "2"},         {"worker_mode", "threads"}, {"items", "4"},
    {"files_only", "true"}, {"write_bytes", "100"},     {"phases", "create"}};

}  // namespace

TEST_CASE("mdtest created files hold their writer's IOR pattern", "[mdtest][verify]") {
  TempDir dir("mdtest_pattern_written");
  const auto created = run_mdtest(dir.path(), kVerifyCreate, true);
  REQUIRE(created.step.status == Status::kOk);
  const AttributeValue* seed = created.step.attribute("data_seed");
  REQUIRE(seed != nullptr);
  const auto data_seed = static_cast<std::uint32_t>(std::get<std::int64_t>(*seed));
  const std::filesystem::path tree =
      dir.path() / "target" / created.left_behind.at(0) / "test-dir.0-0" / "mdtest_tree.0";
  for (const std::uint32_t rank : {0U, 1U}) {
    std::vector<std::byte> want(100);
    plugins::fill_pattern(want, plugins::IorPattern{.rank = rank, .seed = data_seed});
    CHECK(verify_file_bytes(tree / ("file.mdtest." + std::to_string(rank) + ".3")) == want);
  }
}

TEST_CASE("mdtest verify_read counts one changed byte as one mismatch and fails the read",
          "[mdtest][verify]") {
  TempDir dir("mdtest_verify_damage");
  const auto created = run_mdtest(dir.path(), kVerifyCreate, true);
  REQUIRE(created.step.status == Status::kOk);
  const std::filesystem::path run = dir.path() / "target" / created.left_behind.at(0);
  const std::filesystem::path bad = run / "test-dir.0-0" / "mdtest_tree.0" / "file.mdtest.1.2";
  verify_flip_byte(bad, 37);

  std::map<std::string, std::string> read = {{"ranks", "2"},         {"worker_mode", "threads"},
                                             {"items", "4"},         {"files_only", "true"},
                                             {"write_bytes", "100"}, {"read_bytes", "100"},
                                             {"phases", "read"},     {"tree_dir", run.string()}};
  SECTION("without verify_read nothing is checked") {
    TempDir again("mdtest_verify_off");
    const auto out = run_mdtest(again.path(), read);
    INFO(out.step.message);
    CHECK(out.step.status == Status::kOk);
    CHECK(phase_ops(out.step, "File read") == 8);
    CHECK(named_counter(read_phase(out.step, "File read"), "mismatches") == -1);
  }
  SECTION("with verify_read the one file is one mismatch, named with its offset") {
    read["verify_read"] = "true";
    TempDir again("mdtest_verify_on");
    const auto out = run_mdtest(again.path(), read);
    CHECK(out.step.status == Status::kFailed);
    const PhaseResult& p = read_phase(out.step, "File read");
    CHECK(p.status == Status::kFailed);
    CHECK(named_counter(p, "mismatches") == 1);
    // The failing worker read and checked all of its 4 files before it ended the phase.
    CHECK_THAT(out.step.message, Catch::Contains("1 of the 4 files read") &&
                                     Catch::Contains("file.mdtest.1.2") &&
                                     Catch::Contains("byte offset 37"));
    // The text output says it after mdtest's tables, which still parse back.
    std::ostringstream text;
    plugins::mdtest::format_mdtest_text(out.step, text);
    CHECK_THAT(text.str(), Catch::Contains("verify_read: 1 file(s) read did not hold"));
    const auto parsed = plugins::mdtest::parse_summary(text.str());
    REQUIRE(parsed.rate.has_value());
    CHECK(parsed.rate->row("File read") != nullptr);
  }
  SECTION("a read of 60 of the 100 bytes checks the word the file holds past the read") {
    read["verify_read"] = "true";
    read["read_bytes"] = "60";
    verify_flip_byte(bad, 37);  // undamaged again
    TempDir again("mdtest_verify_short");
    const auto out = run_mdtest(again.path(), read);
    INFO(out.step.message);
    CHECK(out.step.status == Status::kOk);
    CHECK(named_counter(read_phase(out.step, "File read"), "mismatches") == 0);
  }
  SECTION("another seed than the writer's makes every file a mismatch") {
    read["verify_read"] = "true";
    read["data_seed"] = "12345";
    TempDir again("mdtest_verify_seed");
    const auto out = run_mdtest(again.path(), read);
    CHECK(out.step.status == Status::kFailed);
    // The first worker to end fails the phase; the other stops at its next item (it may have
    // read all of its own files by then).
    const long long found = named_counter(read_phase(out.step, "File read"), "mismatches");
    CHECK(found >= 4);
    CHECK(found <= 8);
    CHECK_THAT(out.step.message,
               Catch::Contains("4 of the 4 files read") && Catch::Contains("byte offset 0"));
  }
}

TEST_CASE("compare's gate fails on a verify_read that failed where the baseline's ended ok",
          "[mdtest][verify][compare]") {
  TempDir dir("mdtest_verify_gate");
  const auto created = run_mdtest(dir.path(), kVerifyCreate, true);
  REQUIRE(created.step.status == Status::kOk);
  const std::filesystem::path run = dir.path() / "target" / created.left_behind.at(0);
  const AttributeValue* seed = created.step.attribute("data_seed");
  REQUIRE(seed != nullptr);
  const std::string data_seed = "data_seed=" + std::to_string(std::get<std::int64_t>(*seed));
  // The same verifying read of the kept tree (with its writer's data seed), through the CLI:
  // before and after one byte of one file changed.
  const auto read = [&dir, &run, &data_seed](const std::string& name) {
    const std::filesystem::path target = dir.path() / name;
    std::filesystem::create_directories(target);
    const std::string json = (dir.path() / (name + ".json")).string();
    const iobench::test::CliResult out = iobench::test::run_cli(
        {"run", "mdtest", "-d", target.string(), "ranks=2", "worker_mode=threads", "items=4",
         "files_only=true", "write_bytes=100", "read_bytes=100", "phases=read",
         "tree_dir=" + run.string(), data_seed, "verify_read=true", "-f", "json", "-o", json,
         "-q"});
    return std::pair{out, json};
  };
  const auto [clean_run, clean] = read("clean");
  INFO(clean_run.err);
  REQUIRE(clean_run.exit_code == 0);
  verify_flip_byte(run / "test-dir.0-0" / "mdtest_tree.0" / "file.mdtest.1.2", 37);
  const auto [broken_run, broken] = read("broken");
  INFO(broken_run.err);
  REQUIRE(broken_run.exit_code == 1);  // the data check failed the read
  REQUIRE(std::filesystem::exists(broken));
  const iobench::test::CliResult gate = iobench::test::run_cli(
      {"compare", clean, broken, "--fail-if-worse", "1000", "--phases", "File read"});
  INFO(gate.out);
  INFO(gate.err);
  CHECK(gate.exit_code == 1);
  CHECK_THAT(gate.err, Catch::Contains("a phase failed in #1 (" + broken +
                                       ") where the baseline's ended ok: step mdtest, phase "
                                       "File read, repetition 1: failed: ") &&
                           Catch::Contains("1 of the 4 files read"));
  CHECK_THAT(gate.out, Catch::Contains("phase File read: failed (") &&
                           Catch::Contains("; the baseline's ended ok"));
  // Swapped, the failed run is the baseline: nothing to compare, not a pass.
  CHECK(iobench::test::run_cli(
            {"compare", broken, clean, "--fail-if-worse", "1000", "--phases", "File read"})
            .exit_code == 2);
}

TEST_CASE("mdtest verify_read with a rank shift checks the writing rank's pattern",
          "[mdtest][verify]") {
  const std::string mode = GENERATE(std::string("threads"), std::string("processes"));
  const std::string unique = GENERATE(std::string("false"), std::string("true"));
  TempDir dir("mdtest_verify_shift");
  // -N 1 with 3 ranks: rank r reads rank (r + 2) mod 3's files, whose words carry that rank.
  const auto out = run_mdtest(dir.path(), {{"ranks", "3"},
                                           {"worker_mode", mode},
                                           {"items", "5"},
                                           {"files_only", "true"},
                                           {"unique_dir", unique},
                                           {"write_bytes", "4000"},
                                           {"read_bytes", "3901"},
                                           {"shift", "1"},
                                           {"verify_read", "true"}});
  INFO(out.step.message);
  REQUIRE(out.step.status == Status::kOk);
  CHECK(phase_ops(out.step, "File read") == 15);
  CHECK(named_counter(read_phase(out.step, "File read"), "mismatches") == 0);
  CHECK(out.left_behind.empty());
}

TEST_CASE("mdtest's one prepare message carries rank 0's data seed with its run directories",
          "[mdtest][verify]") {
  using plugins::mdtest::decode_rank0_setup;
  using plugins::mdtest::encode_rank0_setup;
  const std::string text =
      encode_rank0_setup({.data_seed = 4294967295U, .names = "iobench.1.a\niobench.1.b\n"});
  CHECK(text == "4294967295\niobench.1.a\niobench.1.b\n");
  const plugins::mdtest::Rank0Setup back = decode_rank0_setup(text);
  CHECK(back.data_seed == 4294967295U);
  CHECK(back.names == "iobench.1.a\niobench.1.b\n");
  const plugins::mdtest::Rank0Setup one = decode_rank0_setup("0\nd\n");
  CHECK(one.data_seed == 0);
  CHECK(one.names == "d\n");
}

TEST_CASE("mdtest's prepare message decoder refuses each malformed form with one error",
          "[mdtest][verify]") {
  using plugins::mdtest::decode_rank0_setup;
  const std::string expected =
      "mdtest: rank 0's setup message is not 'SEED\\nNAME\\n...' (its data seed in decimal, at "
      "most 4294967295, then its run directory names, one a line, every line ending in a "
      "newline): ";
  const auto refused = [&](const std::string& text, const std::string& what) {
    INFO(text);
    CHECK_THROWS_WITH(decode_rank0_setup(text), expected + what);
  };
  // Cut short: the seed line, the names, the last name's newline.
  refused("", "it is empty (cut short)");
  refused("7", "'7' has no newline after the data seed (cut short)");
  refused("7\n", "no run directory name after the data seed (cut short)");
  refused("7\niobench.1.a\niobench.1",
          "the last run directory name 'iobench.1' has no newline "
          "(cut short)");
  refused("7\niobench.1.a", "the last run directory name 'iobench.1.a' has no newline (cut short)");
  // A seed that is not one.
  refused("4294967296\nx\n", "'4294967296' is not a data seed");
  refused("\nx\n", "'' is not a data seed");
  refused("-1\nx\n", "'-1' is not a data seed");
  refused(" 7\nx\n", "' 7' is not a data seed");
  refused("7x\nx\n", "'7x' is not a data seed");
  // Names that are none or not one directory's.
  refused("7\na\n\nb\n", "run directory name 2 is empty");
  refused("7\n\n", "run directory name 1 is empty");
  refused("7\na\n..\n", "run directory name 2 '..' is not one directory's name");
  refused("7\n.\n", "run directory name 1 '.' is not one directory's name");
  refused("7\na/b\n", "run directory name 1 'a/b' is not one directory's name");
  refused(std::string("7\na\0b\n", 6),
          "run directory name 1 'a\\x00b' is not one directory's name");
}

TEST_CASE("mdtest's setup errors quote at most 64 bytes of a garbled message", "[mdtest][verify]") {
  using plugins::mdtest::decode_rank0_setup;
  // 10,000 bytes without a newline: the error quotes them in 64 bytes, start and end kept.
  const std::string garbled = std::string(20, '7') + std::string(9'960, 'x') + "tail";
  std::string message;
  try {
    (void)decode_rank0_setup(garbled);
  } catch (const Error& e) {
    message = e.what();
  }
  const std::string before = "newline): '";
  const std::string after = "' has no newline after the data seed (cut short)";
  REQUIRE(message.ends_with(after));
  const std::size_t from = message.find(before) + before.size();
  const std::string shown = message.substr(from, message.size() - after.size() - from);
  INFO(shown);
  CHECK(shown.size() <= 64);
  CHECK(shown.starts_with("7777777777"));
  CHECK(shown.ends_with("tail"));
  CHECK(shown.find("bytes ...]") != std::string::npos);
}

TEST_CASE("mdtest checks rank 0's run directory names with one rule", "[mdtest][verify]") {
  using plugins::is_one_dir_name;
  CHECK(is_one_dir_name("iobench.1.a"));
  CHECK(is_one_dir_name("..."));
  for (const std::string& name : {std::string(), std::string("."), std::string(".."),
                                  std::string("a/b"), std::string("a\0b", 3)}) {
    INFO(name.size());
    CHECK_FALSE(is_one_dir_name(name));
  }
}
