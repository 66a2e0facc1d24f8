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
/// files` as written; after `run` it is an error: filebench ends with its run), `enable
/// lathist`, `set mode nousestats`, `create files`, `echo "..."` and `#` comments.
///
/// Errors (ConfigError, "FILE:LINE:COL: problem; fix"): unknown statements, attributes and
/// flowops; malformed values; a variable used before it is set; a flowop naming an undefined
/// fileset, or makedir/removedir one without leafdirs. A statement, attribute, flowop or cvar
/// type that filebench accepts but iobench does not model yet (system, domultisync, print,
/// enable multi, ...) is an error saying so, never silently ignored; so are `include` and
/// `disable`, which filebench 1.5 has no statement for, and a flowop named by one of filebench's
/// keywords (kFilebenchKeywords), which filebench's parser refuses.

#include <string_view>

#include "plugins/filebench/wml_model.hpp"

namespace iobench::plugins::filebench {

/// Parses the .f text `text`; `file_name` names it in errors. Throws ConfigError (see above).
[[nodiscard]] WmlModel parse_wml(std::string_view text, std::string_view file_name);

}  // namespace iobench::plugins::filebench
