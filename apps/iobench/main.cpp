// iobench: parse the command line, run, map errors to exit statuses. Everything else is in
// libiobench and the plugins. Under mpirun every rank runs this; rank 0 alone prints results
// and bad-input errors (agreed on every rank first).
#include <fmt/format.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iobench/clock.hpp>
#include <iobench/coordinator.hpp>
#include <iobench/error.hpp>
#include <iobench/printable.hpp>
#include <iobench/runner.hpp>
#include <memory>

#include "cli_options.hpp"
#include "commands.hpp"
#include "ranks.hpp"

namespace {

// The input error every rank exits 2 with: agreed across ranks if they have not agreed yet (so
// the others, waiting at that checkpoint, learn it), printed once, by rank 0.
int bad_input(iobench::cli::RankContext& ranks, const char* what) {
  std::string message = what;
  if (ranks.ranked() && !ranks.input_agreed) {
    try {
      iobench::cli::agree_on_input(ranks, message);
    } catch (const iobench::CoordinationError& e) {
      message = e.what();
    } catch (const iobench::ConfigError& e) {
      message = e.what();
    }
  }
  if (ranks.root()) {
    fmt::print(stderr, "iobench: error: {}\n", iobench::printable_message(message));
  }
  return 2;
}

// Before the coordinator exists: only the process that will be rank 0 prints.
bool first_rank_by_environment() {
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (rank == nullptr) rank = std::getenv("PMIX_RANK");
  return rank == nullptr || std::string_view(rank) == "0";
}

}  // namespace

int main(int argc, char** argv) {
  // First of all: a stop signal from here on (even while a big loadfile is parsed) ends the run
  // cleanly with exit 130 and whatever results exist, never kills iobench outright.
  iobench::install_stop_signal_handlers();
  // A closed pipe on stdout must not kill the run before it cleans up: writes fail instead.
  ::signal(SIGPIPE, SIG_IGN);
  std::unique_ptr<iobench::Coordinator> coordinator;
  try {
    iobench::check_run_clock_environment();
    coordinator = iobench::make_coordinator(argc, argv);
  } catch (const iobench::ConfigError& e) {
    if (first_rank_by_environment()) {
      fmt::print(stderr, "iobench: error: {}\n", iobench::printable_message(e.what()));
    }
    return 2;
  }
  iobench::cli::RankContext ranks{.coordinator = *coordinator};
  int status = 1;
  try {
    status = iobench::cli::run_command(iobench::cli::parse_command_line(argc, argv), ranks);
  } catch (const iobench::CoordinationError& e) {
    fmt::print(stderr, "iobench: error: {}\n", iobench::printable_message(e.what()));
    status = 1;
  } catch (const iobench::ConfigError& e) {
    status = bad_input(ranks, e.what());
  } catch (const iobench::PluginError& e) {
    status = bad_input(ranks, e.what());
  } catch (const std::exception& e) {
    const std::string where =
        ranks.ranked() ? fmt::format("rank {}: ", coordinator->identity().rank) : "";
    fmt::print(stderr, "iobench: error: {}{}\n", where, iobench::printable_message(e.what()));
    status = 1;
  }
  if (ranks.ranked() && !coordinator->lost()) {
    try {
      status = iobench::cli::agree_on_exit(ranks, status);
    } catch (const iobench::CoordinationError& e) {
      fmt::print(stderr, "iobench: error: {}\n", iobench::printable_message(e.what()));
      if (status == 0) status = 1;
    }
  }
  if (coordinator->lost()) {
    fmt::print(stderr, "iobench: error: {}; this rank's files are removed; aborting every rank\n",
               iobench::printable_message(coordinator->lost_reason()));
  }
  coordinator->finish(coordinator->lost() ? (status == 0 ? 1 : status) : 0);
  return status;
}
