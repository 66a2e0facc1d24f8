// NTCreateX create dispositions 0..5 as dbench 4.00's fileio backend replays them: per
// disposition, on a file that exists (100 bytes) and on one that does not, what the open does to
// the file and whether it meets the status an NT server would have answered. Checked against the
// Debian dbench 4.0 binary on the same loadfile lines (README "dbench: create dispositions").

#include <fmt/format.h>

#include "tests/dbench/dbench_test_support.hpp"

using dbench_test::counter;
using dbench_test::Fixture;
using dbench_test::op;
using dbench_test::tree;

namespace create_disposition_test {

struct Disposition {
  int value;
  const char* name;
  // What an NT server answers (the status a captured loadfile carries).
  const char* nt_status_existing;
  const char* nt_status_missing;
  // What dbench's fileio does: O_TRUNC on an existing file, O_CREAT on a missing one.
  bool truncates;
  bool creates;
};

constexpr Disposition kDispositions[] = {
    {0, "FILE_SUPERSEDE", "NT_STATUS_OK", "NT_STATUS_OK", false, false},
    {1, "FILE_OPEN", "NT_STATUS_OK", "NT_STATUS_OBJECT_NAME_NOT_FOUND", false, false},
    {2, "FILE_CREATE", "NT_STATUS_OBJECT_NAME_COLLISION", "NT_STATUS_OK", false, true},
    {3, "FILE_OPEN_IF", "NT_STATUS_OK", "NT_STATUS_OK", false, false},
    {4, "FILE_OVERWRITE", "NT_STATUS_OK", "NT_STATUS_OBJECT_NAME_NOT_FOUND", true, true},
    {5, "FILE_OVERWRITE_IF", "NT_STATUS_OK", "NT_STATUS_OK", true, true},
};

// Makes client1/e (100 bytes), then opens `e` and the missing `m` with disposition `d`.
std::string loadfile_for(const Disposition& d, const char* existing_status,
                         const char* missing_status) {
  return fmt::format(R"(Mkdir "\clients" NT_STATUS_OK
NTCreateX "\clients\client1" 0x1 0x2 1 NT_STATUS_OK
Close 1 NT_STATUS_OK
NTCreateX "\clients\client1\e" 0x40 0x2 2 NT_STATUS_OK
WriteX 2 0 100 100 NT_STATUS_OK
Close 2 NT_STATUS_OK
NTCreateX "\clients\client1\e" 0x40 {0} 3 {1}
NTCreateX "\clients\client1\m" 0x40 {0} 4 {2}
)",
                     d.value, existing_status, missing_status);
}

std::map<std::string, std::string> replay_once(const std::string& loadfile,
                                               bool stat_check = false) {
  return {{"loadfile", loadfile},
          {"run_once", "true"},
          {"skip_cleanup", "true"},
          {"time_limit", "60s"},
          {"stat_check", stat_check ? "true" : "false"}};
}

// What client0's directory holds after the replay.
std::vector<std::string> expected_tree(const Disposition& d) {
  std::vector<std::string> out = {
      "d clients", "d clients/client0",
      std::string("f clients/client0/e ") + (d.truncates ? "0" : "100")};
  if (d.creates) out.push_back("f clients/client0/m 0");
  return out;
}

}  // namespace create_disposition_test

using create_disposition_test::Disposition;
using create_disposition_test::expected_tree;
using create_disposition_test::kDispositions;
using create_disposition_test::loadfile_for;
using create_disposition_test::replay_once;

TEST_CASE("each create disposition opens, creates and truncates as dbench 4.0 does", "[dbench]") {
  for (const bool stat_check : {false, true}) {
    for (const Disposition& d : kDispositions) {
      INFO(d.name << (stat_check ? " with stat_check" : ""));
      Fixture fx;
      // Both opens expected to succeed: a failed open is a counted mismatch, the run goes on.
      const auto step = fx.run(
          replay_once(fx.loadfile(loadfile_for(d, "NT_STATUS_OK", "NT_STATUS_OK")), stat_check));
      INFO(step.message);
      REQUIRE(step.status == iobench::Status::kOk);
      CHECK(tree(fx.run_dir()) == expected_tree(d));
      // The existing file always opens; the missing one only with O_CREAT.
      CHECK(counter(step, "mismatch.NTCreateX") == (d.creates ? 0U : 1U));
      CHECK(op(step, "NTCreateX").ops == 4);
    }
  }
}

TEST_CASE("create dispositions meet or miss the NT statuses as dbench 4.0 does", "[dbench]") {
  for (const Disposition& d : kDispositions) {
    INFO(d.name);
    Fixture fx;
    const auto step = fx.run(
        replay_once(fx.loadfile(loadfile_for(d, d.nt_status_existing, d.nt_status_missing))));
    INFO(step.message);
    REQUIRE(step.status == iobench::Status::kOk);
    // The file effects do not depend on the expected status: an open that succeeds where
    // failure was expected has already created or truncated (dbench closes it at once).
    CHECK(tree(fx.run_dir()) == expected_tree(d));
    // Where fileio's flags differ from NT's semantics, the replay meets the trace's status
    // wrongly and counts it: FILE_CREATE of an existing file opens it (no O_EXCL, so no
    // collision); FILE_SUPERSEDE and FILE_OPEN_IF of a missing file fail (no O_CREAT);
    // FILE_OVERWRITE of a missing file creates it (O_CREAT).
    const bool existing_mismatch = d.value == 2;
    const bool missing_mismatch = d.value == 0 || d.value == 3 || d.value == 4;
    CHECK(counter(step, "mismatch.NTCreateX") ==
          (existing_mismatch ? 1U : 0U) + (missing_mismatch ? 1U : 0U));
  }
}

TEST_CASE("a disposition beyond 5 opens like FILE_OPEN, as dbench 4.0 does", "[dbench]") {
  Fixture fx;
  const Disposition d{7, "7", "NT_STATUS_OK", "NT_STATUS_OBJECT_NAME_NOT_FOUND", false, false};
  const auto step =
      fx.run(replay_once(fx.loadfile(loadfile_for(d, d.nt_status_existing, d.nt_status_missing))));
  REQUIRE(step.status == iobench::Status::kOk);
  CHECK(tree(fx.run_dir()) == expected_tree(d));
  CHECK(counter(step, "mismatch.NTCreateX") == 0);
}
