#include <iobench/result.hpp>
#include <span>

namespace iobench {

const char* to_string(Status status) noexcept {
  switch (status) {
    case Status::kOk:
      return "ok";
    case Status::kFailed:
      return "failed";
    case Status::kInterrupted:
      return "interrupted";
    case Status::kSkipped:
      return "skipped";
    case Status::kNoMeasurement:
      return "no_measurement";
  }
  return "unknown";
}

Status worse(Status a, Status b) noexcept {
  const auto rank = [](Status s) {
    switch (s) {
      case Status::kOk:
        return 0;
      case Status::kSkipped:
        return 1;
      case Status::kNoMeasurement:
        return 2;
      case Status::kInterrupted:
        return 3;
      case Status::kFailed:
        return 4;
    }
    return 0;
  };
  return rank(b) > rank(a) ? b : a;
}

namespace {

std::uint64_t sum_bytes(std::span<const OpResult> ops) noexcept {
  std::uint64_t bytes = 0;
  for (const OpResult& op : ops) bytes += op.bytes;
  return bytes;
}

std::uint64_t sum_ops(std::span<const OpResult> ops) noexcept {
  std::uint64_t count = 0;
  for (const OpResult& op : ops) count += op.ops;
  return count;
}

}  // namespace

std::uint64_t WorkerResult::total_bytes() const noexcept { return sum_bytes(ops); }
std::uint64_t WorkerResult::total_ops() const noexcept { return sum_ops(ops); }
std::uint64_t PhaseResult::total_bytes() const noexcept { return sum_bytes(ops); }
std::uint64_t PhaseResult::total_ops() const noexcept { return sum_ops(ops); }

double PhaseResult::throughput_bytes_per_s() const noexcept {
  return iobench::throughput_bytes_per_s(total_bytes(), wall_ns);
}

double PhaseResult::throughput_bytes_per_s(std::size_t op) const noexcept {
  if (op >= ops.size()) return 0;
  return iobench::throughput_bytes_per_s(ops[op].bytes, wall_ns);
}

OpResult PhaseResult::all_ops() const {
  OpResult all;
  for (const OpResult& op : ops) all.merge(op);
  return all;
}

std::size_t PhaseResult::op_index(std::string_view op_name) const noexcept {
  for (std::size_t i = 0; i < op_names.size(); ++i) {
    if (op_names[i] == op_name) return i;
  }
  return op_names.size();
}

const AttributeValue* StepResult::attribute(std::string_view key) const noexcept {
  // The runner replaces an attribute set twice, but a hand-built result may repeat a key: the
  // last value wins, as in the JSON object the reporters write.
  const AttributeValue* found = nullptr;
  for (const auto& [attribute_key, value] : attributes) {
    if (attribute_key == key) found = &value;
  }
  return found;
}

}  // namespace iobench
