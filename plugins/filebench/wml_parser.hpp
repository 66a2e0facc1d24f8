#pragma once

/// Parser of filebench's Workload Model Language into a WmlModel.
///
/// Accepted: `set $var=value` (numbers with k/m/g/t suffixes, words, "strings", and
/// `cvar(type=T,parameters=NAME:VALUE;...,min=,max=,round=)` of filebench 1.5's cvar types:
/// wml_cvar_parser.cpp), `set mode quit timeout|firstdone|alldone`, `define fileset` and
/// `define file` (name, path, size/filesize, entries, leafdirs, dirwidth, dirgamma,
/// prealloc[=percent], paralloc, reuse, readonly), `define process` (name, instances, nice) holding
/// `thread` (name, instances, memsize, useism) holding `flowop KIND name=...`
/// (filesetname/filename, iosize, fd, srcfd, iters, opennext, random, dsync, value, target,
/// highwater, blocking; directio on createfile, openfile and the flowops that read or write, its
/// iosize a multiple of 512 bytes; indexed on the flowops that pick a file; workingset on read,
/// write and aiowrite), `set $v = randvar(...)` and `define randvar name=$v,
/// ...` (wml_randvar_parser.cpp), `eventgen rate=N`, `run [N]`, `psrun [[-]P [D]]` (a run with a
/// stats line every P seconds), `sleep N|$var` before the run (a pause before or after `create
/// files` as written), `enable lathist` and `disable lathist` (iobench's extension, filebench
/// 1.5 has no `disable`: the last of them above `run` decides), `set mode nousestats`, `create
/// files`, `echo "..."` and `#` comments.
///
/// Errors (ConfigError, "FILE:LINE:COL: problem; fix"): any statement after `run` or `psrun`
/// (filebench ends with its run and never reaches it); unknown statements, attributes and
/// flowops; malformed values; a variable used before it is set; a flowop naming an undefined
/// fileset, or makedir/removedir one without leafdirs. A statement, attribute, flowop or cvar
/// type that filebench accepts but iobench does not model yet (system, print, ...) is an error
/// saying so, never silently ignored; `enable multi` and `domultisync` (filebench's
/// multi-client sync server) are errors naming mpirun, under which iobench runs a workload on
/// several clients, each phase starting at a barrier across them; a `disable` of anything but
/// lathist is an error, and so is a flowop named by one of filebench's keywords
/// (kFilebenchKeywords), which filebench's parser refuses.
///
/// `include "PATH"` is iobench's extension (filebench 1.5's lexer has no such word: its parser
/// stops there). PATH is relative to the directory of the including file (or absolute); the
/// included file's statements are parsed in place, as if written there: the variables set before
/// are visible in it, those it sets are visible after. At most kMaxWmlIncludeDepth files deep and
/// kMaxWmlIncludes include statements in all; a file including itself, directly or through
/// others, is an error naming the chain: after the read, files are compared by the identity of
/// the file the reader opened (st_dev, st_ino, WmlFileText::identity), so a cycle through
/// symbolic or hard links is found at its first repeat, the message adding which file on the
/// chain the path names when the paths differ; only where a side has no identity (text from
/// memory) by their absolute, lexically normal path, which is not the file when the path goes
/// through a symbolic link ("link/../main.f" where link points elsewhere is another file). An
/// error inside an included file names that file, line and column, then " (included from
/// FILE:LINE, from FILE:LINE)" up to the main file, now and after the parse (WmlPosition::file,
/// WmlModel::located). Each included file is read whole before it is parsed. Parsing text from
/// memory (parse_wml without a reader) refuses `include`: only a reader given by the caller ever
/// opens a file.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <iobench/file_util.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "plugins/filebench/wml_model.hpp"

namespace iobench::plugins::filebench {

/// Largest .f file, the main one or an included one: 1 MiB (a .f file is a short script).
inline constexpr std::size_t kMaxWmlFileBytes = std::size_t{1} << 20;
/// Most files nested by `include` below the main file (the main file is depth 0).
inline constexpr std::size_t kMaxWmlIncludeDepth = 16;
/// Most `include` statements one parse follows, all files together (bounds the text a few
/// files including each other several times can make the parser read).
inline constexpr std::size_t kMaxWmlIncludes = 256;

/// The text of a .f file and, where it was read from the file system, which file it was.
struct WmlFileText {
  std::string text;
  /// The file opened (st_dev, st_ino); none for a text from memory (compared by path alone).
  std::optional<InputFileIdentity> identity;

  /// A text without identity: a reader may return the text alone (from memory).
  WmlFileText(std::string t) : text(std::move(t)) {}  // NOLINT(google-explicit-constructor)
  WmlFileText(std::string t, InputFileIdentity id) : text(std::move(t)), identity(id) {}
};

/// Returns the text of the file an `include` names (`path`: PATH joined to the directory of the
/// including file, as shown in messages), with the identity of the file opened where there is
/// one. Throws ConfigError naming the path if it cannot be read.
using WmlIncludeReader = std::function<WmlFileText(const std::filesystem::path& path)>;

/// Parses the .f text `text`; `file_name` names it in errors. `include` is refused (nothing is
/// read from the file system). Throws ConfigError (see above).
[[nodiscard]] WmlModel parse_wml(std::string_view text, std::string_view file_name);

/// Parses the .f text `text` named `file_name` (whose directory included paths are relative to),
/// reading each included file with `read_include`. Throws ConfigError (see above), and the
/// reader's errors prefixed with the `include` statement's position.
[[nodiscard]] WmlModel parse_wml(std::string_view text, std::string_view file_name,
                                 const WmlIncludeReader& read_include);

/// The text of the .f file `path` (main or included) and the identity of the file opened, read
/// by read_input_file: at most kMaxWmlFileBytes, a regular file. Throws ConfigError naming the
/// path with the errno text (missing, unreadable, a directory, a device or FIFO, too large);
/// IoError on a read error.
[[nodiscard]] WmlFileText read_wml_file(const std::filesystem::path& path);

/// Reads the .f file `path` and parses it, its includes read by read_wml_file.
[[nodiscard]] WmlModel parse_wml_file(const std::string& path);

}  // namespace iobench::plugins::filebench
