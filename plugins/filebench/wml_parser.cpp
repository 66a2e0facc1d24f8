#include "plugins/filebench/wml_parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iobench/error.hpp>
#include <iobench/file_util.hpp>
#include <iobench/printable.hpp>
#include <utility>

#include "plugins/filebench/event_generator.hpp"
#include "plugins/filebench/wml_limits.hpp"
#include "plugins/filebench/wml_parser_state.hpp"
#include "plugins/filebench/wml_vocabulary.hpp"

namespace iobench::plugins::filebench {

namespace detail {

namespace {

// The fix named where a file asks for filebench's multi-client synchronisation.
constexpr const char* kMultiClientFix =
    "remove it, and to run this workload on several clients at once start iobench under mpirun "
    "(mpirun -n N iobench run filebench file=F.f): every rank runs the file and each phase "
    "starts at a barrier across the ranks";

bool starts_with_digit(const Token& t) {
  return t.kind == TokenKind::kWord && !t.text.empty() && t.text[0] >= '0' && t.text[0] <= '9';
}

}  // namespace

void WmlParser::statement() {
  const Token t = next();
  if (t.kind != TokenKind::kWord) {
    fail(t.where, fmt::format("expected a statement (set, define, run, create files, echo), "
                              "found {}",
                              shown(t)));
  }
  // filebench ends with its run (parser_run and parser_psrun end in its shutdown): nothing after
  // it is reached, so every statement below it is refused here (a second run says so itself).
  if (saw_run_ && t.text != "run" && t.text != "psrun") {
    fail(t.where, fmt::format("'{}' after 'run' is never reached: filebench ends with its run; "
                              "move it above 'run' or remove it",
                              t.text));
  }
  if (t.text == "set") return set_statement();
  if (t.text == "define") return define_statement(t);
  if (t.text == "run") return run_statement(t);
  if (t.text == "eventgen") return eventgen_statement(t);
  if (t.text == "create") {
    const Token what = expect_word("'files' after 'create'");
    if (what.text != "files" && what.text != "fileset" && what.text != "filesets") {
      fail(what.where, fmt::format("'create {}' is not modelled; write 'create files'", what.text));
    }
    model_.create_files = true;
    return;
  }
  if (t.text == "sleep") return sleep_statement(t);
  if (t.text == "debug") {
    // filebench's log level (0 to 10, above 10 taken as 10): its own messages only.
    const Token n = next();
    if (!starts_with_digit(n))
      fail(n.where,
           fmt::format("expected a level after 'debug', found {}; write debug N", shown(n)));
    model_.debug_level = static_cast<int>(std::min<std::uint64_t>(
        number(Value{n, std::nullopt, n.where, nullptr}, "debug", true), 10));
    return;
  }
  if (t.text == "psrun") return psrun_statement(t);
  if (t.text == "enable" || t.text == "disable") return enable_statement(t);
  if (t.text == "include") return include_statement(t);
  if (t.text == "echo") {
    const Token s = next();
    if (s.kind != TokenKind::kString) fail(s.where, "echo takes a \"quoted string\"");
    model_.echoes.push_back(s.text);
    return;
  }
  if (t.text == "domultisync") {
    fail(t.where, fmt::format("'domultisync' (a barrier among the clients of filebench's sync "
                              "server) is not modelled by iobench; {}",
                              kMultiClientFix));
  }
  if (contains(kUnmodelledStatements, t.text)) {
    fail(t.where, fmt::format("statement '{}' is accepted by filebench but not modelled by "
                              "iobench yet; remove it from the file",
                              t.text));
  }
  fail(t.where, fmt::format("unknown statement '{}'; expected set, define, run, create files, "
                            "echo or a # comment",
                            t.text));
}

// filebench 1.5's `enable lathist` turns its latency histogram on for the run; `disable lathist`
// (iobench's extension: filebench 1.5's lexer has no `disable`) turns it off again; the last of
// them above `run` decides. `enable multi master=HOST,client=NAME` joins filebench's sync server.
void WmlParser::enable_statement(const Token& word) {
  const bool enable = word.text == "enable";
  const Token what = next();
  if (what.kind == TokenKind::kWord && what.text == "lathist") {
    model_.lathist = enable;
    return;
  }
  if (what.kind == TokenKind::kWord && what.text == "multi") {
    if (enable) {
      fail(what.where, fmt::format("'enable multi' (filebench's multi-client synchronisation "
                                   "through its sync server) is not modelled by iobench; {}",
                                   kMultiClientFix));
    }
    fail(what.where,
         "'disable multi' is not a statement: filebench 1.5 has no 'disable' and iobench's "
         "'disable' takes only lathist; remove it");
  }
  fail(what.where,
       fmt::format("expected 'lathist' after '{}', found {}; write {} lathist{}", word.text,
                   shown(what), word.text,
                   enable ? "" : " (iobench's extension: filebench 1.5 has no 'disable')"));
}

std::string WmlParser::absolute_key(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(path, ec);
  return (ec ? path : abs).lexically_normal().string();
}

void WmlParser::cycle_error(const Token& name, std::size_t first, const std::string& shown_path,
                            const std::string& same_as) const {
  std::string cycle;
  for (std::size_t j = first; j < open_files_.size(); ++j)
    cycle += printable(open_files_[j].name) + " -> ";
  fail(name.where, fmt::format("include \"{}\" makes a cycle: {}{}{}; remove one of these includes",
                               printable(name.text), cycle, printable(shown_path), same_as));
}

void WmlParser::include_statement(const Token& word) {
  const Token name = next();
  if (name.kind != TokenKind::kString || name.text.empty()) {
    fail(name.where,
         fmt::format("expected a \"path\" after 'include', found {}; write include \"file.f\"",
                     shown(name)));
  }
  if (read_include_ == nullptr) {
    fail(word.where,
         "'include' (iobench's extension; filebench 1.5 has no such statement) reads a file, "
         "and this text was not read from one; run the .f file itself");
  }
  const std::filesystem::path path = std::filesystem::path(name.text).is_absolute()
                                         ? std::filesystem::path(name.text)
                                         : std::filesystem::path(file_).parent_path() / name.text;
  const std::string shown_path = path.string();
  const std::string key = absolute_key(path);
  // A file already on the chain is a cycle. Files are the same when the files opened are (st_dev,
  // st_ino), after the read; only where a side has no identity (text from memory) by their
  // absolute, lexically normal paths, which name another file where a path goes through a
  // symbolic link ("link/../main.f" with link pointing elsewhere). A file on the chain from
  // memory is compared here, before the read.
  for (std::size_t k = 0; k < open_files_.size(); ++k) {
    if (!open_files_[k].identity && open_files_[k].key == key) cycle_error(name, k, shown_path, "");
  }
  if (open_files_.size() > kMaxWmlIncludeDepth) {
    fail(name.where, fmt::format("include \"{}\" nests files more than {} deep; include fewer "
                                 "levels",
                                 printable(name.text), kMaxWmlIncludeDepth));
  }
  if (++includes_ > kMaxWmlIncludes) {
    fail(name.where, fmt::format("more than {} include statements in all; include fewer files",
                                 kMaxWmlIncludes));
  }
  WmlFileText read{std::string()};
  try {
    read = (*read_include_)(path);
  } catch (const ConfigError& e) {
    fail(name.where, fmt::format("include \"{}\": {}", printable(name.text), e.what()));
  } catch (const IoError& e) {
    // A read that failed (EIO): an I/O failure, with the statement that asked for it.
    throw IoError(e.error_number(),
                  fmt::format("{}:{}:{}: include \"{}\": read", file_, name.where.line,
                              name.where.column, printable(name.text)),
                  shown_path);
  }
  // The same file reached by another path (a symbolic or hard link): a cycle all the same.
  for (std::size_t k = 0; k < open_files_.size(); ++k) {
    const OpenFile& open = open_files_[k];
    if (!open.identity) continue;  // from memory: compared by path before the read
    if (read.identity ? *open.identity != *read.identity : open.key != key) continue;
    if (open.key == key) cycle_error(name, k, shown_path, "");
    cycle_error(name, k, shown_path, ", the same file as " + printable(open.name));
  }
  // The included file's own chain: where it was included, then its includer's chain.
  std::string chain = fmt::format(" (included from {}:{}", file_, name.where.line);
  for (std::size_t j = open_files_.size() - 1; j > 0; --j)
    chain += fmt::format(", from {}:{}", open_files_[j - 1].name, open_files_[j].line);
  chain += ")";
  std::vector<Token> tokens;
  try {
    tokens = lex_wml(read.text, shown_path);
  } catch (const ConfigError& e) {
    throw ConfigError(std::string(e.what()) + chain);
  }
  std::string().swap(read.text);  // the tokens hold what is needed: not kept through nested files
  // Its positions name it (WmlPosition::file), in messages now and after the parse.
  const auto index = static_cast<std::uint32_t>(model_.sources.size());
  for (Token& t : tokens) t.where.file = index;
  model_.sources.push_back(WmlSource{shown_path, std::move(chain)});
  open_files_.push_back(OpenFile{shown_path, key, read.identity, name.where.line});
  std::string saved_file = std::exchange(file_, shown_path);
  std::vector<Token> saved_tokens = std::exchange(tokens_, std::move(tokens));
  const std::size_t saved_pos = std::exchange(pos_, 0);
  while (peek().kind != TokenKind::kEnd) statement();
  pos_ = saved_pos;
  tokens_ = std::move(saved_tokens);
  file_ = std::move(saved_file);
  open_files_.pop_back();
}

void WmlParser::set_statement() {
  const Token var = next();
  if (var.kind == TokenKind::kWord && var.text == "mode") return set_mode();
  if (var.kind != TokenKind::kVariable) {
    fail(var.where, fmt::format("expected a $variable after 'set', found {}; write set $name=value",
                                shown(var)));
  }
  expect_punct('=', "after the variable name");
  setting_ = var.text;
  Value v = value();
  setting_.clear();
  vars_[var.text] = std::move(v);
}

void WmlParser::set_mode() {
  const Token quit = expect_word("'quit' after 'set mode'");
  if (quit.text == "nousestats") {
    model_.nousestats = true;  // filebench 1.5 sets a flag nothing reads
    return;
  }
  if (quit.text != "quit") {
    fail(quit.where, fmt::format("expected 'quit' after 'set mode', found '{}'; write set mode "
                                 "quit timeout|firstdone|alldone",
                                 quit.text));
  }
  const Token how = expect_word("timeout, firstdone or alldone after 'set mode quit'");
  if (how.text == "timeout") {
    model_.quit_mode = QuitMode::kTimeout;
  } else if (how.text == "firstdone") {
    model_.quit_mode = QuitMode::kFirstDone;
  } else if (how.text == "alldone") {
    model_.quit_mode = QuitMode::kAllDone;
  } else {
    fail(how.where, fmt::format("unknown mode 'set mode quit {}'; write timeout, firstdone or "
                                "alldone",
                                how.text));
  }
}

void WmlParser::define_statement(const Token& define) {
  const Token what = expect_word("what to define (fileset, file, process)");
  if (what.text == "fileset" || what.text == "filesets") return fileset(false, what.where);
  if (what.text == "file") return fileset(true, what.where);
  if (what.text == "process" || what.text == "processes") return process(what.where);
  if (what.text == "randvar") return define_randvar(what.where);
  if (what.text == "flowop" || what.text == "composite") {
    fail(what.where, fmt::format("'define {}' is accepted by filebench but not modelled by "
                                 "iobench yet; remove it",
                                 what.text));
  }
  (void)define;
  fail(what.where, fmt::format("unknown definition '{}'; expected define fileset, define file or "
                               "define process",
                               what.text));
}

void WmlParser::fileset(bool single_file, WmlPosition where) {
  const std::string_view what = single_file ? "define file" : "define fileset";
  FilesetDef f;
  f.single_file = single_file;
  f.where = where;
  bool has_width = false;
  bool has_entries = false;
  for (const Attr& a : attributes()) {
    if (a.name == "name") {
      f.name = text(need_value(a), a.name);
      // The name is a directory (or file) of the run directory: one plain path component.
      if (const std::string_view why = bad_name(f.name, true); !why.empty())
        fail(a.value->where, fmt::format("{} name '{}' {}", what, f.name, why));
    } else if (a.name == "path") {
      (void)text(need_value(a), a.name);  // the fileset goes in the run directory instead
    } else if (a.name == "size" || a.name == "filesize") {
      const Value& v = need_value(a);
      if (v.cvar) {
        f.size = *v.cvar;
      } else if (v.randvar) {
        f.size.kind = SizeSpec::Kind::kRandVar;
        f.size.randvar = v.randvar;
      } else {
        f.size.fixed_bytes = number(v, a.name, true);
      }
    } else if (a.name == "entries" && !single_file) {
      f.entries = number(need_value(a), a.name, false);
      if (f.entries > 100'000'000)
        fail(a.value->where, "entries is out of range; give 0 to 100000000 files");
      has_entries = true;
    } else if (a.name == "leafdirs" && !single_file) {
      f.leafdirs = number(need_value(a), a.name, false);
      if (f.leafdirs > 100'000'000)
        fail(a.value->where, "leafdirs is out of range; give 0 to 100000000 directories");
    } else if (a.name == "dirwidth" && !single_file) {
      f.dir_width = static_cast<double>(number(need_value(a), a.name, false));
      if (f.dir_width < 2) fail(a.value->where, "dirwidth must be at least 2 files per directory");
      has_width = true;
    } else if (a.name == "dirgamma" && !single_file) {
      // filebench's dirgamma is in thousandths (1500 = shape 1.5).
      f.dir_gamma = static_cast<double>(number(need_value(a), a.name, false)) / 1000.0;
    } else if (a.name == "prealloc") {
      const bool word = a.value && !a.value->cvar &&
                        (a.value->token.text == "true" || a.value->token.text == "false");
      if (!a.value || word) {
        f.prealloc_pct = flag(a) ? 100 : 0;
      } else {
        const std::uint64_t pct = number(*a.value, a.name, false);
        if (pct > 100) fail(a.value->where, "prealloc is a percentage; give 0 to 100");
        f.prealloc_pct = static_cast<std::uint32_t>(pct);
      }
    } else if (a.name == "paralloc") {
      f.paralloc = flag(a);
    } else if (a.name == "reuse") {
      f.reuse = flag(a);
    } else if (a.name == "readonly") {
      f.readonly = flag(a);
    } else if (a.name == "cached") {
      f.cached = flag(a);
    } else {
      bad_attribute(a, what,
                    single_file ? "name, path, size, prealloc, paralloc, reuse, readonly, cached"
                                : "name, path, size, entries, leafdirs, dirwidth, dirgamma, "
                                  "prealloc, paralloc, reuse, readonly, cached");
    }
  }
  if (f.name.empty()) fail(where, fmt::format("{} needs name=NAME", what));
  // filebench's entries default to 0: a set of leaf directories alone holds no file.
  if (!has_entries && f.leafdirs > 0) f.entries = 0;
  if (f.entries == 0 && f.leafdirs == 0) {
    fail(where, fmt::format("define fileset '{}' has no files and no leaf directories; give "
                            "entries=N or leafdirs=N above 0",
                            f.name));
  }
  if (model_.fileset_index(f.name) != kNoFileset)
    fail(where, fmt::format("fileset '{}' is defined twice; give each a new name", f.name));
  if (!single_file && !has_width) {
    fail(where, fmt::format("define fileset '{}' needs dirwidth=N (files per directory)", f.name));
  }
  model_.filesets.push_back(std::move(f));
}

void WmlParser::process(WmlPosition where) {
  ProcessDef p;
  p.where = where;
  for (const Attr& a : attributes()) {
    if (a.name == "name") {
      p.name = text(need_value(a), a.name);
    } else if (a.name == "instances") {
      p.instances = count32(a, 1024);
    } else if (a.name == "nice") {
      const std::uint64_t n = number(need_value(a), a.name, false);
      if (n > 19) fail(a.value->where, fmt::format("nice={} is out of range; give 0 to 19", n));
      p.nice = static_cast<int>(n);
    } else {
      bad_attribute(a, "define process", "name, instances, nice");
    }
  }
  if (p.name.empty()) fail(where, "define process needs name=NAME");
  expect_punct('{', "to open the process's thread list");
  while (!at_punct('}')) p.threads.push_back(thread());
  next();
  if (p.threads.empty()) fail(where, fmt::format("process '{}' has no thread", p.name));
  model_.processes.push_back(std::move(p));
}

ThreadDef WmlParser::thread() {
  const Token word = expect_word("'thread' or '}'");
  if (word.text != "thread") {
    fail(word.where, fmt::format("expected 'thread' or '}}' in a process, found '{}'", word.text));
  }
  ThreadDef t;
  t.where = word.where;
  for (const Attr& a : attributes()) {
    if (a.name == "name") {
      t.name = text(need_value(a), a.name);
    } else if (a.name == "instances") {
      t.instances = count32(a, 4096);
    } else if (a.name == "memsize") {
      t.memsize = number(need_value(a), a.name, true);
      t.memsize_given = true;
      if (t.memsize < 1 || t.memsize > (1ULL << 30))
        fail(a.value->where, "memsize is out of range; give 1 to 1g bytes");
    } else if (a.name == "useism") {
      t.useism = flag(a);
    } else {
      bad_attribute(a, "thread", "name, instances, memsize, useism");
    }
  }
  if (t.name.empty()) fail(word.where, "thread needs name=NAME");
  expect_punct('{', "to open the thread's flowop list");
  targets_.clear();
  while (!at_punct('}')) t.flowops.push_back(flowop());
  next();
  if (t.flowops.empty()) fail(word.where, fmt::format("thread '{}' has no flowop", t.name));
  resolve_targets(t);
  return t;
}

std::uint64_t WmlParser::seconds_value(std::string_view what, std::uint64_t least) {
  const Value v = value();
  const std::uint64_t seconds = number(v, what, false);
  if (seconds == 0 && what == "sleep") {
    // filebench's parser_pause(0) sleeps until the run is interrupted (its runtime 0).
    fail(v.where, fmt::format("sleep {}: filebench waits until it is interrupted on a sleep of 0 "
                              "seconds; give N >= 1",
                              v.token.text));
  }
  if (seconds < least || seconds > kMaxRunSeconds) {  // its nanoseconds must fit a time limit
    fail(v.where, fmt::format("{} {} is out of range; give {} to {} seconds (30 days)", what,
                              v.token.text, least, kMaxRunSeconds));
  }
  return seconds;
}

void WmlParser::sleep_statement(const Token& word) {
  const Token& t = peek();
  if (t.kind != TokenKind::kVariable && !starts_with_digit(t))
    fail(t.where, fmt::format("expected seconds after 'sleep', found {}; write sleep N", shown(t)));
  const std::uint64_t seconds = seconds_value("sleep", 1);
  std::uint64_t& total =
      model_.create_files ? model_.sleep_after_create_s : model_.sleep_before_create_s;
  total += seconds;
  if (model_.sleep_before_create_s + model_.sleep_after_create_s > kMaxRunSeconds)
    fail(word.where, fmt::format("the sleeps add up to over {} seconds (30 days)", kMaxRunSeconds));
}

void WmlParser::psrun_statement(const Token& word) {
  // filebench's psrun [-]P [D]: two numbers at most, no variables; P below 0 clears the stats
  // after each period.
  std::uint64_t period = 10;  // filebench's PERIOD_DEFAULT
  bool reset = false;
  std::optional<std::uint64_t> seconds;
  const Token& first = peek();
  const bool negative = first.kind == TokenKind::kWord && first.text.size() > 1 &&
                        first.text[0] == '-' && first.text[1] >= '0' && first.text[1] <= '9';
  if (first.kind == TokenKind::kWord && first.text.starts_with('-') && !negative) {
    fail(first.where,
         fmt::format("psrun {}: expected a period in seconds; write psrun [-]P [D]", first.text));
  }
  if (negative || starts_with_digit(first)) {
    Token t = next();
    const WmlPosition at = t.where;
    if (negative) t.text.erase(0, 1);
    const std::uint64_t p = number(Value{t, std::nullopt, at, nullptr}, "psrun", false);
    if (p > kMaxRunSeconds) {
      fail(at,
           fmt::format("psrun period {} is out of range; give 1 to {} seconds", p, kMaxRunSeconds));
    }
    if (p > 0) period = p;  // 0: the default period, as filebench's
    reset = negative && p > 0;
    if (starts_with_digit(peek())) seconds = seconds_value("psrun", 1);
  }
  begin_run(word, seconds);
  model_.psrun_period_s = period;
  model_.psrun_reset = reset;
}

void WmlParser::run_statement(const Token& word) {
  const Token& t = peek();
  const bool has_number = t.kind == TokenKind::kVariable || starts_with_digit(t);
  std::optional<std::uint64_t> seconds;
  if (has_number) seconds = seconds_value("run", 1);
  begin_run(word, seconds);
}

void WmlParser::begin_run(const Token& t, std::optional<std::uint64_t> given) {
  const bool has_number = given.has_value();
  const std::uint64_t seconds = given.value_or(60);  // filebench's default in timeout mode
  if (model_.run_seconds || model_.run_until_done)
    fail(t.where, "a second 'run' statement is not modelled; keep one");
  saw_run_ = true;
  // A bare `run` under firstdone or alldone lasts until the run is done (filebench's runtime 0).
  if (!has_number && model_.quit_mode != QuitMode::kTimeout) {
    model_.run_until_done = true;
    return;
  }
  model_.run_seconds = seconds;
}

void WmlParser::eventgen_statement(const Token& word) {
  std::uint64_t rate = 0;
  for (const Attr& a : attributes()) {  // at least one, each rate=N
    if (a.name != "rate") bad_attribute(a, "eventgen", "rate");
    rate = number(need_value(a), a.name, false);
    if (rate > kMaxEventRate) {
      fail(a.value->where, fmt::format("eventgen rate={} is above {} events per second; give "
                                       "0 to {}",
                                       rate, kMaxEventRate, kMaxEventRate));
    }
  }
  if (saw_eventgen_) {
    fail(word.where, "a second 'eventgen' is not modelled; keep one rate for the run");
  }
  saw_eventgen_ = true;
  model_.eventgen_rate = rate;  // 0: no event generator, as filebench's
}

}  // namespace detail

WmlModel parse_wml(std::string_view text, std::string_view file_name) {
  return detail::WmlParser(text, file_name, nullptr).parse();
}

WmlModel parse_wml(std::string_view text, std::string_view file_name,
                   const WmlIncludeReader& read_include) {
  return detail::WmlParser(text, file_name, &read_include).parse();
}

WmlFileText read_wml_file(const std::filesystem::path& path) {
  InputFileIdentity opened;
  std::string text = read_input_file(path, "filebench .f file", kMaxWmlFileBytes, opened);
  return WmlFileText{std::move(text), opened};
}

WmlModel parse_wml_file(const std::string& path) {
  const WmlFileText main = read_wml_file(path);
  const WmlIncludeReader reader = read_wml_file;
  return detail::WmlParser(main.text, path, &reader, main.identity).parse();
}

}  // namespace iobench::plugins::filebench
