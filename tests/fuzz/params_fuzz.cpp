// Fuzz target: Params::validate over the ParamSpecs of every built-in workload (disk, bonnie,
// tiotest, tiobench, dbench), as `iobench run WORKLOAD key=value...` and suite params reach it.
//
// Input: the workload name on the first line, then one key=value per line.
// Invariants: only ConfigError is thrown; a validated set has a value for exactly the given keys
// and the defaulted ones, each within its spec's bounds and choices, readable with its type's
// getter; validating the texts it reports (as_text: what results record and `--again` replays)
// gives the same values again.
#include <algorithm>
#include <iobench/error.hpp>
#include <iobench/params.hpp>
#include <iobench/registry.hpp>
#include <iobench/units.hpp>
#include <iobench/workloads.hpp>
#include <map>
#include <optional>
#include <string>

#include "tests/fuzz/fuzz_check.hpp"

namespace {

using iobench::Params;
using iobench::ParamSpec;
using iobench::ParamType;

const iobench::Registry& registry() {
  static const iobench::Registry instance = iobench::make_builtin_registry();
  return instance;
}

void check_value(const Params& params, const ParamSpec& spec) {
  const std::string& text = params.get_string(spec.key);
  switch (spec.type) {
    case ParamType::kBool:
      (void)params.get_bool(spec.key);
      break;
    case ParamType::kCount:
    case ParamType::kSize: {
      const std::uint64_t value = params.get_u64(spec.key);
      FUZZ_CHECK(!spec.min || value >= *spec.min, spec.key);
      FUZZ_CHECK(!spec.max || value <= *spec.max, spec.key);
      break;
    }
    case ParamType::kInt: {
      const std::int64_t value = params.get_int(spec.key);
      FUZZ_CHECK(!spec.min || (value >= 0 && static_cast<std::uint64_t>(value) >= *spec.min),
                 spec.key);
      FUZZ_CHECK(!spec.max || value <= 0 || static_cast<std::uint64_t>(value) <= *spec.max,
                 spec.key);
      break;
    }
    case ParamType::kDouble: {
      const double value = params.get_double(spec.key);
      FUZZ_CHECK(!spec.min || value >= static_cast<double>(*spec.min), spec.key);
      FUZZ_CHECK(!spec.max || value <= static_cast<double>(*spec.max), spec.key);
      break;
    }
    case ParamType::kDuration: {
      const auto ns = params.get_duration(spec.key).count();
      FUZZ_CHECK(ns >= 0, spec.key);
      FUZZ_CHECK(!spec.min || static_cast<std::uint64_t>(ns) >= *spec.min, spec.key);
      FUZZ_CHECK(!spec.max || static_cast<std::uint64_t>(ns) <= *spec.max, spec.key);
      break;
    }
    case ParamType::kEnum:
      FUZZ_CHECK(std::find(spec.choices.begin(), spec.choices.end(), text) != spec.choices.end(),
                 text);
      break;
    case ParamType::kString:
      break;
    case ParamType::kSizeList: {
      const auto& values = params.get_u64_list(spec.key);
      FUZZ_CHECK(!values.empty(), spec.key);
      for (const std::uint64_t value : values) {
        FUZZ_CHECK(!spec.min || value >= *spec.min, spec.key);
        FUZZ_CHECK(!spec.max || value <= *spec.max, spec.key);
      }
      break;
    }
  }
}

bool same_value(const Params& a, const Params& b, const ParamSpec& spec) {
  switch (spec.type) {
    case ParamType::kBool:
      return a.get_bool(spec.key) == b.get_bool(spec.key);
    case ParamType::kCount:
    case ParamType::kSize:
      return a.get_u64(spec.key) == b.get_u64(spec.key);
    case ParamType::kInt:
      return a.get_int(spec.key) == b.get_int(spec.key);
    case ParamType::kDouble:
      return a.get_double(spec.key) == b.get_double(spec.key);
    case ParamType::kDuration:
      return a.get_duration(spec.key) == b.get_duration(spec.key);
    case ParamType::kEnum:
    case ParamType::kString:
      return a.get_string(spec.key) == b.get_string(spec.key);
    case ParamType::kSizeList:
      return a.get_u64_list(spec.key) == b.get_u64_list(spec.key);
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = iobench::fuzz::as_text(data, size);
  const std::size_t first_eol = std::min(text.find('\n'), text.size());
  const iobench::WorkloadInfo* info = nullptr;
  try {
    info = &registry().workload(text.substr(0, first_eol));
  } catch (const iobench::ConfigError&) {
    return -1;  // not a workload name: not worth keeping in the corpus
  }
  std::map<std::string, std::string> raw;
  for (std::size_t pos = first_eol + 1; pos < text.size();) {
    const std::size_t eol = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    const std::size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    raw[std::string(line.substr(0, eq))] = std::string(line.substr(eq + 1));
  }

  const iobench::SizeContext machine{.ram_bytes = 8 * iobench::kGiB, .targets = 2};
  std::optional<Params> params;
  try {
    params = Params::validate(info->params, raw, info->name, machine);
  } catch (const iobench::ConfigError& e) {
    FUZZ_CHECK(std::string_view(e.what()).starts_with(info->name + ": "), e.what());
    return 0;
  }
  for (const ParamSpec& spec : info->params) {
    const bool given = raw.count(spec.key) > 0;
    FUZZ_CHECK(params->given(spec.key) == given, spec.key);
    FUZZ_CHECK(params->has(spec.key) == (given || !spec.default_value.empty()), spec.key);
    if (params->has(spec.key)) check_value(*params, spec);
  }
  FUZZ_CHECK(params->as_text().size() <= info->params.size(), info->name);

  const Params again = Params::validate(info->params, params->as_text(), info->name, machine);
  FUZZ_CHECK(again.as_text() == params->as_text(), info->name);
  for (const ParamSpec& spec : info->params) {
    if (params->has(spec.key)) FUZZ_CHECK(same_value(*params, again, spec), spec.key);
  }
  return 0;
}
