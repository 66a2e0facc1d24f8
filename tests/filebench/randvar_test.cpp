// filebench's random variables: 10^5 draws of each type match the distribution's mean and
// variance within 2 %, min and round are honoured, a tabular variable's rows get their percents
// within binomial bounds; both syntaxes parse, the variable works as iosize and as a fileset's
// size in a run, and misuses are refused with their position.
#include "plugins/filebench/randvar.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <string>

#include "plugins/filebench/wml_parser.hpp"
#include "tests/filebench/filebench_test_support.hpp"
#include "tests/filebench/wml_test_helpers.hpp"
#include "tests/support/test_support.hpp"

namespace fb = iobench::plugins::filebench;
namespace fs = std::filesystem;
using filebench_test::op;

namespace {

constexpr int kRandvarDraws = 100'000;

struct DrawMoments {
  double mean = 0;
  double variance = 0;
};

DrawMoments moments_of(const fb::RandVarDef& v, std::uint64_t seed) {
  fb::Rng rng(seed);
  double sum = 0;
  double sum2 = 0;
  for (int i = 0; i < kRandvarDraws; ++i) {
    const auto x = static_cast<double>(fb::draw_randvar(v, rng));
    sum += x;
    sum2 += x * x;
  }
  const double mean = sum / kRandvarDraws;
  return {mean, sum2 / kRandvarDraws - mean * mean};
}

fb::RandVarDef randvar_of(const std::string& text) {
  const fb::WmlModel m = fb::parse_wml(text, "t.f");
  REQUIRE(m.randvars.size() == 1);
  return *m.randvars.front();
}

}  // namespace

TEST_CASE("uniform and gamma randvars match their mean and variance within 2 percent") {
  // uniform on [min, 2 mean - min): variance (2 (mean - min))^2 / 12.
  const fb::RandVarDef uniform = randvar_of("set $u = randvar(type=uniform, min=1k, mean=9k)\n");
  CHECK(uniform.type == fb::RandVarDef::Type::kUniform);
  const DrawMoments u = moments_of(uniform, 1);
  const double span = 2.0 * (9216 - 1024);
  CHECK(u.mean == Approx(9216).epsilon(0.02));
  CHECK(u.variance == Approx(span * span / 12).epsilon(0.02));
  // gamma: min + Gamma(shape gamma/1000, scale (mean - min) / shape): variance (mean-min)^2/shape.
  const fb::RandVarDef gamma =
      randvar_of("define randvar name=$g, type=gamma, min=1k, mean=5632, gamma=1500\n");
  CHECK(gamma.name == "g");
  CHECK(gamma.shape == 1.5);
  const DrawMoments g = moments_of(gamma, 2);
  CHECK(g.mean == Approx(5632).epsilon(0.02));
  CHECK(g.variance == Approx((5632.0 - 1024) * (5632.0 - 1024) / 1.5).epsilon(0.02));
}

TEST_CASE("randvar draws honour min and round to the nearest multiple") {
  const fb::RandVarDef v =
      randvar_of("set $r = randvar(type=gamma, min=4k, mean=64k, gamma=500, round=4k, seed=9)\n");
  CHECK(v.round == 4096);
  CHECK(v.seed == 9);
  fb::Rng rng(3);
  std::uint64_t at_min = 0;
  for (int i = 0; i < kRandvarDraws; ++i) {
    const std::uint64_t x = fb::draw_randvar(v, rng);
    REQUIRE(x >= 4096);
    REQUIRE(x % 4096 == 0);
    at_min += x == 4096;
  }
  CHECK(at_min > 0);  // a shape below 1 piles draws near min: the lowest multiple is reached
  const DrawMoments m = moments_of(v, 4);
  CHECK(m.mean == Approx(65536).epsilon(0.02));
}

TEST_CASE("a tabular randvar gives each row its percent of the draws within binomial bounds") {
  const fb::RandVarDef v = randvar_of(
      "define randvar name=$t, type=tabular, min=1k, randtable =\n"
      "{{ 80, 1k, 4k},\n { 15, 4k, 16k},\n { 05, 16k, 64k}}\n");
  REQUIRE(v.table.size() == 3);
  CHECK(v.table[2].percent == 5);
  // Without mean= the table's own mean, and its lowest value is min: the draws are the rows'.
  CHECK(fb::randvar_mean(v) == Approx(0.80 * 2560 + 0.15 * 10240 + 0.05 * 40960));
  fb::Rng rng(5);
  std::array<std::uint64_t, 3> rows{};
  for (int i = 0; i < kRandvarDraws; ++i) {
    const std::uint64_t x = fb::draw_randvar(v, rng);
    REQUIRE(x >= 1024);
    REQUIRE(x <= 64 * 1024);
    ++rows[x < 4096 ? 0 : x < 16384 ? 1 : 2];
  }
  const std::array<double, 3> share = {0.80, 0.15, 0.05};
  for (std::size_t r = 0; r < 3; ++r) {
    const double expected = kRandvarDraws * share[r];
    const double sigma = std::sqrt(kRandvarDraws * share[r] * (1 - share[r]));
    INFO("row " << r << ": " << rows[r] << " draws, expected " << expected);
    CHECK(std::abs(static_cast<double>(rows[r]) - expected) <= 4 * sigma);
  }
}

TEST_CASE("a randvar iosize is drawn per op and a randvar size per file, from the run's seed") {
  const iobench::test::TempDir target("fbrandvar");
  const iobench::test::TempDir files("fbrandvarf");
  const fs::path f = files.path() / "w.f";
  filebench_test::write_file(
      f,
      "set $io = randvar(type=uniform, min=1k, mean=8k, round=1k)\n"
      "define randvar name=$size, type=tabular, min=4k, round=4k, randtable =\n"
      "  {{50, 4k, 8k}, {50, 8k, 16k}}\n"
      "define fileset name=s,size=$size,entries=200,dirwidth=1000,prealloc\n"
      "define file name=log,size=0,prealloc\n"
      "define process name=p {thread name=t,memsize=16k {\n"
      "  flowop appendfile name=a,filename=log,fd=1,iosize=$io\n"
      "  flowop finishoncount name=done,target=a,value=2000\n"
      "}}\n");
  const filebench_test::Run run = filebench_test::run_filebench(target, f, "30s", 31);
  const auto& a = op(run, "a");
  CHECK(a.ops == 2000);
  const std::uint64_t log = fs::file_size(run.run_dir / "log");
  CHECK(log == a.bytes);
  CHECK(log % 1024 == 0);  // every append a whole multiple of round
  CHECK(static_cast<double>(a.bytes) / 2000 == Approx(8192).epsilon(0.05));
  std::uint64_t sized = 0;
  for (const auto& e : fs::recursive_directory_iterator(run.run_dir / "s")) {
    if (!e.is_regular_file()) continue;
    ++sized;
    CHECK(e.file_size() % 4096 == 0);
    CHECK(e.file_size() >= 4096);
    CHECK(e.file_size() <= 16384);
  }
  CHECK(sized == 200);
}

TEST_CASE("randvars are refused where a fixed number stands and when malformed") {
  CHECK(filebench_test::wml_error_of(
            "set $r = randvar(type=gamma, mean=1k)\n"
            "define process name=p,instances=$r {thread name=t {flowop delay "
            "name=d}}\n") ==
        "t.f:2:33: instances takes a fixed number, not randvar $r; a randvar is drawn per use "
        "in iosize= and in a fileset's size= only");
  CHECK(filebench_test::wml_error_of("set $r = randvar(type=tabular)\n") ==
        "t.f:1:10: randvar type=tabular needs randtable={{PERCENT, MIN, MAX}, ...} (percents "
        "adding to 100)");
  CHECK(filebench_test::wml_error_of(
            "define randvar name=$t, randtable={{60, 1k, 2k}, {30, 2k, 4k}}\n") ==
        "t.f:1:8: randvar $t's randtable percents add to 90, not 100; give rows whose percents "
        "add to 100 (filebench's table has 100 slots)");
  CHECK(filebench_test::wml_error_of("set $r = randvar(type=normal, mean=1k)\n") ==
        "t.f:1:23: unknown randvar type 'normal'; give uniform, gamma or tabular");
  CHECK(filebench_test::wml_error_of("set $r = randvar(type=uniform, min=2k)\n") ==
        "t.f:1:10: randvar type=uniform needs mean= at least its min=2048; give mean=N");
  CHECK(filebench_test::wml_error_of("set $r = randvar(type=gamma, mean=1k, randsrc=urandom)\n") ==
        "t.f:1:47: randsrc=urandom cannot be repeated from the run's seed; remove it (iobench "
        "draws every randvar from the seed)");
  CHECK(filebench_test::wml_error_of("define randvar type=gamma, mean=1k\n") ==
        "t.f:1:8: define randvar needs name=$VARIABLE");
}
