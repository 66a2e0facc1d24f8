// Target templates and the single-process coordinator: pure, no mpirun.
#include <catch2/catch.hpp>
#include <iobench/coordinator.hpp>
#include <iobench/error.hpp>

using namespace iobench;

TEST_CASE("rank templates expand every name and keep escaped braces", "[mpi]") {
  const RankIdentity who{.rank = 3, .size = 8, .local_rank = 1, .host = "node7"};
  CHECK(expand_rank_template("/mnt/{host}/r{rank}of{size}/l{local_rank}", who) ==
        "/mnt/node7/r3of8/l1");
  CHECK(expand_rank_template("/plain/path", who) == "/plain/path");
  CHECK(expand_rank_template("/a{{b}}/{rank}", who) == "/a{b}/3");
}

TEST_CASE("a bad rank template is a ConfigError naming the pattern", "[mpi]") {
  const RankIdentity who{};
  CHECK_THROWS_WITH(expand_rank_template("/x/{ranks}", who),
                    Catch::Contains("'/x/{ranks}'") && Catch::Contains("unknown name {ranks}"));
  CHECK_THROWS_AS(expand_rank_template("/x/{rank", who), ConfigError);
  CHECK_THROWS_AS(expand_rank_template("/x/rank}", who), ConfigError);
}

TEST_CASE("the single-process coordinator is rank 0 of 1 and echoes collectives", "[mpi]") {
  const auto alone = make_single_process_coordinator();
  CHECK(alone->identity().rank == 0);
  CHECK(alone->identity().size == 1);
  CHECK_FALSE(alone->ranked());
  CHECK(alone->all_gather("x") == std::vector<std::string>{"x"});
  alone->raise_stop("nothing listens", StopKind::kFailure);
  CHECK_FALSE(alone->stop_raised().has_value());
}
