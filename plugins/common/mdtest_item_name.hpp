// mdtest's item names, made once per item op by the mdtest workload and io500's mdtest phases.

#pragma once

#include <cstdint>
#include <string>

namespace iobench::plugins {

/// Appends mdtest's item name "file.mdtest.<rank>.<n>" (or "dir.mdtest.<rank>.<n>" with `dirs`)
/// to `out`, as mdtest 4 names its items; no allocation once `out` holds 53 more bytes.
void append_item_name(bool dirs, std::uint64_t rank, std::uint64_t n, std::string& out);

}  // namespace iobench::plugins
