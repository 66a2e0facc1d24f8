#pragma once

// Parsing of /proc/<pid>/mountinfo (proc(5)), as pure functions of text so they are testable
// without the running system's mounts. Header-only: sysinfo.cpp and the tests compile it.
//
// A line looks like
//   36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw,errors=continue
//   (1)(2) (3)   (4)     (5)        (6)       (7)   (8) (9)   (10)         (11)
// (1) mount id, (2) parent id, (3) st_dev major:minor, (4) root of the mount in its filesystem,
// (5) mount point, (6) per-mount options, (7) zero or more optional fields ended by (8) "-",
// (9) filesystem type, (10) mount source (the device, or e.g. "tmpfs"), (11) superblock options.
// Fields are separated by single spaces; the kernel escapes space, tab, newline and backslash
// inside fields as three-digit octal sequences (\040, \011, \012, \134). A source may be empty,
// which shows as two spaces in a row, so fields are split on every space, not on runs of them.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iobench::detail {

/// One mount, fields unescaped.
struct MountEntry {
  int mount_id = 0;
  int parent_id = 0;
  std::string device_number;  ///< "major:minor"
  std::string root;           ///< root of the mount within its filesystem
  std::string mount_point;
  std::string mount_options;  ///< per-mount options, e.g. "rw,relatime"
  std::string fs_type;        ///< e.g. "ext4", "fuse.sshfs"
  std::string source;         ///< e.g. "/dev/sda1", "tmpfs", "" when the kernel shows none
  std::string super_options;  ///< superblock options, e.g. "rw,errors=remount-ro"
};

/// Undoes the kernel's octal escapes ("\040" -> ' '). A backslash not followed by three octal
/// digits is kept as it is.
[[nodiscard]] inline std::string unescape_mountinfo_field(std::string_view field) {
  std::string out;
  out.reserve(field.size());
  const auto is_octal = [](char c) { return c >= '0' && c <= '7'; };
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size() && is_octal(field[i + 1]) &&
        is_octal(field[i + 2]) && is_octal(field[i + 3])) {
      const int value = (field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 + (field[i + 3] - '0');
      if (value < 256) {
        out.push_back(static_cast<char>(value));
        i += 3;
        continue;
      }
    }
    out.push_back(field[i]);
  }
  return out;
}

/// Parses one mountinfo line; std::nullopt if it does not have the documented shape.
[[nodiscard]] inline std::optional<MountEntry> parse_mountinfo_line(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t space = line.find(' ', start);
    fields.push_back(line.substr(start, space == std::string_view::npos ? space : space - start));
    if (space == std::string_view::npos) break;
    start = space + 1;
  }
  // Six fixed fields, the "-" separator, then three more.
  std::size_t separator = 6;
  while (separator < fields.size() && fields[separator] != "-") ++separator;
  if (separator >= fields.size() || fields.size() != separator + 4) return std::nullopt;

  const auto to_int = [](std::string_view text) -> std::optional<int> {
    if (text.empty() || text.size() > 9) return std::nullopt;
    int value = 0;
    for (char c : text) {
      if (c < '0' || c > '9') return std::nullopt;
      value = value * 10 + (c - '0');
    }
    return value;
  };
  const std::optional<int> mount_id = to_int(fields[0]);
  const std::optional<int> parent_id = to_int(fields[1]);
  if (!mount_id || !parent_id || fields[2].find(':') == std::string_view::npos ||
      fields[4].empty() || fields[4].front() != '/') {
    return std::nullopt;
  }
  MountEntry entry;
  entry.mount_id = *mount_id;
  entry.parent_id = *parent_id;
  entry.device_number = std::string(fields[2]);
  entry.root = unescape_mountinfo_field(fields[3]);
  entry.mount_point = unescape_mountinfo_field(fields[4]);
  entry.mount_options = unescape_mountinfo_field(fields[5]);
  entry.fs_type = unescape_mountinfo_field(fields[separator + 1]);
  entry.source = unescape_mountinfo_field(fields[separator + 2]);
  entry.super_options = unescape_mountinfo_field(fields[separator + 3]);
  return entry;
}

/// Parses a whole mountinfo text, in order, skipping lines that do not parse.
[[nodiscard]] inline std::vector<MountEntry> parse_mountinfo(std::string_view text) {
  std::vector<MountEntry> entries;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    if (auto entry = parse_mountinfo_line(text.substr(start, end - start))) {
      entries.push_back(std::move(*entry));
    }
    start = end + 1;
  }
  return entries;
}

/// True if `mount_point` is `path` or a directory above it ("/mnt/a" holds "/mnt/a/x" but not
/// "/mnt/ab"). Both must be absolute and lexically normal.
[[nodiscard]] inline bool mount_point_contains(std::string_view mount_point,
                                               std::string_view path) {
  if (mount_point == "/") return !path.empty() && path.front() == '/';
  if (path.size() < mount_point.size() || path.substr(0, mount_point.size()) != mount_point) {
    return false;
  }
  return path.size() == mount_point.size() || path[mount_point.size()] == '/';
}

/// The mount holding the absolute, canonical `path`: the longest mount point that contains it;
/// among mounts on the same point the last one listed (it hides the earlier ones). nullptr if
/// none does.
[[nodiscard]] inline const MountEntry* find_mount(const std::vector<MountEntry>& mounts,
                                                  std::string_view path) {
  const MountEntry* best = nullptr;
  for (const MountEntry& entry : mounts) {
    if (!mount_point_contains(entry.mount_point, path)) continue;
    if (best == nullptr || entry.mount_point.size() >= best->mount_point.size()) best = &entry;
  }
  return best;
}

/// Per-mount options followed by the superblock options not already among them, comma-separated
/// ("rw,relatime" + "rw,errors=remount-ro" -> "rw,relatime,errors=remount-ro").
[[nodiscard]] inline std::string combined_mount_options(const MountEntry& entry) {
  std::vector<std::string_view> seen;
  std::string out;
  const auto add_all = [&](std::string_view list) {
    std::size_t start = 0;
    while (start <= list.size()) {
      std::size_t end = list.find(',', start);
      if (end == std::string_view::npos) end = list.size();
      const std::string_view option = list.substr(start, end - start);
      bool duplicate = option.empty();
      for (std::string_view s : seen) duplicate = duplicate || s == option;
      if (!duplicate) {
        seen.push_back(option);
        if (!out.empty()) out += ',';
        out += option;
      }
      start = end + 1;
    }
  };
  add_all(entry.mount_options);
  add_all(entry.super_options);
  return out;
}

}  // namespace iobench::detail
