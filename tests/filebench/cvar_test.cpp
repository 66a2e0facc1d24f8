// filebench 1.5's custom variables (cvar(type=..., parameters=..., min=, max=, round=)) as file
// sizes drawn from a fileset's seed and as iosizes drawn per op, against their distributions'
// mean and variance; and the parse errors of their parameters.
#include "plugins/filebench/cvar.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "plugins/filebench/fileset.hpp"
#include "plugins/filebench/wml_parser.hpp"
#include "tests/filebench/filebench_test_support.hpp"
#include "tests/filebench/wml_test_helpers.hpp"
#include "tests/support/test_support.hpp"

namespace fs = std::filesystem;
namespace fb = iobench::plugins::filebench;
using filebench_test::op;

namespace {

// The file sizes of a 10^5-file set (not created: only its layout drawn) sized by `cvar`.
std::vector<double> cvar_sizes(const std::string& cvar, std::uint64_t seed,
                               fb::FilesetDef* def_out = nullptr) {
  const fb::WmlModel m = fb::parse_wml(
      "define fileset name=s,entries=100000,dirwidth=1000,size=" + cvar + "\n", "c.f");
  const fb::FilesetLayout layout = fb::draw_layout(m.filesets.front(), seed);
  if (def_out != nullptr) *def_out = m.filesets.front();
  std::vector<double> out;
  for (const auto& f : layout.files) out.push_back(static_cast<double>(f.size));
  return out;
}

}  // namespace

TEST_CASE("every cvar type's 10^5 sizes match its mean and variance within 2 percent") {
  const std::vector<std::string> cvars = {
      "cvar(type=cvar-uniform,parameters=lower:4096;upper:8192)",
      "cvar(type=uniform,parameters=upper:65536)",
      "cvar(type=cvar-normal,parameters=mean:65536;sigma:8192)",
      "cvar(type=cvar-exponential,parameters=mean:16384)",
      "cvar(type=cvar-erlang,parameters=shape:4;rate:16384)",
      "cvar(type=cvar-lognormal,parameters=shape:0.25;scale:10)",
      "cvar(type=cvar-triangular,parameters=lower:1024;upper:9216;mode:2048)",
      "cvar(type=cvar-weibull,parameters=shape:2;scale:16384)",
      "cvar(type=cvar-gamma,parameters=mean:16384;gamma:1.5)",
      "cvar(type=cvar-gamma,parameters=mean:16384;gamma:1.5,round=1)",
  };
  for (const std::string& c : cvars) {
    INFO(c);
    fb::FilesetDef def;
    const std::vector<double> sizes = cvar_sizes(c, 77, &def);
    REQUIRE(sizes.size() == 100000);
    REQUIRE(def.size.cvar != nullptr);
    double sum = 0;
    for (const double s : sizes) sum += s;
    const double mean = sum / static_cast<double>(sizes.size());
    double squares = 0;
    for (const double s : sizes) squares += (s - mean) * (s - mean);
    const double variance = squares / static_cast<double>(sizes.size() - 1);
    const double want_mean = fb::cvar_mean(*def.size.cvar);
    const double want_variance = fb::cvar_variance(*def.size.cvar);
    INFO("mean " << mean << " of " << want_mean << ", variance " << variance << " of "
                 << want_variance);
    CHECK(std::abs(mean - want_mean) <= 0.02 * want_mean);
    CHECK(std::abs(variance - want_variance) <= 0.02 * want_variance);
  }
  // The figures the formulas give (filebench's parameter meanings).
  fb::FilesetDef def;
  (void)cvar_sizes("cvar(type=cvar-lognormal,parameters=shape:0.25;scale:10)", 1, &def);
  CHECK(fb::cvar_mean(*def.size.cvar) == Approx(std::exp(10 + 0.03125)));
  (void)cvar_sizes("cvar(type=cvar-erlang,parameters=shape:4;rate:16384)", 1, &def);
  CHECK(fb::cvar_mean(*def.size.cvar) == 16384);
  CHECK(fb::cvar_variance(*def.size.cvar) == 16384.0 * 16384.0 / 4);
}

TEST_CASE("cvar sizes come from the fileset's seed") {
  const std::string c = "cvar(type=cvar-triangular,parameters=lower:1;upper:100000;mode:500)";
  CHECK(cvar_sizes(c, 5) == cvar_sizes(c, 5));
  CHECK(cvar_sizes(c, 5) != cvar_sizes(c, 6));
}

TEST_CASE("a cvar's round, min and max apply in filebench's order") {
  const std::vector<double> sizes = cvar_sizes(
      "cvar(type=cvar-uniform,parameters=lower:0;upper:10000,round=1000,min=2000,max=8000)", 3);
  std::set<double> seen(sizes.begin(), sizes.end());
  // Rounded to the nearest 1000 (0..10000), then clamped into [2000, 8000].
  CHECK(seen == std::set<double>{2000, 3000, 4000, 5000, 6000, 7000, 8000});
  // A normal's draws below 0 are 0 bytes.
  const std::vector<double> low = cvar_sizes("cvar(type=normal,parameters=mean:0;sigma:100)", 3);
  std::size_t zeros = 0;
  for (const double s : low) zeros += s == 0;
  CHECK(zeros > 49000);  // half the draws are below 0, a few more truncate to 0
  CHECK(zeros < 51500);
}

TEST_CASE("a cvar's parameters are checked against its type, with line and column") {
  CHECK(filebench_test::wml_error_of("set $s=cvar(type=cvar-uniform,parameters=lower:5;mean:3)\n",
                                     "c.f") ==
        "c.f:1:50: unknown cvar-uniform parameter 'mean'; it takes lower, upper");
  CHECK(filebench_test::wml_error_of(
            "set $s=cvar(type=triangular,parameters=lower:5;upper:9;mode:10)\n", "c.f") ==
        "c.f:1:8: cvar-triangular: mode must lie between lower and upper");
  CHECK(filebench_test::wml_error_of("set $s=cvar(type=uniform,parameters=upper:1;upper:2)\n",
                                     "c.f") ==
        "c.f:1:45: cvar parameter 'upper' is given twice; keep one");
  CHECK_THAT(filebench_test::wml_error_of(
                 "set $s=cvar(type=cvar-lognormal,parameters=shape:1;scale:60)\n", "c.f"),
             Catch::StartsWith("c.f:1:8: cvar-lognormal has a mean of ") &&
                 Catch::Contains("above 2^44 bytes"));
  CHECK(filebench_test::wml_error_of("set $s=cvar(type=uniform,parameters=upper:x)\n", "c.f") ==
        "c.f:1:37: cvar parameter 'upper:x' is not NAME:VALUE with a number; write e.g. "
        "lower:0");
  CHECK(filebench_test::wml_error_of("set $s=cvar(type=uniform,skew=3)\n", "c.f") ==
        "c.f:1:26: cvar attribute 'skew' is not one of filebench's; give type=, parameters=, "
        "min=, max= or round=");
}

TEST_CASE("an iosize cvar is drawn per op, as filebench's cvar_example.f reads") {
  const iobench::test::TempDir files("fbcvf");
  const iobench::test::TempDir target("fbcvt");
  const fs::path f = files.path() / "cvar_example.f";
  filebench_test::write_file(
      f,
      "set $iosize=cvar(type=cvar-uniform,parameters=lower:4096;upper:8192)\n"
      "define file name=singlefile,size=1m,prealloc\n"
      "define process name=filereader { thread name=filereader,memsize=1m {\n"
      "  flowop openfile name=open1,filesetname=singlefile,fd=1\n"
      "  flowop read name=read1,fd=1,iosize=$iosize\n"
      "  flowop closefile name=close1,fd=1\n"
      "  flowop finishoncount name=fin,value=2000,target=read1\n"
      "}}\n");
  const filebench_test::Run run = filebench_test::run_filebench(target, f, "60s", 11);
  const std::uint64_t ops = op(run, "read1").ops;
  const std::uint64_t bytes = op(run, "read1").bytes;
  CHECK(ops == 2000);
  // Each read is one draw in [4096, 8192) from offset 0 of the 1 MiB file.
  CHECK(bytes >= 4096 * ops);
  CHECK(bytes < 8192 * ops);
  const double mean = static_cast<double>(bytes) / static_cast<double>(ops);
  CHECK(std::abs(mean - 6143.5) <= 0.02 * 6143.5);
  // Not a fixed size: some reads differ from the mean's iosize.
  CHECK(bytes != ops * 6143);
}
