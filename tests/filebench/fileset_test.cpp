// Filesets: layouts drawn from the seed (names, directories, sizes, preallocation), gamma draws,
// memory per file, and creation on disk (O_EXCL, preallocated files at their size).
#include "plugins/filebench/fileset.hpp"

#include <fcntl.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <iobench/error.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "plugins/filebench/gamma.hpp"
#include "tests/filebench/wml_test_helpers.hpp"
#include "tests/support/test_support.hpp"

namespace fb = iobench::plugins::filebench;
namespace fs = std::filesystem;

namespace {

fb::FilesetDef gamma_set(std::uint64_t entries, double width, std::uint32_t prealloc) {
  fb::FilesetDef def;
  def.name = "big";
  def.size.kind = fb::SizeSpec::Kind::kGamma;
  def.size.mean_bytes = 16384;
  def.size.gamma = 1.5;
  def.entries = entries;
  def.dir_width = width;
  def.prealloc_pct = prealloc;
  return def;
}

using Listing = std::vector<std::tuple<std::string, std::uint64_t, bool>>;

Listing listing(const fb::FilesetLayout& layout) {
  Listing out;
  for (std::uint32_t f = 0; f < layout.files.size(); ++f)
    out.emplace_back(layout.file_path(f), layout.files[f].size, layout.preallocated(f));
  return out;
}

bool never() { return false; }

iobench::OwnedConfinedDir open_dir(const fs::path& path) {
  return iobench::OwnedConfinedDir(
      iobench::UniqueFd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)), path);
}

}  // namespace

TEST_CASE("the same seed draws the same fileset names and sizes, another seed another") {
  const fb::FilesetDef def = gamma_set(2000, 20, 80);
  const Listing a = listing(fb::draw_layout(def, 42));
  const Listing b = listing(fb::draw_layout(def, 42));
  const Listing c = listing(fb::draw_layout(def, 43));
  REQUIRE(a.size() == 2000);
  CHECK(a == b);
  CHECK(a != c);
  std::set<std::string> names;
  for (const auto& [path, size, prealloc] : a) names.insert(path);
  CHECK(names.size() == 2000);
}

TEST_CASE("a fixed-width fileset is laid out as filebench lays it out") {
  fb::FilesetDef def;
  def.name = "s";
  def.size.fixed_bytes = 100;
  def.entries = 8;
  def.dir_width = 2;
  def.dir_gamma = 0;  // mean depth ln 8 / ln 2 = 3, width 2 everywhere
  const fb::FilesetLayout layout = fb::draw_layout(def, 1);
  REQUIRE(layout.files.size() == 8);
  CHECK(layout.dirs.size() == 7);  // the root, 2 below it, 2 below each of those
  CHECK(layout.file_path(0) == "s/00000001/00000001/00000001");
  CHECK(layout.file_path(1) == "s/00000001/00000001/00000002");
  CHECK(layout.file_path(2) == "s/00000001/00000002/00000001");
  CHECK(layout.file_path(7) == "s/00000002/00000002/00000002");
  CHECK(layout.dir_path(6) == "s/00000002/00000002");
  for (const auto& f : layout.files) CHECK(f.size == 100);
  CHECK(layout.preallocated_bytes() == 0);
}

TEST_CASE("gamma draws match the distribution's mean and variance within 2 percent") {
  fb::Rng rng(7);
  const double shape = 1.5;
  const double scale = 131072.0 / shape;
  constexpr int kDraws = 100000;
  double sum = 0;
  double squares = 0;
  for (int i = 0; i < kDraws; ++i) {
    const double x = rng.gamma(shape, scale);
    sum += x;
    squares += x * x;
  }
  const double mean = sum / kDraws;
  const double variance = squares / kDraws - mean * mean;
  CHECK(std::abs(mean / (shape * scale) - 1) < 0.02);
  CHECK(std::abs(variance / (shape * scale * scale) - 1) < 0.02);
}

TEST_CASE("gamma draws with a shape below 1 keep their mean") {
  fb::Rng rng(9);
  double sum = 0;
  for (int i = 0; i < 100000; ++i) sum += rng.gamma(0.5, 10.0);
  CHECK(std::abs(sum / 100000 / 5.0 - 1) < 0.02);
}

TEST_CASE("a fileset holds at most 64 bytes of metadata per file") {
  const fb::FilesetLayout layout = fb::draw_layout(gamma_set(100000, 20, 0), 5);
  REQUIRE(layout.files.size() == 100000);
  // The layout plus FilesetState's one flag byte per file.
  const double per_file =
      static_cast<double>(layout.memory_bytes() + layout.files.size()) / 100000.0;
  CHECK(per_file <= 64.0);
  CHECK(sizeof(fb::FilesetLayout::File) == 16);
}

TEST_CASE("prealloc creates that percentage of the files at their drawn sizes and no other") {
  const iobench::test::TempDir dir("fbset");
  const iobench::OwnedConfinedDir run_dir = open_dir(dir.path());
  const fb::FilesetLayout layout = fb::draw_layout(gamma_set(1000, 10, 50), 11);
  const std::uint64_t written = fb::create_on_disk(layout, run_dir, never);
  std::uint64_t created = 0;
  for (std::uint32_t f = 0; f < layout.files.size(); ++f) {
    const fs::path path = dir.path() / layout.file_path(f);
    REQUIRE(fs::exists(path) == layout.preallocated(f));
    if (layout.preallocated(f)) {
      ++created;
      CHECK(fs::file_size(path) == layout.files[f].size);
    }
  }
  CHECK(created >= 430);  // binomial(1000, 0.5): 7 standard deviations either side
  CHECK(created <= 570);
  CHECK(written == layout.preallocated_bytes());
  std::uint64_t on_disk = 0;
  std::uint64_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir.path())) {
    if (e.is_regular_file()) {
      on_disk += e.file_size();
      ++files;
    }
  }
  CHECK(files == created);
  CHECK(on_disk == written);
}

TEST_CASE("a stop request ends the creation of a fileset within 256 files") {
  const iobench::test::TempDir dir("fbstop");
  const iobench::OwnedConfinedDir run_dir = open_dir(dir.path());
  fb::FilesetDef def;
  def.name = "s";
  def.size.fixed_bytes = 1;
  def.entries = 5000;
  def.dir_width = 5000;  // one directory: 2 directories to make, then the files
  def.prealloc_pct = 100;
  const fb::FilesetLayout layout = fb::draw_layout(def, 1);
  int asked = 0;
  const std::uint64_t written =
      fb::create_on_disk(layout, run_dir, [&asked] { return ++asked > 2; });
  // Asked at files 255, 511 and 767: stopped at the third, after 767 files.
  CHECK(asked == 3);
  CHECK(written == 767);
  std::uint64_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir.path())) files += e.is_regular_file();
  CHECK(files == 767);
}

TEST_CASE("creating a fileset never reuses a file that is already there") {
  const iobench::test::TempDir dir("fbexcl");
  const iobench::OwnedConfinedDir run_dir = open_dir(dir.path());
  fb::FilesetDef def;
  def.name = "log";
  def.single_file = true;
  def.size.fixed_bytes = 10;
  def.prealloc_pct = 100;
  filebench_test::write_file(dir.path() / "log", "planted");
  const fb::FilesetLayout layout = fb::draw_layout(def, 1);
  CHECK_THROWS_AS(fb::create_on_disk(layout, run_dir, never), iobench::IoError);
  CHECK(fs::file_size(dir.path() / "log") == 7);
}

TEST_CASE("picks go in rotation over the files in the wanted state and skip busy ones") {
  fb::FilesetDef def;
  def.name = "s";
  def.size.fixed_bytes = 1;
  def.entries = 4;
  def.dir_width = 4;
  def.prealloc_pct = 100;
  fb::FilesetState state(fb::draw_layout(def, 3));
  const auto go_on = [] { return true; };
  CHECK(state.pick(false, go_on) == std::nullopt);  // all exist: nothing to create
  CHECK(state.pick(true, go_on) == 0u);
  CHECK(state.pick(true, go_on) == 1u);
  state.release(0, false);  // deleted
  CHECK(state.pick(true, go_on) == 2u);
  CHECK(state.pick(true, go_on) == 3u);
  CHECK(state.pick(true, go_on) == std::nullopt);  // 1, 2, 3 busy; 0 gone
  CHECK(state.pick(false, go_on) == 0u);
  CHECK(state.existing() == 3);
}
