#include "plugins/filebench/randvar.hpp"

#include <algorithm>
#include <cmath>

#include "plugins/filebench/wml_limits.hpp"

namespace iobench::plugins::filebench {

namespace {

struct TableShape {
  double low = 0;   ///< the lowest row min
  double mean = 0;  ///< the table's own mean: sum of percent x (min + max) / 2, / 100
};

TableShape table_shape(const RandVarDef& v) noexcept {
  TableShape t;
  bool first = true;
  for (const RandVarDef::Row& r : v.table) {
    t.low = first ? r.min : std::min(t.low, r.min);
    first = false;
    t.mean += r.percent * (r.min + r.max) / 2.0;
  }
  t.mean /= 100.0;
  return t;
}

double table_draw(const RandVarDef& v, Rng& rng) noexcept {
  const TableShape t = table_shape(v);
  const double mean = v.mean != 0 ? v.mean : t.mean;
  const auto min = static_cast<double>(v.min);
  // filebench spreads the rows over 100 one-percent slots: the slot picks the row, the draw's
  // place within its slot the point within the row.
  const double slots = rng.unit() * 100.0;
  const auto slot = static_cast<std::uint32_t>(slots);
  const RandVarDef::Row* row = &v.table.back();
  std::uint32_t upto = 0;
  for (const RandVarDef::Row& r : v.table) {
    upto += r.percent;
    if (slot < upto) {
      row = &r;
      break;
    }
  }
  const double x = row->min + (row->max - row->min) * (slots - slot);
  if (t.mean == t.low) return min;  // a constant table
  return (x - t.low) / (t.mean - t.low) * (mean - min) + min;
}

}  // namespace

double randvar_mean(const RandVarDef& v) noexcept {
  if (v.type == RandVarDef::Type::kTabular && v.mean == 0) return table_shape(v).mean;
  return v.mean;
}

std::uint64_t draw_randvar(const RandVarDef& v, Rng& rng) noexcept {
  const auto min = static_cast<double>(v.min);
  double x = min;
  switch (v.type) {
    case RandVarDef::Type::kUniform:
      x = min + rng.unit() * 2.0 * (v.mean - min);
      break;
    case RandVarDef::Type::kGamma:
      if (v.mean > min) x = min + rng.gamma(v.shape, (v.mean - min) / v.shape);
      break;
    case RandVarDef::Type::kTabular:
      x = table_draw(v, rng);
      break;
  }
  if (v.round != 0) {
    const auto round = static_cast<double>(v.round);
    x = std::round(x / round) * round;
  }
  // NaN or below 0 (a table scaled below min) to 0, far draws to the cap: never an unsafe cast.
  if (!(x > 0)) return 0;
  return x < static_cast<double>(kMaxSizeBytes) ? static_cast<std::uint64_t>(x) : kMaxSizeBytes;
}

}  // namespace iobench::plugins::filebench
