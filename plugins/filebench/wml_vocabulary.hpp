#pragma once

/// filebench's words that iobench's WML parser knows but does not model: statements, attribute
/// names and flowops it refuses as "accepted by filebench but not modelled by iobench yet".

#include <algorithm>
#include <array>
#include <cstddef>
#include <string_view>

namespace iobench::plugins::filebench {

/// Statements filebench accepts that iobench does not model yet.
inline constexpr std::array<std::string_view, 9> kUnmodelledStatements = {
    "quit", "list", "system", "version", "usage", "vars", "stats", "shutdown", "warmup"};

/// Attribute names of filebench's lexer: one not handled where it appears is "not modelled".
inline constexpr std::array<std::string_view, 52> kFilebenchAttributes = {
    "alldone", "blocking",  "client",    "dirwidth",   "dirdepthrv",  "directio",  "dirgamma",
    "dsync",   "entries",   "fd",        "filename",   "filesetname", "filesize",  "firstdone",
    "gamma",   "highwater", "indexed",   "instances",  "iosize",      "iters",     "leafdirs",
    "master",  "mean",      "memsize",   "ioprio",     "min",         "max",       "name",
    "nice",    "opennext",  "paralloc",  "parameters", "path",        "prealloc",  "random",
    "randsrc", "randtable", "rate",      "readonly",   "writeonly",   "reuse",     "round",
    "seed",    "size",      "srcfd",     "target",     "timeout",     "trusttree", "type",
    "useism",  "value",     "workingset"};

/// Flowops of filebench that iobench does not model yet.
inline constexpr std::array<std::string_view, 2> kUnmodelledFlowops = {"print", "testrandvar"};

/// The words filebench's lexer (parser_lex.l) reads as keywords wherever they stand, besides
/// "fileset"/"process" and their plural patterns (is_filebench_keyword): a flowop named by one
/// (`name=create`) is a syntax error in filebench.
inline constexpr std::array<std::string_view, 83> kFilebenchKeywords = {
    "create",    "define",    "debug",   "domultisync", "echo",        "enable",     "eventgen",
    "quit",      "list",      "run",     "psrun",       "set",         "sleep",      "system",
    "version",   "file",      "files",   "thread",      "flowop",      "randvar",    "mode",
    "multi",     "cvar",      "alldone", "blocking",    "client",      "dirwidth",   "dirdepthrv",
    "directio",  "dirgamma",  "dsync",   "entries",     "fd",          "filename",   "filesetname",
    "filesize",  "firstdone", "gamma",   "highwater",   "indexed",     "instances",  "iosize",
    "iters",     "leafdirs",  "master",  "mean",        "memsize",     "ioprio",     "min",
    "max",       "name",      "nice",    "opennext",    "paralloc",    "parameters", "path",
    "prealloc",  "random",    "randsrc", "randtable",   "rate",        "readonly",   "writeonly",
    "reuse",     "round",     "seed",    "size",        "srcfd",       "target",     "timeout",
    "trusttree", "type",      "useism",  "value",       "workingset",  "nousestats", "lathist",
    "uniform",   "tabular",   "urandom", "rand48",      "noreadahead", "in"};

/// Whether filebench's lexer reads `word` as a keyword: one of kFilebenchKeywords or its
/// patterns fileset[s]* ("fileset", "filesets", ...) and process[es]* ("process", "processes",
/// ...). true and false are its booleans, which a name may be.
[[nodiscard]] inline bool is_filebench_keyword(std::string_view word) noexcept {
  for (const std::string_view k : kFilebenchKeywords) {
    if (k == word) return true;
  }
  const auto tail_of = [word](std::string_view stem, std::string_view letters) {
    if (word.substr(0, stem.size()) != stem) return false;
    return word.substr(stem.size()).find_first_not_of(letters) == std::string_view::npos;
  };
  return tail_of("fileset", "s") || tail_of("process", "es");
}

/// Whether `word` is in `list`.
template <std::size_t N>
[[nodiscard]] bool contains(const std::array<std::string_view, N>& list, std::string_view word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

}  // namespace iobench::plugins::filebench
