#include "cli/shell_completion.hpp"
#include "cli/help_format.hpp"

#include <vector>

#include "core/text.hpp"

namespace dlready {
namespace {

struct OptionSpec {
  std::vector<std::string> names;  // "--epochs", "-h"
  bool takes_value = false;
  std::vector<std::string> choices;  // an enum's names ("mlp|cnn")
  std::string description, type, default_value;
};

struct CommandSpec {
  std::string path;  // "train", "audit verify"
  std::string description;
  std::vector<std::string> subcommands, positionals;
  std::vector<std::string> positional_choices;  // the first positional's fixed words (bench's what)
  std::vector<OptionSpec> options;
};

std::vector<std::string> split_bar(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  for (size_t bar; (bar = s.find('|', at)) != std::string::npos; at = bar + 1) out.push_back(s.substr(at, bar - at));
  out.push_back(s.substr(at));
  return out;
}

// The words a value may be, from its type: an enum's "mlp|cnn", or an IsMember check's
// "TEXT:{error,warning}". A placeholder word ("cuda:N") is shown in help but not offered.
std::vector<std::string> choices_of(const std::string& type) {
  std::vector<std::string> words;
  if (auto open = type.find(":{"); open != std::string::npos && !type.empty() && type.back() == '}') {
    std::string inside = type.substr(open + 2, type.size() - open - 3);
    for (size_t at = 0, comma;; at = comma + 1) {
      comma = inside.find(',', at);
      words.push_back(inside.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
      if (comma == std::string::npos) break;
    }
  } else if (type.find('|') != std::string::npos && type.find(' ') == std::string::npos) {
    words = split_bar(type);
  }
  std::vector<std::string> out;
  for (auto& w : words)
    if (!w.empty() && w != "N" && !ends_with(w, ":N")) out.push_back(w);
  return out;
}

CommandSpec spec_of(const CLI::App& cmd, const std::string& path) {
  CommandSpec c{path, cmd.get_description(), {}, {}, {}, {}};
  for (const CLI::App* sub : cmd.get_subcommands([](const CLI::App*) { return true; })) c.subcommands.push_back(sub->get_name());
  for (const CLI::Option* o : cmd.get_options()) {
    if (o->get_positional()) {
      if (c.positionals.empty()) c.positional_choices = choices_of(o->get_type_name());
      c.positionals.push_back(o->get_name());
      continue;
    }
    OptionSpec s;
    for (const auto& n : o->get_lnames()) s.names.push_back("--" + n);
    for (const auto& n : o->get_snames()) s.names.push_back("-" + n);
    if (s.names.empty()) continue;
    s.takes_value = o->get_type_size_max() > 0 && !o->get_type_name().empty();  // flags have no type
    s.description = o->get_description();
    s.type = o->get_type_name();
    s.default_value = o->get_default_str();
    s.choices = choices_of(s.type);
    c.options.push_back(s);
  }
  return c;
}

// Every command, depth first: "" (dlready itself), "doctor", ..., "audit", "audit verify".
std::vector<CommandSpec> commands_of(const CLI::App& app) {
  std::vector<CommandSpec> out = {spec_of(app, "")};
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    out.push_back(spec_of(*sub, sub->get_name()));
    for (const CLI::App* subsub : sub->get_subcommands([](const CLI::App*) { return true; }))
      out.push_back(spec_of(*subsub, sub->get_name() + " " + subsub->get_name()));
  }
  return out;
}

std::string bash_script(const std::vector<CommandSpec>& commands) {
  std::string s =
      "# bash completion for dlready (dlready completion bash; generated from its command table)\n"
      "_dlready() {\n"
      "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} path= i w\n"
      "  # The command as typed so far: its words that name (sub)commands, options skipped.\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    w=${COMP_WORDS[i]}\n"
      "    # After launch's --: the program to run first (dlready, or a command); a dlready after it\n"
      "    # completes as its own command line (launch -- dlready train --epochs ...); another program's\n"
      "    # arguments are files.\n"
      "    if [[ $w == -- ]]; then\n"
      "      if ((i == COMP_CWORD - 1)); then COMPREPLY=($(compgen -W dlready -- \"$cur\") $(compgen -c -- \"$cur\")); return; fi\n"
      "      if [[ ${COMP_WORDS[i+1]##*/} == dlready ]]; then path=; ((i++)); continue; fi\n"
      "      COMPREPLY=($(compgen -f -- \"$cur\")); return\n"
      "    fi\n"
      "    [[ $w == -* ]] && continue\n"
      "    case \"${path:+$path }$w\" in\n";
  std::vector<std::string> paths;
  for (const auto& c : commands)
    if (!c.path.empty()) paths.push_back(shell_quote(c.path));
  s += "      " + join(paths, "|") + ") path=\"${path:+$path }$w\" ;;\n    esac\n  done\n";
  s += "  case \"$path\" in\n";
  for (const auto& c : commands) {
    s += "    " + shell_quote(c.path) + ")\n      case \"$prev\" in\n";
    std::vector<std::string> valued, unnamed;
    for (const auto& o : c.options) {
      if (!o.takes_value) continue;
      if (!o.choices.empty())
        s += "        " + join(o.names, "|") + ") COMPREPLY=($(compgen -W " + shell_quote(join(o.choices, " ")) +
             " -- \"$cur\")); return ;;\n";
      else if (value_is_not_a_file(o.type, o.names.front()))
        unnamed.insert(unnamed.end(), o.names.begin(), o.names.end());
      else
        valued.insert(valued.end(), o.names.begin(), o.names.end());
    }
    if (!valued.empty()) s += "        " + join(valued, "|") + ") COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n";
    // A number, a name, a version: nothing to offer, and never a file name.
    if (!unnamed.empty()) s += "        " + join(unnamed, "|") + ") COMPREPLY=(); return ;;\n";
    std::vector<std::string> words;
    for (const auto& o : c.options) words.insert(words.end(), o.names.begin(), o.names.end());
    s += "      esac\n      if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W " + shell_quote(join(words, " ")) +
         " -- \"$cur\"))\n";
    if (!c.subcommands.empty())
      s += "      else COMPREPLY=($(compgen -W " + shell_quote(join(c.subcommands, " ")) + " -- \"$cur\"))\n";
    else if (!c.positional_choices.empty())
      s += "      else COMPREPLY=($(compgen -W " + shell_quote(join(c.positional_choices, " ")) + " -- \"$cur\"))\n";
    else
      s += "      else COMPREPLY=($(compgen -f -- \"$cur\"))\n";
    s += "      fi ;;\n";
  }
  s += "  esac\n}\ncomplete -o filenames -F _dlready dlready\n";
  return s;
}

std::string fish_script(const std::vector<CommandSpec>& commands) {
  std::string s = "# fish completion for dlready (dlready completion fish; generated from its command table)\n"
                  "complete -c dlready -f\n";
  for (const auto& c : commands) {
    if (c.path.empty()) {
      for (const auto& sub : commands)
        if (!sub.path.empty() && sub.path.find(' ') == std::string::npos)
          s += "complete -c dlready -n __fish_use_subcommand -a " + sub.path + " -d " + shell_quote(sub.description.substr(0, 80)) + "\n";
      continue;
    }
    std::string first = c.path.substr(0, c.path.find(' '));
    std::string when = "__fish_seen_subcommand_from " + first;
    for (const auto& sub : c.subcommands)
      s += "complete -c dlready -n " + shell_quote(when) + " -a " + sub + "\n";
    for (const auto& o : c.options) {
      s += "complete -c dlready -n " + shell_quote(when);
      for (const auto& n : o.names) s += n.rfind("--", 0) == 0 ? " -l " + n.substr(2) : " -s " + n.substr(1);
      if (!o.choices.empty()) s += " -x -a " + shell_quote(join(o.choices, " "));
      else if (o.takes_value && value_is_not_a_file(o.type, o.names.front())) s += " -x";
      else if (o.takes_value) s += " -r -F";
      s += " -d " + shell_quote(o.description.substr(0, 80)) + "\n";
    }
    if (!c.positional_choices.empty())
      s += "complete -c dlready -n " + shell_quote(when) + " -x -a " + shell_quote(join(c.positional_choices, " ")) + "\n";
    else if (!c.positionals.empty())
      s += "complete -c dlready -n " + shell_quote(when) + " -F\n";
  }
  return s;
}

// roff text: a leading '.' or '\'' would be a request, and '\' an escape.
std::string roff(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '\\' ? std::string("\\e") : c == '-' ? std::string("\\-") : std::string(1, c);
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}

// A .TP list of (term, text) pairs under a section heading.
std::string man_list(const char* section, const std::vector<std::pair<const char*, const char*>>& items) {
  std::string s = std::string(".SH ") + section + "\n";
  for (const auto& [term, text] : items) s += ".TP\n.B " + roff(term) + "\n" + roff(text) + "\n";
  return s;
}

// Every variable dlready reads of its own, and the common ones it honours.
std::string man_environment() {
  return man_list(
      "ENVIRONMENT",
      {{"DLREADY_KEY_FILE", "the key file (dlready keygen) that seals and opens model files: the default of --key-file"},
       {"DLREADY_JOB_TOKEN", "launch: the job's shared secret when --job-token-file is not given"},
       {"DLREADY_TORCH_INDEX", "setup: a mirror of https://download.pytorch.org/whl/ (the default of --torch-index)"},
       {"DLREADY_OFFLINE", "set (not 0): setup reads no index over the network, as --offline"},
       {"DLREADY_TRAIN_MODULE", "the LibTorch module (libdlready_train.so) to load instead of the one found beside dlready"},
       {"DLREADY_MODULE_CACHE", "where modules built for the active environment's torch are kept (default: the cache below, modules/)"},
       {"DLREADY_TRACE_LOADING", "set (not 0): print each CUDA library loaded before the module, and how"},
       {"DLREADY_PARENT_PYTHON", "set by the pip package's dlready command: the Python it was installed into (found first)"},
       {"DLREADY_PROGRESS", "set by dlready launch for rank 0: draw the progress line although output is a pipe"},
       {"PIP_INDEX_URL, UV_INDEX_URL", "setup and export --hashes: the index pip and uv use here (the default of --index-url)"},
       {"NO_COLOR", "set: no colour in the doctor's report (as --no-color)"},
       {"XDG_CACHE_HOME", "the cache's parent folder (default ~/.cache)"},
       {"CUDA_VISIBLE_DEVICES", "which GPUs train, verify, bench and launch --nproc-per-node gpu see; the doctor checks it"},
       {"OMP_NUM_THREADS", "intra-op threads (train's --threads wins; launch sets 1 per rank unless set)"},
       {"TORCH_CPP_LOG_LEVEL", "WARNING or INFO shows LibTorch's own log lines (c10d's retries), off by default"}});
}

std::string man_files() {
  return man_list("FILES",
                  {{"~/.cache/dlready/doctor-cache", "the doctor's cache of library scans (--no-cache skips it)"},
                   {"~/.cache/dlready/index", "what PyTorch's index served last (releases per platform), for offline advice"},
                   {"~/.cache/dlready/modules", "LibTorch modules built for the user's own torch"},
                   {"runs/latest", "train's default --out: checkpoint.dlr, metrics.jsonl, curves.svg, confusion.svg, audit.jsonl"}});
}

std::string man_examples() {
  return man_list(
      "EXAMPLES",
      {{"dlready doctor", "what is wrong with this machine for deep learning, and the command that fixes it"},
       {"dlready setup --dry-run", "the PyTorch install that fits this machine, without installing it"},
       {"dlready verify --require-gpu && ./gpu-job", "run the job only when a GPU passed real work"},
       {"dlready train --epochs 5 --out runs/first", "the tutorials' training job (CUDA when usable, else the CPU)"},
       {"dlready launch --nproc-per-node auto -- dlready train --out runs/dp", "data-parallel, one rank per GPU (else per processor)"},
       {"dlready capture", "this machine as dlready-capture-<date>.tar.gz, for a bug report (redacted)"},
       {"dlready diff works.json broken.json", "what differs between two machines' snapshots (dlready snapshot --out FILE)"}});
}

}  // namespace

std::string completion_script(const CLI::App& app, const std::string& shell) {
  auto commands = commands_of(app);
  if (shell == "bash") return bash_script(commands);
  // zsh runs bash completion functions through bashcompinit: one script, the same words.
  if (shell == "zsh")
    return "#compdef dlready\n# zsh completion for dlready (dlready completion zsh; generated from its command table)\n"
           "autoload -U +X bashcompinit && bashcompinit\n" + bash_script(commands);
  if (shell == "fish") return fish_script(commands);
  return "";
}

std::string man_page(const CLI::App& app, const std::string& version, const std::string& date) {
  auto commands = commands_of(app);
  std::string what = app.get_description();
  if (auto dash = what.find(" \u2014 "); dash != std::string::npos) what = what.substr(dash + 5);  // "dlready — make ..."
  std::string s = ".TH DLREADY 1 \"" + date + "\" \"dlready " + version + "\" \"User Commands\"\n.SH NAME\ndlready \\- " +
                  roff(what) + "\n.SH SYNOPSIS\n.B dlready\n.I command\n[\\fIoptions\\fR]\n";
  s += ".SH COMMANDS\n";
  for (const auto& c : commands) {
    if (c.path.empty() || !c.subcommands.empty()) continue;
    s += ".SS \"dlready " + roff(c.path);
    for (const auto& p : c.positionals) s += " " + roff(p);
    s += " [options]\"\n" + roff(c.description) + "\n";
    for (const auto& o : c.options) {
      if (o.names.front() == "--help") continue;
      s += ".TP\n.B " + roff(join(o.names, ", "));
      // A list of choices may break after each comma (troff's \: is a break point that prints nothing).
      if (o.takes_value) {
        s += " \\fI";
        for (char ch : roff(value_label(o.type, o.names.front()))) s += ch == '|' ? std::string("|\\:") : std::string(1, ch);
        s += "\\fR";
      }
      s += "\n" + roff(o.description) + (o.default_value.empty() ? "" : " (default: " + roff(o.default_value) + ")") + "\n";
    }
  }
  s += ".SH EXIT STATUS\n.TP\n0\ndoctor: no error finding; verify: READY; train and the others: done\n"
       ".TP\n1\ndoctor: an error finding; verify: NOT READY; a run that failed\n"
       ".TP\n2\nbad arguments, or the doctor could not run\n"
       ".TP\n3\nthe LibTorch module (or a library it needs) could not be loaded\n"
       ".TP\n130\nstopped by SIGINT or SIGTERM with the state saved\n";
  s += man_environment() + man_files() + man_examples();
  s += ".SH SEE ALSO\n\\fBdlready <command> \\-\\-help\\fR; shell completion: \\fBdlready completion bash|zsh|fish\\fR\n";
  return s;
}

}  // namespace dlready
