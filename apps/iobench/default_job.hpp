#pragma once

#include <filesystem>
#include <vector>

#include <iobench/runner.hpp>

namespace iobench::cli {

/// The default job `iobench run` runs without a workload: every family at small sizes on
/// `target`, about a minute on a typical disk.
[[nodiscard]] std::vector<Step> default_job(const std::filesystem::path& target);

}  // namespace iobench::cli
