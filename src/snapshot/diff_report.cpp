#include "snapshot/diff_report.hpp"

#include <cstdio>

#include "core/json_text.hpp"
#include "core/text.hpp"
#include "snapshot/diff.hpp"

namespace dlready {
namespace {

std::string side_name(const Stack& s, const std::string& path) {
  return s.host.empty() ? path : path + " (" + s.host + (s.created.empty() ? "" : ", " + s.created) + ")";
}

std::string diff_json(const Stack& before, const std::string& before_path, const Stack& after,
                      const std::string& after_path, const std::vector<StackChange>& changes) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& c : changes) rows.push_back({{"area", c.area}, {"key", c.key}, {"before", c.before}, {"after", c.after}});
  nlohmann::json why = nlohmann::json::object();
  for (const auto& c : changes) why[c.area] = why_it_matters(c.area);
  nlohmann::json j = {{"schema", "dlready.diff/1"},         {"before", side_name(before, before_path)},
                      {"after", side_name(after, after_path)}, {"changes", rows},
                      {"why", why},                           {"consequences", consequences(before, after)}};
  return json_text(j, 2) + "\n";
}

}  // namespace

DiffReport render_diff(const Stack& before, const std::string& before_path, const Stack& after,
                       const std::string& after_path, bool json) {
  auto changes = diff_stacks(before, after);
  DiffReport r{"", changes.size()};
  if (json) {
    r.text = diff_json(before, before_path, after, after_path, changes);
    return r;
  }
  // Everything below comes from the two files: written with control characters escaped.
  r.text = "before: " + printable(side_name(before, before_path)) + "\nafter:  " + printable(side_name(after, after_path)) + "\n";
  if (changes.empty()) {
    r.text += "\nno differences in what matters to a training job (" + std::to_string(before.items.size()) +
              " items compared)\n";
    return r;
  }
  std::string area;
  char row[2048];
  for (const auto& c : changes) {
    if (c.area != area) {
      area = c.area;
      r.text += "\n" + area + " — " + why_it_matters(area) + "\n";
    }
    std::snprintf(row, sizeof row, "  %-34s %s -> %s\n", printable(c.key, 256).c_str(),
                  c.before.empty() ? "(absent)" : printable(c.before, 512).c_str(),
                  c.after.empty() ? "(absent)" : printable(c.after, 512).c_str());
    r.text += row;
  }
  auto meaning = consequences(before, after);
  if (!meaning.empty()) r.text += "\nwhat this means\n";
  for (const auto& m : meaning) r.text += "  " + printable(m) + "\n";
  r.text += "\n" + std::to_string(changes.size()) + " difference(s)\n";
  return r;
}

ExitCode run_diff_command(const std::string& before_path, const std::string& after_path, bool json) {
  Stack before = read_stack(before_path), after = read_stack(after_path);
  for (const Stack* s : {&before, &after})
    if (!s->error.empty()) {
      std::fprintf(stderr, "dlready diff: %s\n", s->error.c_str());
      return ExitCode::usage;
    }
  auto report = render_diff(before, before_path, after, after_path, json);
  std::fwrite(report.text.data(), 1, report.text.size(), stdout);
  return report.differences ? ExitCode::failed : ExitCode::ok;
}

}  // namespace dlready
