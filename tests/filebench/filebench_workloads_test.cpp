// Every .f file of filebench's own workloads/ directory parses (set mode quit, paralloc,
// directio and every cvar type included), but for the ones filebench itself rejects, named below
// with why. The directory is IOBENCH_FILEBENCH_WORKLOADS, else the installed tree beside the
// IOBENCH_FILEBENCH binary (PREFIX/bin/filebench -> PREFIX/share/filebench/workloads); with
// neither the test says so and checks nothing (filebench's files are never in this repository).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iobench/error.hpp>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "plugins/filebench/wml_parser.hpp"

namespace fs = std::filesystem;
namespace fb = iobench::plugins::filebench;

namespace {

fs::path workloads_dir() {
  if (const char* dir = std::getenv("IOBENCH_FILEBENCH_WORKLOADS"); dir != nullptr && *dir != 0)
    return dir;
  if (const char* bin = std::getenv("IOBENCH_FILEBENCH"); bin != nullptr && *bin != 0)
    return fs::path(bin).parent_path().parent_path() / "share" / "filebench" / "workloads";
  return {};
}

struct Refusal {
  std::string because;  ///< why filebench does not run the file
  /// What iobench's error says (a part of it), any one of these (filebench 1.5-alpha3's files
  /// and its repository's later ones differ); "" among them: or it parses; none: it parses
  /// (iobench reads what filebench refuses there: `cached`, `define randvar`).
  std::vector<std::string> errors;
};

// The files filebench 1.5-alpha3 itself rejects (`filebench -f FILE` ends in an error before
// running anything), with its reason, and what iobench does with them.
const std::map<std::string, Refusal>& filebench_rejects() {
  static const std::map<std::string, Refusal> files{
      {"compflow_demo.f",
       {"composite flowops: 'Cannot find source variable filesetnm around line 53'",
        {"'define flowop'"}}},
      {"createdelete-swing.f",
       {"syntax error at '$nfiles' around line 40", {"'filesizegamma'", "'define flowop'"}}},
      {"filemicro_rread.f", {"syntax error at 'cached' around line 38", {}}},
      {"filemicro_rwrite.f", {"syntax error at 'cached' around line 39", {}}},
      {"filemicro_rwritefsync.f", {"syntax error at 'cached' around line 39", {}}},
      {"filemicro_seqread.f", {"syntax error at 'cached' around line 35", {}}},
      {"filemicro_seqwrite.f", {"syntax error at 'cached' around line 38", {}}},
      {"filemicro_seqwriterand.f", {"syntax error at 'cached' around line 36", {}}},
      {"filemicro_seqwriterandvargam.f", {"syntax error at 'randvar' around line 36", {}}},
      {"filemicro_seqwriterandvartab.f", {"syntax error at 'randvar' around line 36", {}}},
      {"netsfs.f", {"syntax error at 'randvar' around line 39", {"'define flowop'"}}},
      {"networkfs.f", {"syntax error at '$nfiles' around line 36", {"unexpected character '*'"}}},
      {"oltp.f", {"syntax error at 'filesizegamma' around line 45", {"filesizegamma", ""}}},
      {"randomfileaccess.f", {"syntax error at 'randvar' around line 34", {}}},
      {"tpcso.f",
       {"'Out of shared memory' defining file nord_0_0 around line 62 (its 27 files)", {}}},
  };
  return files;
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("a count takes filebench's k/m/g suffixes as its sizes do") {
  const fb::WmlModel m = fb::parse_wml(
      "define process name=p { thread name=t { flowop delay name=d,value=1\n"
      "flowop finishoncount name=f,value=128k } }\n",
      "c.f");
  CHECK(m.processes.front().threads.front().flowops.back().limit == 131072);
}

TEST_CASE("every .f file of filebench's workloads directory parses, but those named") {
  const fs::path dir = workloads_dir();
  if (dir.empty() || !fs::is_directory(dir)) {
    const std::string why =
        "skipped: no filebench workloads directory (set IOBENCH_FILEBENCH_WORKLOADS=DIR, or "
        "IOBENCH_FILEBENCH=PREFIX/bin/filebench of an installed tree)" +
        (dir.empty() ? std::string() : "; not a directory: " + dir.string());
    WARN(why);
    std::cerr << why << "\n";
    return;
  }
  std::size_t parsed = 0;
  std::size_t refused = 0;
  std::size_t parsed_refused = 0;  // of those, the ones iobench parses
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".f") continue;
    const std::string name = entry.path().filename().string();
    INFO(name);
    std::string error;
    try {
      (void)fb::parse_wml(read(entry.path()), name);
    } catch (const iobench::ConfigError& e) {
      error = e.what();
    }
    const auto rejected = filebench_rejects().find(name);
    if (rejected != filebench_rejects().end()) {
      const Refusal& r = rejected->second;
      INFO(r.because);
      bool expected = r.errors.empty() && error.empty();
      for (const std::string& e : r.errors) {
        if (e.empty() ? error.empty() : error.find(e) != std::string::npos) expected = true;
      }
      CHECK(expected);
      ++refused;
      if (error.empty()) ++parsed_refused;
    } else {
      CHECK(error == "");
      ++parsed;
    }
  }
  std::cerr << "filebench workloads: " << parsed + parsed_refused << " of " << parsed + refused
            << " parse (" << parsed << " that filebench runs, " << parsed_refused
            << " that it refuses); " << refused - parsed_refused << " refused as named\n";
  CHECK(parsed + refused >= 40);
  CHECK(refused == filebench_rejects().size());
}
