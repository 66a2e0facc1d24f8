#include "plugins/dbench/loadfile_program.hpp"

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

std::size_t Loadfile::memory_bytes() const noexcept {
  std::size_t total = sizeof(*this) + string_heap_bytes(name);
  total += vector_bytes(code) + vector_bytes(paths) + vector_bytes(strings) +
           vector_bytes(statuses) + vector_bytes(handles) + vector_bytes(exprs) +
           vector_bytes(expr_steps) + vector_bytes(top_level_names) + vector_bytes(client_roots) +
           vector_bytes(stats.unknown_ops);
  for (const auto& p : paths) total += string_heap_bytes(p.text);
  for (const auto& s : strings) total += string_heap_bytes(s);
  for (const auto& s : statuses) total += string_heap_bytes(s);
  for (const auto& s : top_level_names) total += string_heap_bytes(s);
  for (const auto& s : client_roots) total += string_heap_bytes(s);
  for (const auto& u : stats.unknown_ops) total += string_heap_bytes(u.name);
  return total;
}

}  // namespace iobench::plugins::dbench
