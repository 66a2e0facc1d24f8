// Flowop names filebench's parser cannot take: its lexer's keywords (create, readonly, the
// fileset[s]* and process[es]* patterns...) are refused with their line and column and the fix,
// quoted or not, as a file (exit 2, nothing written) and through parse_wml (filebench 1.5-alpha3
// itself was checked on create, in, filesets, processe, readonly, run, list, system and
// "create": syntax errors; true, false, createfile and "abc": accepted).
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "plugins/filebench/wml_parser.hpp"
#include "plugins/filebench/wml_vocabulary.hpp"
#include "tests/filebench/wml_test_helpers.hpp"
#include "tests/support/test_support.hpp"

namespace fb = iobench::plugins::filebench;
namespace fs = std::filesystem;

namespace {

std::string named_error_of(const std::string& name) {
  return filebench_test::wml_error_of(
      "define process name=p {thread name=t {flowop delay name=" + name + ",value=1}}\n");
}

}  // namespace

TEST_CASE("flowop names that are filebench keywords are refused with their position and fix") {
  CHECK(named_error_of("create") ==
        "t.f:1:57: flowop name 'create' is a filebench keyword, which filebench's parser refuses "
        "there (a syntax error); rename the flowop, e.g. 'create1'");
  for (const std::string word : {"readonly", "iosize", "randvar", "filesets", "filesetss",
                                 "process", "processes", "in", "uniform", "run", "\"create\""}) {
    INFO(word);
    const std::string bare = word[0] == '"' ? word.substr(1, word.size() - 2) : word;
    CHECK(named_error_of(word).find("t.f:1:57: flowop name '" + bare +
                                    "' is a filebench keyword") == 0);
  }
  // Longer words the lexer reads as names: flowop types, keywords with more letters.
  for (const std::string word : {"createfile", "read", "readonly2", "filesetx", "processor",
                                 "runner", "true", "false", "\"abc\""}) {
    INFO(word);
    CHECK(named_error_of(word) == "no error");
  }
  CHECK(fb::is_filebench_keyword("fileset"));
  CHECK_FALSE(fb::is_filebench_keyword("files2"));
}

TEST_CASE("a flowop named by a keyword stops the run before any I/O with exit code 2") {
  const iobench::test::TempDir target("fbkw");
  const iobench::test::TempDir files("fbkwf");
  const fs::path f = files.path() / "kw.f";
  filebench_test::write_file(f,
                             "define file name=f,size=1k,prealloc\n"
                             "define process name=p {thread name=t {\n"
                             "  flowop openfile name=readonly,filename=f,fd=1\n"
                             "}}\n");
  const auto result = iobench::test::run_cli(
      {"run", "filebench", "-d", target.path().string(), "file=" + f.string()});
  CHECK(result.exit_code == 2);
  CHECK(result.err.find(f.string() + ":3:24: flowop name 'readonly' is a filebench keyword") !=
        std::string::npos);
  CHECK(result.err.find("rename the flowop, e.g. 'readonly1'") != std::string::npos);
  CHECK(target.entries().empty());
}
