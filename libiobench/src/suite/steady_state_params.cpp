// The steady-state params a workload declares (steady_state, ss_dur, ss_ramp, ss_interval), as
// fio names them, and the SteadyStateConfig they give.
#include <fmt/format.h>

#include <iobench/error.hpp>
#include <iobench/steady_state.hpp>

namespace iobench {

std::vector<ParamSpec> steady_state_param_specs() {
  return {
      {.key = "steady_state",
       .type = ParamType::kString,
       .help = "stop a timed phase once steady: fio's iops|bw[_slope]:LIMIT[%] or pts[:iops|bw] "
               "(SNIA PTS 2.0 rounds); unset: off"},
      {.key = "ss_dur",
       .type = ParamType::kDuration,
       .default_value = "30s",
       .unit = "s",
       .help = "steady_state: the rolling window (fio rules; a multiple of ss_interval)",
       .min = 1},
      {.key = "ss_ramp",
       .type = ParamType::kDuration,
       .default_value = "0s",
       .unit = "s",
       .help = "steady_state: run this long after the measurement starts before sampling"},
      {.key = "ss_interval",
       .type = ParamType::kDuration,
       .default_value = "1s",
       .unit = "s",
       .help = "steady_state: one sample per interval (PTS: the round length)",
       .min = 1'000'000},
  };
}

std::optional<SteadyStateConfig> steady_state_from_params(const Params& params,
                                                          std::string_view workload) {
  if (!params.has("steady_state") || params.get_string("steady_state").empty()) return std::nullopt;
  SteadyStateConfig config;
  const std::string field = fmt::format("{}: steady_state", workload);
  config.criterion = parse_steady_state_criterion(params.get_string("steady_state"), field);
  if (config.criterion.metric == SteadyStateMetric::kLatency) {
    throw ConfigError(fmt::format(
        "{}: '{}': a phase samples IOPS and throughput only, not latency; use iops, bw, "
        "iops_slope, bw_slope or pts:iops, pts:bw",
        field, params.get_string("steady_state")));
  }
  config.window = params.get_duration("ss_dur");
  config.ramp = params.get_duration("ss_ramp");
  config.interval = params.get_duration("ss_interval");
  validate(config, workload);
  return config;
}

}  // namespace iobench
