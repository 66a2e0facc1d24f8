#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace iobench::plugins::dbench {

/// The default of the max_loadfile_size param: 128 MiB of text (Debian's client.txt has 25 MiB;
/// its parsed form takes about as much memory again).
inline constexpr std::size_t kDefaultMaxLoadfileBytes = std::size_t{128} << 20;

/// Reads the whole text of a loadfile, plain or gzip-compressed (recognised by its content, not
/// its name, and decompressed with zlib as dbench 4.x/5.0 does), refusing it as soon as it holds
/// more than `max_bytes` of text: memory stays below about `max_bytes` whatever the file, so a
/// small gzip bomb is never inflated into RAM. Throws ConfigError naming the path: missing or
/// unreadable file, corrupt gzip data, more text than `max_bytes` (naming the limit and the
/// max_loadfile_size param that raises it).
[[nodiscard]] std::string read_loadfile_text(const std::filesystem::path& path,
                                             std::size_t max_bytes = kDefaultMaxLoadfileBytes);

}  // namespace iobench::plugins::dbench
