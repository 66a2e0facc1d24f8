#include "default_job.hpp"

namespace iobench::cli {

std::vector<Step> default_job(const std::filesystem::path& target) {
  const std::vector<std::filesystem::path> targets{target};
  return {
      Step{.name = "disk sequential write",
           .workload = "disk",
           .params = {{"operation", "write"}, {"bs", "1m"}, {"size", "256m"}},
           .targets = targets},
      Step{.name = "disk sequential read",
           .workload = "disk",
           .params = {{"operation", "read"}, {"bs", "4k"}, {"size", "256m"}},
           .targets = targets},
      Step{.name = "disk random read from page cache",
           .workload = "disk",
           .params = {{"operation", "read"},
                      {"bs", "4k"},
                      {"size", "64m"},
                      {"seek", "random"},
                      {"prime", "true"},
                      {"iterations", "4"}},
           .targets = targets},
  };
}

}  // namespace iobench::cli
