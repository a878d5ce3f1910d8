#include <algorithm>
#include <cctype>

#include "core/text.hpp"
#include "diagnose/catalogue.hpp"
#include "compat/compat.hpp"
#include "diagnose/error_signatures.hpp"
#include "report/render.hpp"

namespace dlready {
namespace {

struct Paint {
  bool on;
  std::string operator()(const char* code, const std::string& s) const {
    return on ? std::string("\x1b[") + code + "m" + s + "\x1b[0m" : s;
  }
};

std::string mark(Severity s, const Paint& p) {
  switch (s) {
    case Severity::error: return p("31;1", "✗");
    case Severity::warning: return p("33;1", "!");
    case Severity::info: return p("36", "i");
  }
  return "?";
}

// The most severe warning/error of a report section (info does not change a section's mark).
std::optional<Severity> worst_severity(const Report& r, const std::string& section) {
  std::optional<Severity> worst;
  for (const auto& x : r.findings)
    if (x.check == section && x.severity != Severity::info && (!worst || x.severity > *worst)) worst = x.severity;
  return worst;
}

bool not_applicable(const Report& r, const std::string& section) {
  return std::find(r.not_applicable.begin(), r.not_applicable.end(), section) != r.not_applicable.end();
}

// Whether text starts with a shell command a reader would paste (rather than prose).
bool starts_with_command(const std::string& text) {
  static const char* const kCommands[] = {
      "sudo", "pip", "pip3", "uv", "python", "python3", "dlready", "export", "unset", "conda", "apt", "apt-get",
      "nvidia-smi", "ldconfig", "modprobe", "systemctl", "update-alternatives", "usermod", "chmod", "chown", "ln",
      "ls", "cat", "mkdir", "cmake", "git", ".", "source", "echo", "nvcc", "docker", "rm", "env", "mount",
      // Windows (PowerShell)
      "py", "winget", "New-ItemProperty", "Set-ItemProperty", "&"};
  std::string first = text.substr(0, text.find(' '));
  for (const char* c : kCommands)
    if (first == c) return true;
  return false;
}

// The longest run of backticks in a text: a code span or fence around it needs one more.
size_t longest_backtick_run(const std::string& text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

// What was read from a machine, as Markdown prose on one line: control characters escaped (it never
// starts a line of its own, so it can define no link either), no HTML tag ('<' escaped) and no
// inline or reference link ("](" and "][" escaped; "[H100 SXM5 80GB]" alone stays as it is).
std::string md_text(const std::string& text, size_t max_bytes) {
  std::string in = printable(text, max_bytes), out;
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    bool link = c == ']' && i + 1 < in.size() && (in[i + 1] == '(' || in[i + 1] == '[');
    if (c == '<') out += "&lt;";
    else if (link) out += "&#93;";
    else out += c;
  }
  return out;
}


// The length of "<kind-N>" at `at` ("<home-1>", "<secret-12>"), 0 for anything else.
size_t placeholder_at(const std::string& s, size_t at) {
  size_t i = at + 1;
  while (i < s.size() && std::islower(static_cast<unsigned char>(s[i]))) ++i;
  if (i == at + 1 || i >= s.size() || s[i] != '-') return 0;
  size_t digits = ++i;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == digits || i >= s.size() || s[i] != '>') return 0;
  return i + 1 - at;
}

// One line outside a fenced block: placeholders outside its code spans escaped (a span opens with
// a run of backticks and closes at the next run of the same length, as CommonMark reads it).
std::string escape_line_placeholders(const std::string& line) {
  std::string out;
  for (size_t i = 0; i < line.size();) {
    if (line[i] == '`') {
      size_t run = line.find_first_not_of('`', i) == std::string::npos ? line.size() - i : line.find_first_not_of('`', i) - i;
      size_t close = i + run;
      for (;;) {
        close = line.find(std::string(run, '`'), close);
        if (close == std::string::npos) break;
        size_t end = line.find_first_not_of('`', close);
        if ((end == std::string::npos ? line.size() : end) - close == run) break;
        close = end == std::string::npos ? line.size() : end;
      }
      size_t stop = close == std::string::npos ? i + run : close + run;
      out += line.substr(i, stop - i);
      i = stop;
      continue;
    }
    if (size_t n = line[i] == '<' ? placeholder_at(line, i) : 0) {
      out += "&lt;" + line.substr(i + 1, n - 2) + "&gt;";
      i += n;
      continue;
    }
    out += line[i++];
  }
  return out;
}


std::string escape_placeholders(const std::string& markdown) {
  std::string out;
  std::string fence;  // the open fenced block's fence, "" outside one
  for (size_t start = 0; start < markdown.size();) {
    size_t nl = markdown.find('\n', start);
    size_t end = nl == std::string::npos ? markdown.size() : nl;
    std::string line = markdown.substr(start, end - start);
    size_t ticks = line.find_first_not_of('`');
    ticks = ticks == std::string::npos ? line.size() : ticks;
    if (ticks >= 3 && (fence.empty() || ticks >= fence.size())) {
      fence = fence.empty() ? std::string(ticks, '`') : "";
      out += line;
    } else {
      out += fence.empty() ? escape_line_placeholders(line) : line;
    }
    if (nl != std::string::npos) out += '\n';
    start = end + 1;
  }
  return out;
}

// A code span that holds any text: fenced by more backticks than it holds.
std::string md_code(const std::string& text) {
  std::string fence(longest_backtick_run(text) + 1, '`');
  bool pad = !text.empty() && (text.front() == '`' || text.back() == '`');
  return fence + (pad ? " " : "") + text + (pad ? " " : "") + fence;
}

// A fenced block that holds any lines: its fence is longer than any run of backticks inside.
std::string md_block(const std::string& info, const std::string& body) {
  std::string fence(std::max<size_t>(3, longest_backtick_run(body) + 1), '`');
  return fence + info + "\n" + body + fence + "\n";
}

// A fix as Markdown: commands in code spans (runnable when copied), prose as prose —
// "train on the CPU: `dlready train --device cpu`", "`sudo apt-get install x` (why ...)".
std::string markdown_fix(const std::string& fix) {
  auto code = [](const std::string& cmd) {
    auto paren = cmd.find(" (");
    if (paren != std::string::npos && cmd.back() == ')') return md_code(cmd.substr(0, paren)) + md_text(cmd.substr(paren), 4096);
    return md_code(cmd);
  };
  if (starts_with_command(fix)) return code(fix);
  auto colon = fix.rfind(": ");
  if (colon != std::string::npos && starts_with_command(fix.substr(colon + 2)))
    return md_text(fix.substr(0, colon + 2), 4096) + code(fix.substr(colon + 2));
  return md_text(fix, 4096);
}

}  // namespace

std::string md_prose(const std::string& text) { return md_text(text, 4096); }
std::string md_code_span(const std::string& text) { return md_code(text); }
std::string md_fix(const std::string& fix) { return markdown_fix(fix); }
std::string md_escape_placeholders(const std::string& markdown) { return escape_placeholders(markdown); }

std::string render_text(const Facts& f, const Report& r, const TextStyle& style) {
  Paint p{style.color};
  std::string out = p("1", "dlready doctor") + (f.root == "/" ? "" : "  (root " + f.root + ")") +
                    "  — dlready " DLREADY_VERSION ", compatibility tables of " + kCompatTableDate + "\n\n";
  for (const auto& sec : check_sections()) {
    auto worst = worst_severity(r, sec.id);
    std::string m = worst ? mark(*worst, p) : not_applicable(r, sec.id) ? p("2", "–") : p("32;1", "✓");
    auto facts = section_facts(f, sec.id);
    out += m + " " + p("1", sec.name) + "\n";
    // Facts and evidence quote files of the machine (or of a --root image): printed so that no
    // byte in them reaches the terminal as a control character, and no line runs on for pages.
    for (const auto& l : facts) out += "    " + printable(l, 512) + "\n";
  }
  out += "\n";
  if (r.findings.empty()) {
    out += p("32;1", "No problems found.") + "\n\n";
  } else {
    out += p("1", "Findings") + "\n";
    for (const auto& x : r.findings) {
      out += mark(x.severity, p) + " " + p("1", printable(x.title, 1024)) + "  [" + x.id + "]\n";
      for (const auto& e : x.evidence) out += "    · " + printable(e, 1024) + "\n";
      // Fix lines and the verdict carry paths and names read from the machine: escaped as the
      // evidence is (a control character in a file or registry name never reaches the terminal).
      for (const auto& c : x.fix) out += "    " + p("32", "→ " + printable(c, 4096)) + "\n";
    }
    out += "\n";
  }
  out += p("1", "Verdict") + "\n    " + printable(r.verdict.summary, 4096) + "\n";
  for (const auto& t : r.verdict.torch)
    out += "    torch " + printable(t.version, 256) + " (" + printable(t.location, 1024) + "): " +
           (t.mps_available ? std::string("torch.backends.mps.is_available() would be ") + (*t.mps_available ? "True" : "False")
                            : std::string("torch.cuda.is_available() would be ") + (t.cuda_available ? "True" : "False")) +
           " — " + printable(t.reason, 1024) + "\n";
  if (!r.recommendations.empty()) {
    out += "\n" + p("1", "Recommended install") + "\n";
    for (const auto& rec : r.recommendations) {
      out += "    " + printable(rec.title, 1024) + "\n";
      for (const auto& c : rec.commands) out += "      " + printable(c, 4096) + "\n";
    }
  }
  return out;
}

std::string render_markdown(const Facts& f, const Report& r, const std::string& redacted) {
  std::string out = "## dlready doctor report\n\n";
  // The tutorial's "do not leak sensitive data": a report meant for a public issue says how to hide them.
  out += redacted.empty() ? "> Pasting this into a public issue? `dlready doctor --markdown --redact` replaces user "
                            "names, home directories, host names, addresses and secret-looking values with "
                            "placeholders.\n\n"
                          : "> Redacted (`--redact`): " + redacted + " replaced with placeholders.\n\n";
  // Every line that carries what was read from the machine is escaped as in the text report.
  out += "**Verdict:** " + md_text(r.verdict.summary, 4096) + "\n\n";
  out += "| check | status | facts |\n|---|---|---|\n";
  for (const auto& sec : check_sections()) {
    auto worst = worst_severity(r, sec.id);
    std::vector<std::string> lines;
    for (const auto& l : section_facts(f, sec.id)) lines.push_back(md_text(l, 512));
    std::string facts = join(lines, "<br>");
    std::string cell;
    for (char c : facts) cell += c == '|' ? std::string("\\|") : std::string(1, c);
    std::string status = worst ? to_string(*worst) : not_applicable(r, sec.id) ? "n/a" : "ok";
    out += std::string("| ") + sec.name + " | " + status + " | " + cell + " |\n";
  }
  out += "\n";
  if (!r.findings.empty()) {
    out += "### Findings\n\n";
    for (const auto& x : r.findings) {
      out += std::string("- **") + to_string(x.severity) + "** `" + x.id + "`: " + md_text(x.title, 1024) + "\n";
      for (const auto& e : x.evidence) out += "  - " + md_text(e, 1024) + "\n";
      if (!x.fix.empty()) {
        out += "  - fix:\n";
        for (const auto& c : x.fix) out += "    - " + markdown_fix(printable(c, 4096)) + "\n";
      }
    }
    out += "\n";
  }
  if (!r.verdict.torch.empty()) {
    out += "### PyTorch\n\n";
    for (const auto& t : r.verdict.torch)
      out += "- torch " + md_text(t.version, 256) + " (" + md_code(printable(t.location, 1024)) + "): is_available() " +
             (t.cuda_available ? "True" : "False") + " — " + md_text(t.reason, 1024) + "\n";
    out += "\n";
  }
  // A dist-info's name may hold a line of backticks: the fence is longer than any run inside.
  std::string env_lines;
  for (const auto& [label, value] : collect_env_fields(f, r)) env_lines += label + ": " + printable_lines(value, 512) + "\n";
  out += "### Environment (the fields of `python -m torch.utils.collect_env`, read from files)\n\n" +
         md_block("", env_lines) + "\n";
  for (const auto& rec : r.recommendations) {
    // Code blocks hold commands only; "LibTorch: https://...", "conda: ..." are notes beneath.
    std::string commands, notes;
    for (const auto& c : rec.commands) {
      auto colon = c.find(": ");
      bool note = colon != std::string::npos && colon < 16 && c.substr(0, colon).find_first_of("/=.-") == std::string::npos;
      if (note) notes += "- **" + md_text(c.substr(0, colon), 64) + ":** " + md_text(c.substr(colon + 2), 4096) + "\n";
      else commands += printable(c, 4096) + "\n";
    }
    out += "### " + md_text(rec.title, 1024) + "\n\n";
    if (!commands.empty()) out += md_block("sh", commands);
    if (!notes.empty()) out += (commands.empty() ? "" : "\n") + notes;
  }
  out += "\n<sub>dlready " DLREADY_VERSION ", compatibility tables of " + std::string(kCompatTableDate) + "</sub>\n";
  return out;
}

std::string render_findings_catalogue_markdown() {
  std::string out =
      "# Finding ids\n\nGenerated by `dlready doctor --list-findings` from `src/diagnose/catalogue.cpp`; a test "
      "keeps this file and the catalogue identical. Ids are public API: they never change meaning.\n\n";
  out += "Severity: `error` makes `dlready doctor` exit 1 (the answer to \"can this machine run PyTorch on a GPU?\" "
         "is no); `warning` exits 1 only with `--fail-on warning`; `info` never changes the exit status.\n\n";
  for (const auto& sec : check_sections()) {
    bool header = false;
    for (const auto& e : catalogue()) {
      if (std::string(e.check) != sec.id) continue;
      if (!header) {
        out += std::string("## ") + sec.name + "\n\n";
        header = true;
      }
      out += std::string("### `") + e.id + "` (" + to_string(e.severity) + ")\n\n**" + e.title + ".** " + e.meaning + "\n\n";
      // The messages that point to it (dlready explain recognises them).
      auto signatures = signatures_for_finding(e.id);
      for (const auto* s : signatures) out += "- message: `" + readable_pattern(*s) + "` (" + s->printed_by + ")\n";
      if (!signatures.empty()) out += "\n";
    }
  }
  return out;
}

}  // namespace dlready
