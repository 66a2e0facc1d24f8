// iobench: parse the command line, run, map errors to exit statuses. Everything else is in
// libiobench and the plugins.
#include <fmt/format.h>
#include <signal.h>

#include <cstdio>
#include <exception>
#include <iobench/error.hpp>
#include <iobench/printable.hpp>
#include <iobench/runner.hpp>

#include "cli_options.hpp"
#include "commands.hpp"

int main(int argc, char** argv) {
  // First of all: a stop signal from here on (even while a big loadfile is parsed) ends the run
  // cleanly with exit 130 and whatever results exist, never kills iobench outright.
  iobench::install_stop_signal_handlers();
  // A closed pipe on stdout must not kill the run before it cleans up: writes fail instead.
  ::signal(SIGPIPE, SIG_IGN);
  try {
    return iobench::cli::run_command(iobench::cli::parse_command_line(argc, argv));
  } catch (const iobench::ConfigError& e) {
    fmt::print(stderr, "iobench: error: {}\n", iobench::printable_message(e.what()));
    return 2;
  } catch (const iobench::PluginError& e) {
    fmt::print(stderr, "iobench: error: {}\n", iobench::printable_message(e.what()));
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "iobench: error: {}\n", iobench::printable_message(e.what()));
    return 1;
  }
}
