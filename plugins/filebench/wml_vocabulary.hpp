#pragma once

/// filebench's words that iobench's WML parser knows but does not model: statements, attribute
/// names and flowops it refuses as "accepted by filebench but not modelled by iobench yet".

#include <algorithm>
#include <array>
#include <cstddef>
#include <string_view>

namespace iobench::plugins::filebench {

/// Statements filebench accepts that iobench does not model yet.
inline constexpr std::array<std::string_view, 16> kUnmodelledStatements = {
    "psrun",  "sleep",   "enable",      "disable", "include", "quit",  "list",     "debug",
    "system", "version", "domultisync", "usage",   "vars",    "stats", "shutdown", "warmup"};

/// Attribute names of filebench's lexer: one not handled where it appears is "not modelled".
inline constexpr std::array<std::string_view, 53> kFilebenchAttributes = {
    "cached",    "alldone", "blocking",  "client",    "dirwidth",   "dirdepthrv",  "directio",
    "dirgamma",  "dsync",   "entries",   "fd",        "filename",   "filesetname", "filesize",
    "firstdone", "gamma",   "highwater", "indexed",   "instances",  "iosize",      "iters",
    "leafdirs",  "master",  "mean",      "memsize",   "ioprio",     "min",         "max",
    "name",      "nice",    "opennext",  "paralloc",  "parameters", "path",        "prealloc",
    "random",    "randsrc", "randtable", "rate",      "readonly",   "writeonly",   "reuse",
    "round",     "seed",    "size",      "srcfd",     "target",     "timeout",     "trusttree",
    "type",      "useism",  "value",     "workingset"};

/// Flowops of filebench that iobench does not model yet.
inline constexpr std::array<std::string_view, 2> kUnmodelledFlowops = {"print", "testrandvar"};

/// Whether `word` is in `list`.
template <std::size_t N>
[[nodiscard]] bool contains(const std::array<std::string_view, N>& list, std::string_view word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

}  // namespace iobench::plugins::filebench
