// `include "PATH"`, iobench's extension of filebench's language (issue 31; filebench 1.5's lexer
// has no such word): the included file's statements parsed in place (variables flow both ways),
// paths relative to the including file, errors inside it with its own line and column and the
// chain of includes, cycles (also through symbolic and hard links) and the depth limit refused,
// a missing, non-regular or oversized file refused naming the path and errno text (exit 2,
// nothing written), and a variable set in an included file sizing a fileset of a real run.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <iobench/error.hpp>
#include <map>
#include <string>

#include "plugins/filebench/wml_parser.hpp"
#include "tests/filebench/filebench_test_support.hpp"
#include "tests/filebench/wml_test_helpers.hpp"
#include "tests/support/test_support.hpp"

namespace fb = iobench::plugins::filebench;
namespace fs = std::filesystem;

namespace {

// Included files from memory: the reader sees each path as the parser resolved it.
struct Files {
  std::map<std::string, std::string> texts;
  mutable std::vector<std::string> asked;

  fb::WmlIncludeReader reader() const {
    return [this](const fs::path& path) {
      asked.push_back(path.string());
      const auto it = texts.find(path.string());
      if (it == texts.end()) throw iobench::ConfigError("no file '" + path.string() + "'");
      return it->second;
    };
  }
};

std::string file_error_of(const fs::path& path) {
  try {
    (void)fb::parse_wml_file(path.string());
  } catch (const iobench::ConfigError& e) {
    return e.what();
  }
  return "no error";
}

const std::string kProcess =
    "define process name=p { thread name=t { flowop delay name=nap,value=0.01 } }\n";

}  // namespace

TEST_CASE("an included file's statements are parsed in place, its variables flowing both ways") {
  Files files;
  files.texts["dir/sub/sizes.f"] =
      "# sizes for main.f\n"
      "set $size=$base\n"  // $base set by the includer before the include
      "set $entries=12\n";
  const std::string main =
      "set $base=16k\n"
      "include \"sub/sizes.f\"\n"
      "define fileset name=s,size=$size,entries=$entries,dirwidth=4\n" +
      kProcess;
  const fb::WmlModel m = fb::parse_wml(main, "dir/main.f", files.reader());
  CHECK(files.asked == std::vector<std::string>{"dir/sub/sizes.f"});
  REQUIRE(m.filesets.size() == 1);
  CHECK(m.filesets[0].size.fixed_bytes == 16384);
  CHECK(m.filesets[0].entries == 12);
  // Definitions in the included file land in the model with their own positions.
  files.texts["dir/sub/set.f"] = "\n  define fileset name=t,size=1k,entries=2,dirwidth=2\n";
  const fb::WmlModel d =
      fb::parse_wml("include \"sub/set.f\"\n" + kProcess, "dir/main.f", files.reader());
  REQUIRE(d.filesets.size() == 1);
  CHECK(d.filesets[0].name == "t");
  CHECK(d.filesets[0].where.line == 2);
  CHECK(d.filesets[0].where.column == 10);
  // A later `set` overrides an included one; an absolute path is taken as it is.
  files.texts["/abs/v.f"] = "set $entries=3\n";
  const fb::WmlModel a = fb::parse_wml(
      "include \"/abs/v.f\"\nset $entries=5\n"
      "define fileset name=s,size=1k,entries=$entries,dirwidth=4\n" +
          kProcess,
      "dir/main.f", files.reader());
  CHECK(a.filesets[0].entries == 5);
}

TEST_CASE("an error inside an included file names it, its line and column and the chain") {
  Files files;
  files.texts["b.f"] = "set $x=1\ninclude \"c.f\"\n";
  files.texts["c.f"] = "set $y=2\n  frobnicate\n";
  files.texts["lex.f"] = "set $z=@\n";
  files.texts["unset.f"] = "set $w=$later\n";
  CHECK(filebench_test::wml_error_of("\n\ninclude \"c.f\"\n", "main.f", files.reader()) ==
        "c.f:2:3: unknown statement 'frobnicate'; expected set, define, run, create files, echo "
        "or a # comment (included from main.f:3)");
  CHECK(filebench_test::wml_error_of("include \"b.f\"\n", "main.f", files.reader()) ==
        "c.f:2:3: unknown statement 'frobnicate'; expected set, define, run, create files, echo "
        "or a # comment (included from b.f:2, from main.f:1)");
  CHECK(filebench_test::wml_error_of("set $a=1\ninclude \"lex.f\"\n", "main.f", files.reader())
            .find("lex.f:1:8: unexpected character '@'") == 0);
  CHECK(filebench_test::wml_error_of("set $a=1\ninclude \"lex.f\"\n", "main.f", files.reader())
            .ends_with(" (included from main.f:2)"));
  // Variables set after the include are not visible inside it.
  CHECK(
      filebench_test::wml_error_of("include \"unset.f\"\nset $later=1\n", "main.f", files.reader())
          .find("unset.f:1:8: ") == 0);
  // A statement does not run on past the end of the included file.
  files.texts["cut.f"] = "set $v=1\nenable\n";
  CHECK(filebench_test::wml_error_of("include \"cut.f\"\nlathist\n", "main.f", files.reader()) ==
        "cut.f:3:1: expected 'lathist' after 'enable', found the end of the file; write enable "
        "lathist (included from main.f:1)");
  // Checks made once the whole text is parsed still name the included file and its chain.
  files.texts["post.f"] =
      "define process name=p {thread name=t {flowop sempost name=s,value=1,target=nope}}\n";
  CHECK(filebench_test::wml_error_of("set $v=1\ninclude \"post.f\"\n", "main.f", files.reader()) ==
        "post.f:1:46: sempost 's' posts to 'nope', which is no semblock of the file; name a "
        "semblock flowop (included from main.f:2)");
  files.texts["proc.f"] = "\n" + kProcess;
  const fb::WmlModel m = fb::parse_wml("include \"proc.f\"\n", "main.f", files.reader());
  CHECK(m.located(m.processes.at(0).where, "main.f", "x") ==
        "proc.f:2:8: x (included from main.f:1)");
  CHECK(m.located(fb::WmlPosition{3, 4, 0}, "main.f", "y") == "main.f:3:4: y");
  // After an included file, errors name the includer again.
  files.texts["ok.f"] = "set $v=1\n";
  CHECK(filebench_test::wml_error_of("include \"ok.f\"\n  bogus\n", "main.f", files.reader())
            .find("main.f:2:3: ") == 0);
  CHECK(filebench_test::wml_error_of("include ok.f\n", "main.f", files.reader()) ==
        "main.f:1:9: expected a \"path\" after 'include', found 'ok.f'; write include "
        "\"file.f\"");
  CHECK(filebench_test::wml_error_of("include \"none.f\"\n", "dir/main.f", files.reader()) ==
        "dir/main.f:1:9: include \"none.f\": no file 'dir/none.f'");
}

TEST_CASE("include cycles and nesting deeper than the limit are refused naming the chain") {
  Files files;
  files.texts["a.f"] = "set $a=1\ninclude \"b.f\"\n";
  files.texts["b.f"] = "include \"./a.f\"\n";
  files.texts["self.f"] = "include \"self.f\"\n";
  CHECK(filebench_test::wml_error_of("include \"a.f\"\n", "main.f", files.reader()) ==
        "b.f:1:9: include \"./a.f\" makes a cycle: a.f -> b.f -> ./a.f; remove one of these "
        "includes (included from a.f:2, from main.f:1)");
  CHECK(filebench_test::wml_error_of("include \"main.f\"\n", "main.f", files.reader()) ==
        "main.f:1:9: include \"main.f\" makes a cycle: main.f -> main.f; remove one of these "
        "includes");
  CHECK(filebench_test::wml_error_of("include \"self.f\"\n", "main.f", files.reader()) ==
        "self.f:1:9: include \"self.f\" makes a cycle: self.f -> self.f; remove one of these "
        "includes (included from main.f:1)");
  // d1.f includes d2.f ... : 16 levels below the main file are allowed, the 17th is not.
  for (std::size_t k = 1; k <= 20; ++k)
    files.texts["d" + std::to_string(k) + ".f"] = "include \"d" + std::to_string(k + 1) + ".f\"\n";
  files.texts["d16.f"] = "set $deep=1\n";
  CHECK(filebench_test::wml_error_of("include \"d1.f\"\n", "main.f", files.reader()) == "no error");
  files.texts["d16.f"] = "include \"d17.f\"\n";
  files.texts["d17.f"] = "set $deep=1\n";
  const std::string deep =
      filebench_test::wml_error_of("include \"d1.f\"\n", "main.f", files.reader());
  CHECK(deep.find("d16.f:1:9: include \"d17.f\" nests files more than 16 deep; include fewer "
                  "levels (included from d15.f:1, from d14.f:1,") == 0);
  CHECK(deep.ends_with(", from d1.f:1, from main.f:1)"));
  // The same file included many times (not a cycle) is bounded by the count of includes.
  files.texts["leaf.f"] = "set $v=1\n";
  std::string many;
  for (std::size_t k = 0; k < 256; ++k) many += "include \"leaf.f\"\n";
  CHECK(filebench_test::wml_error_of(many, "main.f", files.reader()) == "no error");
  CHECK(filebench_test::wml_error_of(many + "include \"leaf.f\"\n", "main.f", files.reader()) ==
        "main.f:257:9: more than 256 include statements in all; include fewer files");
}

TEST_CASE("an include cycle through symbolic links is found at once by the file's identity") {
  const iobench::test::TempDir dir("fbinl");
  const fs::path main = dir.path() / "main.f";
  const std::string d = dir.path().string();
  // main.f -> sub/a.f -> sub/back.f, a symbolic link to main.f itself.
  filebench_test::write_file(main, "set $x=1\ninclude \"sub/a.f\"\n");
  filebench_test::write_file(dir.path() / "sub/a.f", "include \"back.f\"\n");
  fs::create_symlink("../main.f", dir.path() / "sub/back.f");
  CHECK(file_error_of(main) ==
        d + "/sub/a.f:1:9: include \"back.f\" makes a cycle: " + d + "/main.f -> " + d +
            "/sub/a.f -> " + d + "/sub/back.f, the same file as " + d +
            "/main.f; remove one of these includes (included from " + d + "/main.f:2)");
  // A directory link to itself makes a new path at every level (loop/a.f, loop/loop/a.f, ...,
  // which stopped at the depth limit): the first read of the same file stops it.
  fs::create_symlink(".", dir.path() / "sub/loop");
  filebench_test::write_file(dir.path() / "sub/a.f", "\n  include \"loop/a.f\"\n");
  filebench_test::write_file(main, "include \"sub/a.f\"\n");
  CHECK(file_error_of(main) == d + "/sub/a.f:2:11: include \"loop/a.f\" makes a cycle: " + d +
                                   "/sub/a.f -> " + d + "/sub/loop/a.f, the same file as " + d +
                                   "/sub/a.f; remove one of these includes (included from " + d +
                                   "/main.f:1)");
  // A hard link is the same file too.
  filebench_test::write_file(dir.path() / "h.f", "include \"h2.f\"\n");
  fs::create_hard_link(dir.path() / "h.f", dir.path() / "h2.f");
  CHECK(file_error_of(dir.path() / "h.f") == d + "/h.f:1:9: include \"h2.f\" makes a cycle: " + d +
                                                 "/h.f -> " + d + "/h2.f, the same file as " + d +
                                                 "/h.f; remove one of these includes");
  // The same file included twice, not inside itself, is no cycle.
  filebench_test::write_file(dir.path() / "leaf.f", "set $v=1\n");
  fs::create_symlink("leaf.f", dir.path() / "alias.f");
  filebench_test::write_file(main, "include \"leaf.f\"\ninclude \"alias.f\"\n" + kProcess);
  CHECK(file_error_of(main) == "no error");
}

TEST_CASE("a path through a symbolic link naming another file of the same name is no cycle") {
  const iobench::test::TempDir dir("fbinp");
  const fs::path main = dir.path() / "main.f";
  const std::string d = dir.path().string();
  // link points to other/deep: link/../main.f is other/main.f, though its lexically normal form
  // is main.f itself (which the lexical check took for a cycle).
  fs::create_directories(dir.path() / "other/deep");
  fs::create_directory_symlink("other/deep", dir.path() / "link");
  filebench_test::write_file(dir.path() / "other/main.f", "set $y=3\n");
  filebench_test::write_file(main,
                             "include \"link/../main.f\"\ndefine file name=f,size=$y\n" + kProcess);
  const fb::WmlModel m = fb::parse_wml_file(main.string());
  REQUIRE(m.filesets.size() == 1);
  CHECK(m.filesets[0].size.fixed_bytes == 3);
  // The other file including the main one back through its real path is a cycle all the same.
  filebench_test::write_file(dir.path() / "other/main.f", "include \"../main.f\"\n");
  CHECK(file_error_of(main) ==
        d + "/link/../main.f:1:9: include \"../main.f\" makes a cycle: " + d + "/main.f -> " + d +
            "/link/../main.f -> " + d + "/link/../../main.f, the same file as " + d +
            "/main.f; remove one of these includes (included from " + d + "/main.f:1)");
}

TEST_CASE("parsing from memory reads no included file") {
  try {
    (void)fb::parse_wml("include \"/etc/passwd\"\n", "m.f");
    FAIL("no error");
  } catch (const iobench::ConfigError& e) {
    CHECK(std::string(e.what()) ==
          "m.f:1:1: 'include' (iobench's extension; filebench 1.5 has no such statement) reads "
          "a file, and this text was not read from one; run the .f file itself");
  }
}

TEST_CASE("an included file missing, not regular or too large is refused naming the path") {
  const iobench::test::TempDir dir("fbinc");
  const fs::path main = dir.path() / "main.f";
  filebench_test::write_file(main, "set $x=1\ninclude \"nope.f\"\n");
  CHECK(file_error_of(main) == main.string() +
                                   ":2:9: include \"nope.f\": cannot read filebench "
                                   ".f file '" +
                                   (dir.path() / "nope.f").string() +
                                   "': No such file or directory");
  fs::create_directories(dir.path() / "d");
  filebench_test::write_file(main, "include \"d\"\n");
  CHECK(file_error_of(main).ends_with("/d': Is a directory"));
  REQUIRE(::mkfifo((dir.path() / "fifo").c_str(), 0600) == 0);
  filebench_test::write_file(main, "include \"fifo\"\n");
  CHECK(file_error_of(main).find("it is a FIFO, not a regular file") != std::string::npos);
  filebench_test::write_file(dir.path() / "big.f", std::string(fb::kMaxWmlFileBytes + 1, '#'));
  filebench_test::write_file(main, "include \"big.f\"\n");
  CHECK(file_error_of(main).find(main.string() + ":1:9: include \"big.f\": filebench .f file '" +
                                 (dir.path() / "big.f").string() + "' holds 1.00 MiB") == 0);
  // Read from disk: relative to the including file's directory, nested.
  filebench_test::write_file(dir.path() / "sub/a.f", "include \"b.f\"\n");
  filebench_test::write_file(dir.path() / "sub/b.f", "set $n=7\n");
  filebench_test::write_file(
      main,
      "include \"sub/a.f\"\ndefine fileset name=s,size=1k,entries=$n,dirwidth=2\n" + kProcess);
  CHECK(fb::parse_wml_file(main.string()).filesets.at(0).entries == 7);
}

TEST_CASE("a variable set in an included file sizes a fileset of a real run") {
  const iobench::test::TempDir files("fbincf");
  filebench_test::write_file(files.path() / "conf/sizes.f", "set $n=6\nset $sz=8k\n");
  const fs::path main = files.path() / "main.f";
  filebench_test::write_file(
      main,
      "include \"conf/sizes.f\"\n"
      "define fileset name=s,path=/tmp,size=$sz,entries=$n,dirwidth=4,prealloc\n" +
          kProcess + "run 1\n");
  const iobench::test::TempDir target("fbinc");
  const filebench_test::Run run = filebench_test::run_filebench(target, main);
  const filebench_test::Tree t = filebench_test::tree(run.run_dir / "s");
  CHECK(t.files == 6);
  CHECK(t.bytes == 6 * 8192);

  // The workload's own checks on the model name the included file too (exit 2).
  filebench_test::write_file(files.path() / "conf/proc.f",
                             "define process name=p { thread name=t,memsize=4k {\n"
                             "  flowop read name=rd,filesetname=s,iosize=8k } }\n");
  filebench_test::write_file(main,
                             "define fileset name=s,size=8k,entries=2,dirwidth=2,prealloc\n"
                             "include \"conf/proc.f\"\nrun 1\n");
  const iobench::test::TempDir none("fbinc3");
  const auto big = iobench::test::run_cli(
      {"run", "filebench", "-d", none.path().string(), "file=" + main.string()});
  CHECK(big.exit_code == 2);
  CHECK(big.err.find((files.path() / "conf/proc.f").string() +
                     ":2:10: flowop 'rd' has iosize 8192 above its thread's memsize 4096; raise "
                     "memsize or lower iosize (included from " +
                     main.string() + ":2)") != std::string::npos);
  CHECK(none.entries().empty());

  // A missing include stops the run before anything is written: exit 2.
  filebench_test::write_file(main, "include \"conf/missing.f\"\n" + kProcess + "run 1\n");
  const iobench::test::TempDir empty("fbinc2");
  const auto result = iobench::test::run_cli(
      {"run", "filebench", "-d", empty.path().string(), "file=" + main.string()});
  CHECK(result.exit_code == 2);
  CHECK(result.err.find(main.string() +
                        ":1:9: include \"conf/missing.f\": cannot read "
                        "filebench .f file '" +
                        (files.path() / "conf/missing.f").string() +
                        "': No such file or directory") != std::string::npos);
  CHECK(empty.entries().empty());
}
