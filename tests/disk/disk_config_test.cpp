#include "plugins/disk/disk_config.hpp"

#include <catch2/catch.hpp>
#include <iobench/error.hpp>

#include "tests/support/test_support.hpp"

using namespace iobench;
using namespace iobench::plugins::disk;

namespace {
DiskConfig config_of(const std::map<std::string, std::string>& raw,
                     std::vector<std::filesystem::path> targets = {"/tmp"}) {
  const auto specs = disk_param_specs();
  const Params params = Params::validate(specs, raw, "disk");
  return make_disk_config(params, targets);
}
std::string error_of(const std::map<std::string, std::string>& raw,
                     std::vector<std::filesystem::path> targets = {"/tmp"}) {
  try {
    (void)config_of(raw, std::move(targets));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("disk params take the seeds' forms", "[disk]") {
  const DiskConfig c = config_of({{"bs", "4k"}, {"blocks", "3m"}, {"operation", "read"}});
  CHECK(c.block_size_bytes == 4096);
  CHECK(c.blocks == 3145728);
  CHECK(c.working_set_bytes() == 12ULL << 30);
  CHECK(c.operation == Operation::kRead);
  const DiskConfig d = config_of({{"bs", "4k"},
                                  {"blocks", "50k"},
                                  {"seek", "random"},
                                  {"iterations", "10"},
                                  {"operation", "read"},
                                  {"prime", "true"}});
  CHECK(d.blocks == 51200);
  CHECK(d.iterations == 10);
  CHECK(d.seek == SeekPattern::kRandom);
  CHECK(d.prime);
  const DiskConfig e = config_of({{"size", "8m"}, {"bs", "1m"}});
  CHECK(e.blocks == 8);
}

TEST_CASE("bad disk params get one clear message each", "[disk]") {
  CHECK_THAT(error_of({{"bs", "0"}}), Catch::Contains("bs"));
  CHECK_THAT(error_of({{"bs", "-4k"}}), Catch::Contains("bs"));
  CHECK_THAT(error_of({{"bs", "4kk"}}), Catch::Contains("bs"));
  CHECK_THAT(error_of({{"blocks", "0"}}), Catch::Contains("blocks"));
  CHECK_THAT(error_of({{"bs", "2m"}, {"size", "1m"}}), Catch::Contains("larger than size"));
  CHECK_THAT(error_of({{"bs", "3k"}, {"size", "10k"}}), Catch::Contains("whole number of blocks"));
  CHECK_THAT(error_of({{"blocks", "4"}, {"size", "1m"}}), Catch::Contains("both given"));
  CHECK_THAT(error_of({{"mode", "direct"}, {"bs", "1000"}, {"blocks", "1"}}),
             Catch::Contains("multiple of 4096"));
  CHECK_THAT(error_of({{"seek", "rnd"}}), Catch::Contains("seek"));
  CHECK_THAT(error_of({{"file", "../escape"}}), Catch::Contains("plain file name"));
  CHECK_THAT(error_of({{"prime", "true"}}), Catch::Contains("only applies to operation=read"));
  CHECK_THAT(error_of({{"blocks", "99999999999999999"}, {"bs", "1g"}}),
             Catch::Contains("overflow"));
}

TEST_CASE("existing file targets are read in place and never written", "[disk]") {
  test::TempDir dir("diskcfg");
  const auto file = dir.path() / "bigfile";
  { std::ofstream(file) << std::string(8192, 'x'); }
  CHECK_THAT(error_of({{"operation", "write"}}, {file}), Catch::Contains("never overwrites"));
  CHECK_THAT(error_of({{"operation", "read"}, {"bs", "4k"}, {"blocks", "3"}}, {file}),
             Catch::Contains("fewer than blocks x bs"));
  const DiskConfig ok = config_of({{"operation", "read"}, {"bs", "4k"}, {"blocks", "2"}}, {file});
  CHECK(ok.existing_file_target.at(0));
}

TEST_CASE("disk names a bad value before a rule between values", "[disk]") {
  // rwmix with operation=read breaks a rule between values too; the bad value is named first.
  const std::map<std::string, std::string> mixed{{"rwmix", "50"}, {"operation", "read"}};
  auto with = [&](const char* key, const char* value) {
    auto raw = mixed;
    raw.emplace(key, value);
    return error_of(raw);
  };
  CHECK(with("random_order", "nope").starts_with("random_order"));
  CHECK(with("file", "a/b") == "disk: file='a/b' must be a plain file name without '/'");
  CHECK(error_of(mixed).starts_with("disk: rwmix=50 mixes reads and writes"));
}
