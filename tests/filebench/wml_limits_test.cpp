// The WML parser's bounds: attributes without a value, delays, cvar means, run lengths and names
// used as paths, each refused with its position instead of overflowing later.
#include <catch2/catch.hpp>
#include <iobench/error.hpp>
#include <string>

#include "plugins/filebench/wml_parser.hpp"

namespace fb = iobench::plugins::filebench;

namespace {

/// The message parse_wml throws for `text` (named "t.f"), or "" when it parses.
std::string limit_error_of(const std::string& text) {
  try {
    (void)fb::parse_wml(text, "t.f");
  } catch (const iobench::ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a count attribute without a value is refused at its own position") {
  CHECK(limit_error_of("define process name=p,instances { thread name=t { flowop delay name=d,"
                       "value=0.01 } }\n") ==
        "t.f:1:23: attribute 'instances' needs a value: instances=...");
  CHECK(limit_error_of("define process name=p {\n thread name=t,instances {\n  flowop delay "
                       "name=d,value=1 } }\n") ==
        "t.f:2:16: attribute 'instances' needs a value: instances=...");
  CHECK(limit_error_of("define process name=p {\n thread name=t {\n  flowop delay name=d,iters,"
                       "value=1 } }\n") == "t.f:3:23: attribute 'iters' needs a value: iters=...");
}

TEST_CASE("a delay above one day is refused and one day is accepted") {
  CHECK(
      limit_error_of("define process name=p {thread name=t {flowop delay name=d,value=1e30}}\n") ==
      "t.f:1:65: delay value=1e30 is above one day; give at most 86400 seconds");
  CHECK(limit_error_of(
            "define process name=p {thread name=t {flowop delay name=d,value=86400.5}}\n") ==
        "t.f:1:65: delay value=86400.5 is above one day; give at most 86400 seconds");
  const fb::WmlModel m = fb::parse_wml(
      "define process name=p {thread name=t {flowop delay name=d,value=86400}}\n", "t.f");
  CHECK(m.processes.at(0).threads.at(0).flowops.at(0).value == 86400.0);
}
