#pragma once

#include <filesystem>
#include <string>

namespace iobench::plugins::dbench {

/// Reads the whole text of a loadfile, plain or gzip-compressed (recognised by its content, not
/// its name, and decompressed with zlib as dbench 4.x/5.0 does). At most kMaxLoadfileBytes of text.
/// Throws ConfigError naming the path: missing or unreadable file, corrupt gzip data, too large.
[[nodiscard]] std::string read_loadfile_text(const std::filesystem::path& path);

/// The largest loadfile text accepted (1 GiB; Debian's client.txt is 25 MiB).
inline constexpr std::size_t kMaxLoadfileBytes = std::size_t{1} << 30;

}  // namespace iobench::plugins::dbench
