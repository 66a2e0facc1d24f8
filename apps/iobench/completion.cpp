#include "completion.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iobench/classic_results.hpp>
#include <iobench/error.hpp>
#include <iobench/printable.hpp>
#include <iobench/suite.hpp>
#include <iobench/version.hpp>
#include <map>
#include <set>

#include "output_formats.hpp"

// The two scripts share their logic (a case over the previous word, then the command, the
// workload and key=value); the data in them (workloads, params, values, engines, suites, formats)
// is generated from the registry, so a new param or engine completes without touching a script.
// Both scripts are POSIX-ish shell that bash and zsh read alike, except where the shells differ:
// how the current word is found, word splitting and how candidates are handed back.

namespace iobench::cli {
namespace {

// Words a completion offers are names and values from the registry; one holding a shell
// metacharacter would break the script, so it is left out (none of the built-ins has one).
bool shell_safe(std::string_view word) {
  if (word.empty()) return false;
  return std::all_of(word.begin(), word.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_.:+-/,%@=").find(c) != std::string_view::npos;
  });
}

std::string words(const std::vector<std::string>& list) {
  std::string out;
  for (const std::string& w : list) {
    if (!shell_safe(w)) continue;
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

// What the scripts complete, gathered once from the registry and the option table.
struct CompletionData {
  std::vector<std::string> options;        // --long and -s
  std::vector<std::string> value_options;  // those that take a value
  std::vector<std::string> engines;
  std::vector<std::string> targets;                        // workloads, suites, suite:NAME
  std::vector<std::string> output_formats;                 // --format, of every command
  std::vector<std::string> formats;                        // --from
  std::map<std::string, std::vector<std::string>> params;  // workload -> "key=" words
  std::vector<std::string> all_params;                     // for suites: every workload's
  // "workload:key" -> values, and key -> the union over workloads (for suites)
  std::map<std::string, std::vector<std::string>> values;
  std::map<std::string, std::set<std::string>> values_by_key;
};

std::vector<std::string> values_of(const ParamSpec& spec, const std::vector<std::string>& engines) {
  if (spec.type == ParamType::kEnum) return spec.choices;
  if (spec.type == ParamType::kBool) return {"true", "false"};
  if (spec.key == "engine") return engines;
  return {};
}

CompletionData gather(const Registry& registry, const std::vector<CompletionOption>& options) {
  CompletionData d;
  for (const CompletionOption& o : options) {
    d.options.push_back("--" + o.long_name);
    if (!o.short_name.empty()) d.options.push_back("-" + o.short_name);
    if (o.takes_value) {
      d.value_options.push_back("--" + o.long_name);
      if (!o.short_name.empty()) d.value_options.push_back("-" + o.short_name);
    }
  }
  for (const EngineInfo* engine : registry.engines()) d.engines.push_back(engine->name);
  std::set<std::string> all_params;
  for (const WorkloadInfo* info : registry.workloads()) {
    d.targets.push_back(info->name);
    std::vector<std::string>& keys = d.params[info->name];
    for (const ParamSpec& spec : info->params) {
      keys.push_back(spec.key + "=");
      all_params.insert(spec.key + "=");
      const std::vector<std::string> values = values_of(spec, d.engines);
      if (values.empty()) continue;
      d.values[info->name + ":" + spec.key] = values;
      d.values_by_key[spec.key].insert(values.begin(), values.end());
    }
  }
  for (const BuiltinSuite& suite : builtin_suites()) {
    d.targets.emplace_back(suite.name);
    d.targets.push_back(fmt::format("suite:{}", suite.name));
  }
  d.all_params.assign(all_params.begin(), all_params.end());
  for (const OutputFormat& format : output_formats()) d.output_formats.emplace_back(format.name);
  for (ResultFormat format : result_formats()) d.formats.emplace_back(to_string(format));
  d.formats.insert(d.formats.begin(), "auto");
  return d;
}

// `case` arms shared by both scripts: params of the workload in $workload, values of $key.
std::string data_functions(const CompletionData& d) {
  std::string out = "__iobench_params() {\n  case $1 in\n";
  for (const auto& [workload, keys] : d.params) {
    if (shell_safe(workload)) out += fmt::format("    {}) echo '{}' ;;\n", workload, words(keys));
  }
  out += fmt::format("    *) echo '{}' ;;\n  esac\n}}\n", words(d.all_params));
  out += "__iobench_values() {\n  case $1:$2 in\n";
  for (const auto& [key, values] : d.values) {
    if (shell_safe(key)) out += fmt::format("    {}) echo '{}'; return ;;\n", key, words(values));
  }
  out += "  esac\n  case $2 in\n";
  for (const auto& [key, values] : d.values_by_key) {
    if (!shell_safe(key)) continue;
    out += fmt::format("    {}) echo '{}' ;;\n", key,
                       words(std::vector<std::string>(values.begin(), values.end())));
  }
  out += "  esac\n}\n";
  return out;
}

std::string join_arms(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    if (!shell_safe(n)) continue;
    if (!out.empty()) out += '|';
    out += n;
  }
  return out;
}

constexpr std::string_view kCommands = "run validate list compare report history completion";

// The walk over the words before the cursor, shared by both shells: the command is the first
// word that is neither an option, an option's value nor key=value; the workload the second.
std::string word_walk(const CompletionData& d, std::string_view first_index,
                      std::string_view word) {
  return fmt::format(
      "  local i w command= workload= skip=\n"
      "  for ((i = {}; i < __iobench_cword; i++)); do\n"
      "    w={}\n"
      "    if [[ -n $skip ]]; then skip=; continue; fi\n"
      "    case $w in\n"
      "      {}) skip=1; continue ;;\n"
      "      -*|*=*) continue ;;\n"
      "    esac\n"
      "    if [[ -z $command ]]; then command=$w; elif [[ -z $workload ]]; then workload=$w; fi\n"
      "  done\n",
      first_index, word, join_arms(d.value_options));
}

std::string bash_script(const CompletionData& d) {
  std::string s =
      fmt::format("# bash completion for iobench {} (generated by `iobench completion bash`)\n",
                  IOBENCH_VERSION);
  s += data_functions(d);
  s +=
      "# Adds each candidate that extends $1 to COMPREPLY. bash splits the word at the characters\n"
      "# of COMP_WORDBREAKS (= and : by default) and completes only the part after the last\n"
      "# one, so that part of $1 is cut from the candidates.\n"
      "__iobench_reply() {\n"
      "  local cur=$1 cut w\n"
      "  shift\n"
      "  cut=${cur%\"${cur##*[=:]}\"}\n"
      "  [[ -n $cut && $COMP_WORDBREAKS != *\"${cut: -1}\"* ]] && cut=\n"
      "  for w in \"$@\"; do\n"
      "    [[ $w == \"$cur\"* ]] && COMPREPLY+=(\"${w#\"$cut\"}\")\n"
      "  done\n"
      "}\n"
      "_iobench() {\n"
      "  COMPREPLY=()\n"
      "  # The words up to the cursor, split at blanks only (COMP_WORDS is also split at =).\n"
      "  local line=${COMP_LINE:0:COMP_POINT} cur= prev=\n"
      "  local -a __iobench_words\n"
      "  read -ra __iobench_words <<<\"$line\"\n"
      "  [[ $line == *[[:blank:]] || ${#__iobench_words[@]} -eq 0 ]] && __iobench_words+=('')\n"
      "  local __iobench_cword=$((${#__iobench_words[@]} - 1))\n"
      "  cur=${__iobench_words[__iobench_cword]}\n"
      "  ((__iobench_cword > 0)) && prev=${__iobench_words[__iobench_cword - 1]}\n";
  s += fmt::format(
      "  case $prev in\n"
      "    -d|--dir) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n"
      "    -o|--output|--html|--time-series-csv|--live-csv|--again|--plugin|--store)\n"
      "      COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
      "    -f|--format) __iobench_reply \"$cur\" {}; return ;;\n"
      "    --engine) __iobench_reply \"$cur\" {}; return ;;\n"
      "    --from) __iobench_reply \"$cur\" {}; return ;;\n"
      "    {}) return ;;\n"
      "  esac\n"
      "  if [[ $cur == -* ]]; then __iobench_reply \"$cur\" {}; return; fi\n",
      words(d.output_formats), words(d.engines), words(d.formats), join_arms(d.value_options),
      words(d.options));
  s += word_walk(d, "1", "${__iobench_words[i]}");
  s += fmt::format(
      "  if [[ -z $command ]]; then __iobench_reply \"$cur\" {}; return; fi\n"
      "  case $command in\n"
      "    compare|report) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
      "    completion) [[ -z $workload ]] && __iobench_reply \"$cur\" bash zsh; return ;;\n"
      "    history)\n"
      "      if [[ -z $workload ]]; then COMPREPLY=($(compgen -f -- \"$cur\")); else\n"
      "        compopt -o nospace 2>/dev/null\n"
      "        __iobench_reply \"$cur\" workload= host= fs= kernel= last=\n"
      "      fi\n"
      "      return ;;\n"
      "    run|validate) ;;\n"
      "    *) return ;;\n"
      "  esac\n"
      "  if [[ -z $workload && $cur != *=* ]]; then\n"
      "    __iobench_reply \"$cur\" {}\n"
      "    COMPREPLY+=($(compgen -f -X '!*.json' -- \"$cur\"))\n"
      "    return\n"
      "  fi\n"
      "  if [[ $cur == *=* ]]; then\n"
      "    local key=${{cur%%=*}} v\n"
      "    local -a values\n"
      "    for v in $(__iobench_values \"$workload\" \"$key\"); do values+=(\"$key=$v\"); done\n"
      "    __iobench_reply \"$cur\" \"${{values[@]}}\"\n"
      "    return\n"
      "  fi\n"
      "  compopt -o nospace 2>/dev/null\n"
      "  __iobench_reply \"$cur\" $(__iobench_params \"$workload\")\n"
      "}}\n"
      "complete -F _iobench iobench\n",
      kCommands, words(d.targets));
  return s;
}

std::string zsh_script(const CompletionData& d) {
  std::string s = fmt::format(
      "#compdef iobench\n"
      "# zsh completion for iobench {} (generated by `iobench completion zsh`)\n",
      IOBENCH_VERSION);
  s += data_functions(d);
  s += "local cur=${words[CURRENT]} prev=${words[CURRENT-1]}\n"
       "local __iobench_cword=$CURRENT\n";
  s += fmt::format(
      "case $prev in\n"
      "  -d|--dir) _files -/; return ;;\n"
      "  -o|--output|--html|--time-series-csv|--live-csv|--again|--plugin|--store)\n"
      "    _files; return ;;\n"
      "  -f|--format) compadd -- {}; return ;;\n"
      "  --engine) compadd -- {}; return ;;\n"
      "  --from) compadd -- {}; return ;;\n"
      "  {}) return ;;\n"
      "esac\n"
      "if [[ $cur == -* ]]; then compadd -- {}; return; fi\n",
      words(d.output_formats), words(d.engines), words(d.formats), join_arms(d.value_options),
      words(d.options));
  // zsh's words[] starts at 1 with the command name: the walk starts at 2.
  std::string walk = word_walk(d, "2", "${words[i]}");
  s += walk;
  s += fmt::format(
      "if [[ -z $command ]]; then compadd -- {}; return; fi\n"
      "case $command in\n"
      "  compare|report) _files; return ;;\n"
      "  completion) [[ -z $workload ]] && compadd -- bash zsh; return ;;\n"
      "  history)\n"
      "    if [[ -z $workload ]]; then _files; else compadd -S '' -- workload= host= fs= kernel= "
      "last=; fi\n"
      "    return ;;\n"
      "  run|validate) ;;\n"
      "  *) return ;;\n"
      "esac\n"
      "if [[ -z $workload && $cur != *=* ]]; then\n"
      "  compadd -- {}\n"
      "  _files -g '*.json'\n"
      "  return\n"
      "fi\n"
      "if [[ $cur == *=* ]]; then\n"
      "  local key=${{cur%%=*}}\n"
      "  compset -P '*='\n"
      "  compadd -- ${{=$(__iobench_values \"$workload\" \"$key\")}}\n"
      "  return\n"
      "fi\n"
      "compadd -S '' -- ${{=$(__iobench_params \"$workload\")}}\n",
      kCommands, words(d.targets));
  return s;
}

}  // namespace

std::string completion_script(std::string_view shell, const Registry& registry,
                              const std::vector<CompletionOption>& options) {
  const CompletionData data = gather(registry, options);
  if (shell == "bash") return bash_script(data);
  if (shell == "zsh") return zsh_script(data);
  throw ConfigError(fmt::format(
      "completion: '{}' is not a shell iobench completes; give bash or zsh", printable(shell)));
}

}  // namespace iobench::cli
