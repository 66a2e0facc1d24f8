#include "plugins/filebench/wml_parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iobench/error.hpp>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "plugins/filebench/wml_lexer.hpp"
#include "plugins/filebench/wml_limits.hpp"
#include "plugins/filebench/wml_vocabulary.hpp"

namespace iobench::plugins::filebench {

namespace {

/// A value after '=' (variables resolved): a word, a string, or a cvar.
struct Value {
  Token token;  ///< the word or string (for a variable: the value it was set to)
  std::optional<SizeSpec> cvar;
  WmlPosition where;  ///< where it was used
};

struct Attr {
  std::string name;
  std::optional<Value> value;
  WmlPosition where;
};

class Parser {
 public:
  Parser(std::string_view text, std::string_view file_name)
      : file_(file_name), tokens_(lex_wml(text, file_name)) {}

  WmlModel parse() {
    while (peek().kind != TokenKind::kEnd) statement();
    return std::move(model_);
  }

 private:
  [[noreturn]] void fail(WmlPosition at, const std::string& message) const {
    throw ConfigError(fmt::format("{}:{}:{}: {}", file_, at.line, at.column, message));
  }
  const Token& peek() const { return tokens_[pos_]; }
  Token next() { return tokens_[pos_ < tokens_.size() - 1 ? pos_++ : pos_]; }
  static std::string shown(const Token& t) {
    switch (t.kind) {
      case TokenKind::kEnd:
        return "the end of the file";
      case TokenKind::kVariable:
        return "'$" + t.text + "'";
      case TokenKind::kString:
        return "\"" + t.text + "\"";
      default:
        return "'" + t.text + "'";
    }
  }
  bool at_punct(char c) const { return peek().kind == TokenKind::kPunct && peek().text[0] == c; }
  void expect_punct(char c, std::string_view context) {
    const Token t = next();
    if (t.kind != TokenKind::kPunct || t.text[0] != c)
      fail(t.where, fmt::format("expected '{}' {}, found {}", c, context, shown(t)));
  }
  Token expect_word(std::string_view what) {
    const Token t = next();
    if (t.kind != TokenKind::kWord)
      fail(t.where, fmt::format("expected {}, found {}", what, shown(t)));
    return t;
  }

  void statement();
  void set_statement();
  void define_statement(const Token& define);
  void run_statement();
  Value value();
  SizeSpec cvar(const Token& cvar_word);
  std::vector<Attr> attributes();
  [[noreturn]] void bad_attribute(const Attr& a, std::string_view what,
                                  std::string_view accepted) const;
  std::uint64_t number(const Value& v, std::string_view attr, bool sizes) const;
  double real(const Value& v, std::string_view attr) const;
  std::string text(const Value& v, std::string_view attr) const;
  /// A boolean attribute: bare (true) or =true/=false.
  bool flag(const Attr& a) const;
  void fileset(bool single_file, WmlPosition where);
  void process(WmlPosition where);
  ThreadDef thread();
  FlowopDef flowop();
  /// Resolves the `target=NAME` of t's finishoncount/finishonbytes flowops (any flowop of the
  /// thread, as filebench looks it up in the thread's list).
  void resolve_targets(ThreadDef& t);
  std::uint32_t count32(const Attr& a, std::uint64_t max) const {
    const std::uint64_t n = number(need_value(a), a.name, false);
    if (n < 1 || n > max)
      fail(a.value->where, fmt::format("{}={} is out of range; give 1 to {}", a.name, n, max));
    return static_cast<std::uint32_t>(n);
  }
  const Value& need_value(const Attr& a) const {
    if (!a.value)
      fail(a.where, fmt::format("attribute '{}' needs a value: {}=...", a.name, a.name));
    return *a.value;
  }

  std::string file_;
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  std::map<std::string, Value> vars_;
  WmlModel model_;
  /// Per flowop of the thread being parsed: its `target=` name (empty: none) and position.
  std::vector<std::pair<std::string, WmlPosition>> targets_;
};

void Parser::statement() {
  const Token t = next();
  if (t.kind != TokenKind::kWord) {
    fail(t.where, fmt::format("expected a statement (set, define, run, create files, echo), "
                              "found {}",
                              shown(t)));
  }
  if (t.text == "set") return set_statement();
  if (t.text == "define") return define_statement(t);
  if (t.text == "run") return run_statement();
  if (t.text == "create") {
    const Token what = expect_word("'files' after 'create'");
    if (what.text != "files" && what.text != "fileset" && what.text != "filesets") {
      fail(what.where, fmt::format("'create {}' is not modelled; write 'create files'", what.text));
    }
    model_.create_files = true;
    return;
  }
  if (t.text == "echo") {
    const Token s = next();
    if (s.kind != TokenKind::kString) fail(s.where, "echo takes a \"quoted string\"");
    model_.echoes.push_back(s.text);
    return;
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

void Parser::set_statement() {
  const Token var = next();
  if (var.kind == TokenKind::kWord && var.text == "mode") {
    fail(var.where,
         "'set mode' is accepted by filebench but not modelled by iobench yet; "
         "remove it (runs end at their time limit)");
  }
  if (var.kind != TokenKind::kVariable) {
    fail(var.where, fmt::format("expected a $variable after 'set', found {}; write set $name=value",
                                shown(var)));
  }
  expect_punct('=', "after the variable name");
  vars_[var.text] = value();
}

Value Parser::value() {
  const Token t = next();
  if (t.kind == TokenKind::kVariable) {
    const auto it = vars_.find(t.text);
    if (it == vars_.end()) {
      fail(t.where, fmt::format("variable ${} is not set; add 'set ${}=...' before its use", t.text,
                                t.text));
    }
    Value v = it->second;
    v.where = t.where;
    return v;
  }
  if (t.kind == TokenKind::kWord && t.text == "cvar" && at_punct('(')) {
    return Value{t, cvar(t), t.where};
  }
  if (t.kind != TokenKind::kWord && t.kind != TokenKind::kString)
    fail(t.where, fmt::format("expected a value, found {}", shown(t)));
  return Value{t, std::nullopt, t.where};
}

SizeSpec Parser::cvar(const Token& cvar_word) {
  expect_punct('(', "after cvar");
  std::optional<std::string> type;
  std::optional<double> mean;
  std::optional<double> gamma;
  for (bool first = true; !at_punct(')'); first = false) {
    if (!first) expect_punct(',', "between cvar attributes");
    const Token key = expect_word("a cvar attribute (type, parameters)");
    expect_punct('=', "after the cvar attribute");
    if (key.text == "type") {
      const Token v = expect_word("a cvar type");
      if (v.text != "cvar-gamma" && v.text != "gamma") {
        fail(v.where, fmt::format("cvar type '{}' is accepted by filebench but not modelled by "
                                  "iobench yet; use type=cvar-gamma or a fixed size",
                                  v.text));
      }
      type = v.text;
    } else if (key.text == "parameters") {
      for (bool first_param = true; first_param || at_punct(';'); first_param = false) {
        if (!first_param) next();
        const Token p = expect_word("a cvar parameter such as mean:131072");
        const auto colon = p.text.find(':');
        const std::string name = p.text.substr(0, colon);
        double parsed = 0;
        std::size_t used = 0;
        try {
          parsed = colon == std::string::npos ? NAN : std::stod(p.text.substr(colon + 1), &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (colon == std::string::npos || used == 0 || used != p.text.size() - colon - 1 ||
            !std::isfinite(parsed) || parsed <= 0) {
          fail(p.where, fmt::format("cvar parameter '{}' is not NAME:VALUE with a value > 0; "
                                    "write mean:131072;gamma:1.5",
                                    p.text));
        }
        if (name == "mean") {
          if (parsed > static_cast<double>(kMaxSizeBytes))
            fail(p.where,
                 fmt::format("cvar {} is too large; give a mean of at most 2^44 bytes", p.text));
          mean = parsed;
        } else if (name == "gamma") {
          gamma = parsed;
        } else {
          fail(p.where,
               fmt::format("unknown cvar-gamma parameter '{}'; it takes mean and gamma", name));
        }
      }
    } else {
      fail(key.where, fmt::format("cvar attribute '{}' is not modelled; give type= and "
                                  "parameters= only",
                                  key.text));
    }
  }
  next();  // ')'
  if (!type || !mean) {
    fail(cvar_word.where, "cvar needs type=cvar-gamma and parameters=mean:BYTES[;gamma:SHAPE]");
  }
  SizeSpec s;
  s.kind = SizeSpec::Kind::kGamma;
  s.mean_bytes = *mean;
  s.gamma = gamma.value_or(1.5);  // cvar-gamma's default shape
  return s;
}

std::vector<Attr> Parser::attributes() {
  std::vector<Attr> out;
  for (;;) {
    const Token name = expect_word("an attribute name (name=..., ...)");
    Attr a{name.text, std::nullopt, name.where};
    if (at_punct('=')) {
      next();
      a.value = value();
    }
    out.push_back(std::move(a));
    if (!at_punct(',')) return out;
    next();
  }
}

void Parser::bad_attribute(const Attr& a, std::string_view what, std::string_view accepted) const {
  if (contains(kFilebenchAttributes, a.name)) {
    fail(a.where, fmt::format("attribute '{}' of {} is accepted by filebench but not modelled by "
                              "iobench yet; remove it",
                              a.name, what));
  }
  fail(a.where,
       fmt::format("unknown attribute '{}' of {}; expected one of {}", a.name, what, accepted));
}

std::uint64_t Parser::number(const Value& v, std::string_view attr, bool sizes) const {
  const std::string& s = v.token.text;
  if (v.cvar) {
    fail(v.where, fmt::format("{} takes a number, not a cvar; cvars are file sizes only", attr));
  }
  std::size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
  std::uint64_t multiplier = 1;
  const std::string_view suffix = std::string_view(s).substr(digits);
  if (sizes && suffix.size() == 1) {
    switch (suffix[0] | 0x20) {
      case 'k':
        multiplier = 1ULL << 10;
        break;
      case 'm':
        multiplier = 1ULL << 20;
        break;
      case 'g':
        multiplier = 1ULL << 30;
        break;
      case 't':
        multiplier = 1ULL << 40;
        break;
      default:
        multiplier = 0;
        break;
    }
  } else if (!suffix.empty()) {
    multiplier = 0;
  }
  std::uint64_t n = 0;
  bool overflow = digits > 15;
  for (std::size_t i = 0; i < digits && !overflow; ++i)
    n = n * 10 + static_cast<std::uint64_t>(s[i] - '0');
  if (digits == 0 || multiplier == 0 || v.token.kind != TokenKind::kWord) {
    fail(v.where, fmt::format("{}={} is not {}", attr, s,
                              sizes ? "a size; write digits with an optional k, m, g or t suffix "
                                      "(1024-based), e.g. 16k"
                                    : "a whole number; write digits, e.g. 10"));
  }
  if (overflow || n > (UINT64_MAX >> 20) / multiplier) {
    fail(v.where, fmt::format("{}={} is too large; give at most 2^44 bytes", attr, s));
  }
  return n * multiplier;
}

double Parser::real(const Value& v, std::string_view attr) const {
  const std::string& s = v.token.text;
  std::size_t used = 0;
  double d = NAN;
  try {
    if (!v.cvar && v.token.kind == TokenKind::kWord) d = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size() || !std::isfinite(d) || d < 0)
    fail(v.where, fmt::format("{}={} is not a number >= 0; write e.g. 1.5", attr, s));
  return d;
}

std::string Parser::text(const Value& v, std::string_view attr) const {
  if (v.cvar) fail(v.where, fmt::format("{} takes a name, not a cvar", attr));
  return v.token.text;
}

bool Parser::flag(const Attr& a) const {
  if (!a.value) return true;
  const std::string& s = a.value->token.text;
  if (!a.value->cvar && (s == "true" || s == "false")) return s == "true";
  fail(a.value->where, fmt::format("{}={} is not a flag; write {} alone, {}=true or {}=false",
                                   a.name, s, a.name, a.name, a.name));
}

void Parser::define_statement(const Token& define) {
  const Token what = expect_word("what to define (fileset, file, process)");
  if (what.text == "fileset" || what.text == "filesets") return fileset(false, what.where);
  if (what.text == "file") return fileset(true, what.where);
  if (what.text == "process" || what.text == "processes") return process(what.where);
  if (what.text == "randvar" || what.text == "flowop" || what.text == "composite") {
    fail(what.where, fmt::format("'define {}' is accepted by filebench but not modelled by "
                                 "iobench yet; remove it",
                                 what.text));
  }
  (void)define;
  fail(what.where, fmt::format("unknown definition '{}'; expected define fileset, define file or "
                               "define process",
                               what.text));
}

void Parser::fileset(bool single_file, WmlPosition where) {
  const std::string_view what = single_file ? "define file" : "define fileset";
  FilesetDef f;
  f.single_file = single_file;
  f.where = where;
  bool has_width = false;
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
      } else {
        f.size.fixed_bytes = number(v, a.name, true);
      }
    } else if (a.name == "entries" && !single_file) {
      f.entries = number(need_value(a), a.name, false);
      if (f.entries < 1 || f.entries > 100'000'000)
        fail(a.value->where, "entries is out of range; give 1 to 100000000 files");
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
    } else if (a.name == "reuse") {
      f.reuse = flag(a);
    } else if (a.name == "readonly") {
      f.readonly = flag(a);
    } else {
      bad_attribute(a, what,
                    single_file ? "name, path, size, prealloc, reuse, readonly"
                                : "name, path, size, entries, dirwidth, dirgamma, prealloc, "
                                  "reuse, readonly");
    }
  }
  if (f.name.empty()) fail(where, fmt::format("{} needs name=NAME", what));
  if (model_.fileset_index(f.name) != kNoFileset)
    fail(where, fmt::format("fileset '{}' is defined twice; give each a new name", f.name));
  if (!single_file && !has_width) {
    fail(where, fmt::format("define fileset '{}' needs dirwidth=N (files per directory)", f.name));
  }
  model_.filesets.push_back(std::move(f));
}

void Parser::process(WmlPosition where) {
  ProcessDef p;
  p.where = where;
  for (const Attr& a : attributes()) {
    if (a.name == "name") {
      p.name = text(need_value(a), a.name);
    } else if (a.name == "instances") {
      p.instances = count32(a, 1024);
    } else {
      bad_attribute(a, "define process", "name, instances");
    }
  }
  if (p.name.empty()) fail(where, "define process needs name=NAME");
  expect_punct('{', "to open the process's thread list");
  while (!at_punct('}')) p.threads.push_back(thread());
  next();
  if (p.threads.empty()) fail(where, fmt::format("process '{}' has no thread", p.name));
  model_.processes.push_back(std::move(p));
}

ThreadDef Parser::thread() {
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
      if (t.memsize < 1 || t.memsize > (1ULL << 30))
        fail(a.value->where, "memsize is out of range; give 1 to 1g bytes");
    } else {
      bad_attribute(a, "thread", "name, instances, memsize");
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

void Parser::resolve_targets(ThreadDef& t) {
  for (std::size_t i = 0; i < t.flowops.size(); ++i) {
    // Named, not a structured binding: clang before 16 cannot capture one in the lambda below.
    const std::string& name = targets_[i].first;
    const auto& where = targets_[i].second;
    if (name.empty()) continue;
    FlowopDef& f = t.flowops[i];
    const auto it = std::find_if(t.flowops.begin(), t.flowops.end(),
                                 [&](const FlowopDef& g) { return g.name == name; });
    if (it == t.flowops.end()) {
      fail(where, fmt::format("target flowop '{}' is not in thread '{}'; name one of its flowops",
                              name, t.name));
    }
    // filebench refuses a byte limit on a flowop that moves no bytes.
    if (f.kind == FlowopKind::kFinishOnBytes && !flowop_reads(it->kind) &&
        !flowop_writes(it->kind)) {
      fail(where, fmt::format("finishonbytes target '{}' does no reads or writes; name a read or "
                              "write flowop",
                              name));
    }
    f.target = static_cast<std::uint32_t>(it - t.flowops.begin());
  }
}

FlowopDef Parser::flowop() {
  const Token word = expect_word("'flowop' or '}'");
  if (word.text != "flowop") {
    fail(word.where, fmt::format("expected 'flowop' or '}}' in a thread, found '{}'", word.text));
  }
  const Token kind = expect_word("a flowop type (createfile, read, ...)");
  FlowopDef f;
  f.where = kind.where;
  const std::optional<FlowopKind> known = flowop_kind_of(kind.text);
  if (!known) {
    if (contains(kUnmodelledFlowops, kind.text)) {
      fail(kind.where, fmt::format("flowop '{}' is accepted by filebench but not modelled by "
                                   "iobench yet; remove it",
                                   kind.text));
    }
    fail(kind.where, fmt::format("unknown flowop '{}'; iobench models createfile, openfile, "
                                 "closefile, deletefile, appendfile, appendfilerand, "
                                 "readwholefile, read, write, writewholefile, fsync, statfile, "
                                 "delay, finishoncount, finishonbytes, opslimit, listdir, "
                                 "fsyncset",
                                 kind.text));
  }
  f.kind = *known;
  const bool finish = f.kind == FlowopKind::kFinishOnCount || f.kind == FlowopKind::kFinishOnBytes;
  std::pair<std::string, WmlPosition> target;
  for (const Attr& a : attributes()) {
    if (a.name == "name") {
      f.name = text(need_value(a), a.name);
      if (const std::string_view why = bad_name(f.name, false); !why.empty())
        fail(a.value->where, fmt::format("flowop name '{}' {}", f.name, why));
    } else if (a.name == "filesetname" || a.name == "filename") {
      const std::string name = text(need_value(a), a.name);
      f.fileset = model_.fileset_index(name);
      if (f.fileset == kNoFileset) {
        fail(a.value->where, fmt::format("fileset '{}' is not defined; define it before the "
                                         "process that uses it",
                                         name));
      }
    } else if (a.name == "iosize") {
      f.iosize = number(need_value(a), a.name, true);
    } else if (a.name == "fd" || a.name == "srcfd") {
      const std::uint64_t n = number(need_value(a), a.name, false);
      if (n >= kMaxFd) fail(a.value->where, fmt::format("{} must be below {}", a.name, kMaxFd));
      (a.name == "fd" ? f.fd : f.srcfd) = static_cast<std::uint32_t>(n);
    } else if (a.name == "iters") {
      f.iters = count32(a, 1'000'000);
    } else if (a.name == "random") {
      f.random = flag(a);
    } else if (a.name == "dsync") {
      f.dsync = flag(a);
    } else if (a.name == "value" && f.kind == FlowopKind::kDelay) {
      f.value = real(need_value(a), a.name);
      if (f.value > kMaxDelaySeconds)  // filebench sleeps value seconds: keep the ns in range
        fail(a.value->where, fmt::format("delay value={} is above one day; give at most {} "
                                         "seconds",
                                         a.value->token.text, kMaxDelaySeconds));
    } else if (a.name == "value" && finish) {
      f.limit = number(need_value(a), a.name, f.kind == FlowopKind::kFinishOnBytes);
    } else if (a.name == "target" && finish) {
      target = {text(need_value(a), a.name), a.value->where};
    } else {
      bad_attribute(a, fmt::format("flowop {}", kind.text),
                    "name, filesetname, iosize, fd, srcfd, iters, random, dsync, value (delay, "
                    "finishoncount, finishonbytes), target (finishoncount, finishonbytes)");
    }
  }
  targets_.push_back(std::move(target));
  if (f.name.empty()) fail(kind.where, fmt::format("flowop {} needs name=NAME", kind.text));
  if (finish && f.limit == 0) {
    fail(kind.where, fmt::format("flowop {} '{}' needs value={} above 0", kind.text, f.name,
                                 f.kind == FlowopKind::kFinishOnCount ? "OPS" : "BYTES"));
  }
  const bool needs_iosize = f.kind == FlowopKind::kRead || f.kind == FlowopKind::kWrite ||
                            f.kind == FlowopKind::kAppendFile ||
                            f.kind == FlowopKind::kAppendFileRand;
  if (needs_iosize && f.iosize == 0)
    fail(kind.where, fmt::format("flowop {} '{}' needs iosize=BYTES", kind.text, f.name));
  const bool needs_fileset = f.kind == FlowopKind::kCreateFile || f.kind == FlowopKind::kOpenFile ||
                             f.kind == FlowopKind::kStatFile || f.kind == FlowopKind::kListDir ||
                             f.kind == FlowopKind::kFsyncSet;
  if (needs_fileset && f.fileset == kNoFileset) {
    fail(kind.where, fmt::format("flowop {} '{}' needs filesetname=FILESET", kind.text, f.name));
  }
  if (f.kind == FlowopKind::kListDir && model_.filesets[f.fileset].single_file) {
    fail(kind.where, fmt::format("flowop listdir '{}' needs a fileset with directories; '{}' is "
                                 "a define file",
                                 f.name, model_.filesets[f.fileset].name));
  }
  return f;
}

void Parser::run_statement() {
  const Token& t = peek();
  const bool has_number =
      t.kind == TokenKind::kVariable ||
      (t.kind == TokenKind::kWord && !t.text.empty() && t.text[0] >= '0' && t.text[0] <= '9');
  std::uint64_t seconds = 60;  // filebench's default run length
  if (has_number) {
    const Value v = value();
    seconds = number(v, "run", false);
    if (seconds < 1 || seconds > kMaxRunSeconds)  // its nanoseconds must fit the time limit
      fail(v.where, fmt::format("run {} is out of range; give 1 to {} seconds (30 days)",
                                v.token.text, kMaxRunSeconds));
  }
  if (model_.run_seconds) fail(t.where, "a second 'run' statement is not modelled; keep one");
  model_.run_seconds = seconds;
}

}  // namespace

WmlModel parse_wml(std::string_view text, std::string_view file_name) {
  return Parser(text, file_name).parse();
}

}  // namespace iobench::plugins::filebench
