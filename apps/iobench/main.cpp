// iobench: parse the command line, run, map errors to exit statuses. Everything else is in
// libiobench and the plugins.
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <iobench/error.hpp>

#include "cli_options.hpp"
#include "commands.hpp"

int main(int argc, char** argv) {
  try {
    return iobench::cli::run_command(iobench::cli::parse_command_line(argc, argv));
  } catch (const iobench::ConfigError& e) {
    fmt::print(stderr, "iobench: error: {}\n", e.what());
    return 2;
  } catch (const iobench::PluginError& e) {
    fmt::print(stderr, "iobench: error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "iobench: error: {}\n", e.what());
    return 1;
  }
}
