#include "plugins/dbench/loadfile_program.hpp"

#include <algorithm>

namespace iobench::plugins::dbench {

namespace {

struct OpNames {
  std::string_view table;
  std::string_view loadfile;
};

constexpr std::array<OpNames, 23> kNames{{
    {"NTCreateX", "NTCreateX"},
    {"Close", "Close"},
    {"Rename", "Rename"},
    {"Unlink", "Unlink"},
    {"Deltree", "Deltree"},
    {"Rmdir", "Rmdir"},
    {"Mkdir", "Mkdir"},
    {"Qpathinfo", "QUERY_PATH_INFORMATION"},
    {"Qfileinfo", "QUERY_FILE_INFORMATION"},
    {"Qfsinfo", "QUERY_FS_INFORMATION"},
    {"Sfileinfo", "SET_FILE_INFORMATION"},
    {"Find", "FIND_FIRST"},
    {"WriteX", "WriteX"},
    {"ReadX", "ReadX"},
    {"LockX", "LockX"},
    {"UnlockX", "UnlockX"},
    {"Flush", "Flush"},
    {"Sleep", "Sleep"},
    {"LOOP", "LOOP"},
    {"ENDLOOP", "ENDLOOP"},
    {"REPEAT", "REPEAT"},
    {"WRITEPATTERN", "WRITEPATTERN"},
    {"RANDOMSTRING", "RANDOMSTRING"},
}};

template <typename T>
std::size_t vector_bytes(const std::vector<T>& v) noexcept {
  return v.capacity() * sizeof(T);
}

std::size_t string_heap_bytes(const std::string& s) noexcept {
  // Short strings live inside the object (libstdc++ keeps up to 15 characters in place).
  return s.capacity() > 15 ? s.capacity() + 1 : 0;
}

}  // namespace

std::string_view table_name(OpCode op) noexcept {
  return kNames[static_cast<std::size_t>(op)].table;
}

std::string_view loadfile_name(OpCode op) noexcept {
  return kNames[static_cast<std::size_t>(op)].loadfile;
}

const std::array<std::string_view, kTabulatedOps>& table_op_names() noexcept {
  static const std::array<std::string_view, kTabulatedOps> names = [] {
    std::array<std::string_view, kTabulatedOps> out{};
    for (std::size_t i = 0; i < kTabulatedOps; ++i) out[i] = kNames[i].table;
    return out;
  }();
  return names;
}

namespace {

// Program encoding, per instruction:
//   op byte      OpCode (bits 0-4) | kTimestamp | kLineJump | kHasB
//   flags byte   Instruction::flags (bits 0-2, 4-5) | kHasA | value count (bits 6-7)
//   status       varint
//   [line delta] varint, when kLineJump (else the previous line + 1)
//   [timestamp]  varint ns, when kTimestamp
//   [a]          4 bytes little-endian for kLoopBegin (patched at its ENDLOOP), else varint
//   [b]          varint, when kHasB
//   values       the first `value count` slots, zigzag varints; ReadX/WriteX slot 2 (the expected
//                size) as its difference from slot 1 when both are constants.
constexpr std::uint8_t kOpMask = 0x1f;
constexpr std::uint8_t kTimestamp = 0x20;
constexpr std::uint8_t kLineJump = 0x40;
constexpr std::uint8_t kHasB = 0x80;
constexpr std::uint8_t kFlagsMask = 0x37;
constexpr std::uint8_t kHasA = 0x08;
constexpr unsigned kValueCountShift = 6;

/// Longest encoding of one instruction: two bytes, four varints of up to 10 bytes (status, line,
/// timestamp, b), a (4 or 5 bytes) and three values of up to 10.
constexpr std::size_t kMaxEncoded = 2 + 4 * 10 + 5 + 3 * 10;

std::uint8_t* put_varint(std::uint8_t* out, std::uint64_t v) noexcept {
  while (v >= 0x80) {
    *out++ = static_cast<std::uint8_t>(v | 0x80);
    v >>= 7;
  }
  *out++ = static_cast<std::uint8_t>(v);
  return out;
}

std::uint64_t get_varint(const std::uint8_t*& p) noexcept {
  std::uint64_t v = 0;
  for (unsigned shift = 0;; shift += 7) {
    const std::uint8_t byte = *p++;
    v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return v;
  }
}

std::uint64_t zigzag(std::int64_t v) noexcept {
  const auto u = static_cast<std::uint64_t>(v);
  return (u << 1) ^ (v < 0 ? ~std::uint64_t{0} : 0);
}

std::int64_t unzigzag(std::uint64_t u) noexcept {
  return static_cast<std::int64_t>((u >> 1) ^ (~(u & 1) + 1));
}

bool size_delta(OpCode op, std::uint8_t flags) noexcept {
  return (op == OpCode::kReadX || op == OpCode::kWriteX) &&
         (flags & ((Instruction::kValueIsExpr << 1) | (Instruction::kValueIsExpr << 2))) == 0;
}

}  // namespace

void Program::push_back(const Instruction& ins) {
  const std::size_t end = byte_base_ + bytes_.size();
  if (count_ % kCheckpointEvery == 0) checkpoints_.push_back({end, last_line_});
  last_offset_ = end;
  std::size_t values = 3;
  while (values > 0 && ins.value[values - 1] == 0) --values;
  const bool loop = ins.op == OpCode::kLoopBegin;
  const bool has_a = loop || ins.a != kNoId;
  const bool has_b = ins.b != kNoId;
  const std::uint32_t delta = ins.line - last_line_;
  std::uint8_t encoded[kMaxEncoded];
  std::uint8_t* q = encoded;
  *q++ = static_cast<std::uint8_t>(static_cast<std::uint8_t>(ins.op) |
                                   (ins.timestamp_ns >= 0 ? kTimestamp : 0) |
                                   (delta != 1 ? kLineJump : 0) | (has_b ? kHasB : 0));
  *q++ = static_cast<std::uint8_t>((ins.flags & kFlagsMask) | (has_a ? kHasA : 0) |
                                   (values << kValueCountShift));
  q = put_varint(q, ins.status);
  if (delta != 1) q = put_varint(q, delta);
  if (ins.timestamp_ns >= 0) q = put_varint(q, static_cast<std::uint64_t>(ins.timestamp_ns));
  if (loop) {
    for (unsigned i = 0; i < 4; ++i) *q++ = static_cast<std::uint8_t>(ins.a >> (8 * i));
  } else if (has_a) {
    q = put_varint(q, ins.a);
  }
  if (has_b) q = put_varint(q, ins.b);
  for (std::size_t i = 0; i < values; ++i) {
    std::int64_t v = ins.value[i];
    if (i == 2 && size_delta(ins.op, ins.flags)) {
      v = static_cast<std::int64_t>(static_cast<std::uint64_t>(v) -
                                    static_cast<std::uint64_t>(ins.value[1]));
    }
    q = put_varint(q, zigzag(v));
  }
  bytes_.insert(bytes_.end(), encoded, q);
  line_before_last_ = last_line_;
  last_line_ = ins.line;
  ++count_;
}

void Program::pop_back() noexcept {
  --count_;
  if (count_ % kCheckpointEvery == 0) checkpoints_.pop_back();
  bytes_.resize(last_offset_ - byte_base_);
  last_line_ = line_before_last_;
}

void Program::drop_before(std::size_t i) {
  if (count_ == 0) return;
  const std::size_t keep = std::min(i, count_ - 1) / kCheckpointEvery * kCheckpointEvery;
  if (keep <= first_) return;
  const Checkpoint& cp = checkpoint_of(keep);
  bytes_.erase(bytes_.begin(),
               bytes_.begin() + static_cast<std::ptrdiff_t>(cp.offset - byte_base_));
  byte_base_ = cp.offset;
  checkpoints_.erase(
      checkpoints_.begin(),
      checkpoints_.begin() + static_cast<std::ptrdiff_t>((keep - first_) / kCheckpointEvery));
  first_ = keep;
}

void Program::set_loop_end(std::size_t i, std::uint32_t end) noexcept {
  std::size_t offset = checkpoint_of(i).offset;
  std::uint32_t line = checkpoint_of(i).line;
  for (std::size_t k = i / kCheckpointEvery * kCheckpointEvery; k < i; ++k) {
    Instruction skipped;
    offset = decode(offset, line, skipped);
    line = skipped.line;
  }
  // The fixed-width field follows the op and flags bytes, the status, the optional line delta
  // and timestamp.
  const std::uint8_t* q = at_offset(offset);
  const std::uint8_t op = *q;
  q += 2;
  (void)get_varint(q);
  if ((op & kLineJump) != 0) (void)get_varint(q);
  if ((op & kTimestamp) != 0) (void)get_varint(q);
  std::uint8_t* field = bytes_.data() + (q - bytes_.data());  // q points into bytes_
  for (unsigned b = 0; b < 4; ++b) field[b] = static_cast<std::uint8_t>(end >> (8 * b));
}

std::size_t Program::decode(std::size_t offset, std::uint32_t prev_line,
                            Instruction& out) const noexcept {
  const std::uint8_t* p = at_offset(offset);
  const std::uint8_t op_byte = *p++;
  const std::uint8_t flags = *p++;
  out.op = static_cast<OpCode>(op_byte & kOpMask);
  out.flags = static_cast<std::uint8_t>(flags & kFlagsMask);
  out.status = static_cast<std::uint16_t>(get_varint(p));
  out.line =
      prev_line + ((op_byte & kLineJump) != 0 ? static_cast<std::uint32_t>(get_varint(p)) : 1);
  out.timestamp_ns = (op_byte & kTimestamp) != 0 ? static_cast<std::int64_t>(get_varint(p)) : -1;
  if (out.op == OpCode::kLoopBegin) {
    out.a = static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
            static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
    p += 4;
  } else {
    out.a = (flags & kHasA) != 0 ? static_cast<std::uint32_t>(get_varint(p)) : kNoId;
  }
  out.b = (op_byte & kHasB) != 0 ? static_cast<std::uint32_t>(get_varint(p)) : kNoId;
  const unsigned values = flags >> kValueCountShift;
  out.value = {};
  for (unsigned i = 0; i < values; ++i) out.value[i] = unzigzag(get_varint(p));
  if (values == 3 && size_delta(out.op, out.flags)) {
    out.value[2] = static_cast<std::int64_t>(static_cast<std::uint64_t>(out.value[2]) +
                                             static_cast<std::uint64_t>(out.value[1]));
  }
  return byte_base_ + static_cast<std::size_t>(p - bytes_.data());
}

const Instruction& Program::Cursor::at(std::size_t i) noexcept {
  if (i == index_) return current_;
  if (i == index_ + 1) {
    const std::uint32_t prev_line = index_ == static_cast<std::size_t>(-1) ? 0 : current_.line;
    next_offset_ = program_->decode(next_offset_, prev_line, current_);
    index_ = i;
    return current_;
  }
  seek(i);
  return current_;
}

void Program::Cursor::seek(std::size_t i) noexcept {
  const Checkpoint& cp = program_->checkpoint_of(i);
  std::size_t offset = cp.offset;
  std::uint32_t line = cp.line;
  for (std::size_t k = i / kCheckpointEvery * kCheckpointEvery;; ++k) {
    offset = program_->decode(offset, line, current_);
    line = current_.line;
    if (k == i) break;
  }
  index_ = i;
  next_offset_ = offset;
}

void Program::shrink_to_fit() {
  // Not bytes_: its unused capacity was never written, so it costs address space, not memory,
  // while a shrinking copy would hold the program twice at the peak.
  checkpoints_.shrink_to_fit();
}

std::size_t Program::memory_bytes() const noexcept {
  return bytes_.size() + checkpoints_.capacity() * sizeof(Checkpoint);
}

std::size_t Loadfile::memory_bytes() const noexcept {
  std::size_t total = sizeof(*this) + string_heap_bytes(name);
  total += code.memory_bytes() + vector_bytes(paths) + vector_bytes(strings) +
           vector_bytes(statuses) + vector_bytes(handles) + vector_bytes(exprs) +
           vector_bytes(expr_steps) + vector_bytes(top_level_names) + vector_bytes(client_roots) +
           vector_bytes(stats.unknown_ops) + handle_index.memory_bytes() +
           path_index.memory_bytes();
  for (const auto& p : paths) total += string_heap_bytes(p.text);
  for (const auto& s : strings) total += string_heap_bytes(s);
  for (const auto& s : statuses) total += string_heap_bytes(s);
  for (const auto& s : top_level_names) total += string_heap_bytes(s);
  for (const auto& s : client_roots) total += string_heap_bytes(s);
  for (const auto& u : stats.unknown_ops) total += string_heap_bytes(u.name);
  return total;
}

}  // namespace iobench::plugins::dbench
