#include "plugins/filebench/cvar.hpp"

#include <array>
#include <cmath>

#include "plugins/filebench/wml_limits.hpp"

namespace iobench::plugins::filebench {

namespace {

using Type = CvarDef::Type;

struct CvarName {
  std::string_view name;  // without filebench's "cvar-" prefix
  Type type;
};
constexpr std::array<CvarName, 8> kCvarNames = {{
    {"gamma", Type::kGamma},
    {"uniform", Type::kUniform},
    {"normal", Type::kNormal},
    {"exponential", Type::kExponential},
    {"erlang", Type::kErlang},
    {"lognormal", Type::kLognormal},
    {"triangular", Type::kTriangular},
    {"weibull", Type::kWeibull},
}};
constexpr std::array<const char*, 8> kFullNames = {
    "cvar-gamma",  "cvar-uniform",   "cvar-normal",     "cvar-exponential",
    "cvar-erlang", "cvar-lognormal", "cvar-triangular", "cvar-weibull"};

}  // namespace

std::optional<CvarDef::Type> cvar_type_of(std::string_view name) noexcept {
  if (name.substr(0, 5) == "cvar-") name.remove_prefix(5);
  for (const CvarName& n : kCvarNames) {
    if (n.name == name) return n.type;
  }
  return std::nullopt;
}

const char* cvar_type_name(CvarDef::Type type) noexcept {
  return kFullNames[static_cast<std::size_t>(type)];
}

double cvar_mean(const CvarDef& c) noexcept {
  const auto& p = c.p;
  switch (c.type) {
    case Type::kGamma:
    case Type::kNormal:
    case Type::kExponential:
      return p[0];
    case Type::kUniform:
      return (p[0] + p[1]) / 2;
    case Type::kErlang:
      return p[1];
    case Type::kLognormal:
      return std::exp(p[1] + p[0] * p[0] / 2);
    case Type::kTriangular:
      return (p[0] + p[1] + p[2]) / 3;
    case Type::kWeibull:
      return p[1] * std::tgamma(1 + 1 / p[0]);
  }
  return 0;
}

double cvar_variance(const CvarDef& c) noexcept {
  const auto& p = c.p;
  switch (c.type) {
    case Type::kGamma:
      return p[0] * p[0] / p[1];
    case Type::kUniform:
      return (p[1] - p[0]) * (p[1] - p[0]) / 12;
    case Type::kNormal:
      return p[1] * p[1];
    case Type::kExponential:
      return p[0] * p[0];
    case Type::kErlang:
      return p[1] * p[1] / p[0];
    case Type::kLognormal:
      return std::expm1(p[0] * p[0]) * std::exp(2 * p[1] + p[0] * p[0]);
    case Type::kTriangular:
      return (p[0] * p[0] + p[1] * p[1] + p[2] * p[2] - p[0] * p[1] - p[0] * p[2] - p[1] * p[2]) /
             18;
    case Type::kWeibull: {
      const double g1 = std::tgamma(1 + 1 / p[0]);
      return p[1] * p[1] * (std::tgamma(1 + 2 / p[0]) - g1 * g1);
    }
  }
  return 0;
}

double draw_cvar_value(const CvarDef& c, Rng& rng) noexcept {
  const auto& p = c.p;
  switch (c.type) {
    case Type::kGamma:
      return rng.gamma(p[1], p[0] / p[1]);
    case Type::kUniform:
      return p[0] + rng.unit() * (p[1] - p[0]);
    case Type::kNormal:
      return p[0] + p[1] * rng.normal();
    case Type::kExponential:
      return -p[0] * std::log(rng.unit());
    case Type::kErlang: {
      // A sum of logarithms rather than the log of a product, which underflows at high shape.
      double logs = 0;
      const auto k = static_cast<std::uint64_t>(p[0]);
      for (std::uint64_t i = 0; i < k; ++i) logs += std::log(rng.unit());
      return -p[1] * logs / static_cast<double>(k);
    }
    case Type::kLognormal:
      return std::exp(p[1] + p[0] * rng.normal());
    case Type::kTriangular: {
      const double lower = p[0];
      const double upper = p[1];
      const double mode = p[2];
      if (upper == lower) return lower;
      const double u = rng.unit();
      const double split = (mode - lower) / (upper - lower);
      return u <= split ? lower + std::sqrt(u * (upper - lower) * (mode - lower))
                        : upper - std::sqrt((1 - u) * (upper - lower) * (upper - mode));
    }
    case Type::kWeibull:
      return p[1] * std::pow(-std::log(rng.unit()), 1 / p[0]);
  }
  return 0;
}

std::uint64_t draw_cvar(const CvarDef& c, Rng& rng) noexcept {
  double x = draw_cvar_value(c, rng);
  if (c.round != 0 && x >= 0 && x < 0x1p63) {
    const auto whole = static_cast<std::uint64_t>(x);
    const std::uint64_t lower = whole - whole % c.round;
    const std::uint64_t upper = lower + c.round;
    x = static_cast<double>(whole - lower > upper - whole ? upper : lower);
  }
  if (x < c.min) x = c.min;
  if (x > c.max) x = c.max;
  // NaN or below 0 to 0, far draws to the cap: never an unsafe cast.
  if (!(x > 0)) return 0;
  return x < static_cast<double>(kMaxSizeBytes) ? static_cast<std::uint64_t>(x) : kMaxSizeBytes;
}

}  // namespace iobench::plugins::filebench
