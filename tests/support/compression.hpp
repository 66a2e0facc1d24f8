#pragma once

#include <zlib.h>

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace iobench::test {

/// Size of `data` after zlib compression (compress2, level 6: what gzip does by default)
/// divided by its size: ~1.0 for incompressible data, ~0.001 for zeros. Link ZLIB::ZLIB.
inline double zlib_ratio(std::span<const std::byte> data) {
  uLongf out_size = compressBound(static_cast<uLong>(data.size()));
  std::vector<Bytef> out(out_size);
  if (compress2(out.data(), &out_size, reinterpret_cast<const Bytef*>(data.data()),
                static_cast<uLong>(data.size()), 6) != Z_OK) {
    throw std::runtime_error("compress2 failed");
  }
  return static_cast<double>(out_size) / static_cast<double>(data.size());
}

inline double zlib_ratio(std::string_view data) {
  return zlib_ratio(std::as_bytes(std::span<const char>(data.data(), data.size())));
}

}  // namespace iobench::test
