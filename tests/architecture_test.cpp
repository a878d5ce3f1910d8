// docs/architecture.md's layer table is the rule: every #include "<layer>/..." under src/ goes to
// the folder itself or to a layer the table allows it (directly or through the layers it builds on),
// and the table has no cycle.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "os/posix_fs.hpp"
#include "core/text.hpp"
#include "fixture.hpp"

namespace dlready::test {
namespace {

using LayerTable = std::map<std::string, std::set<std::string>>;

// "| `cli` | doctor, report, ... | holds |" rows: each layer and the layers it builds on.
LayerTable read_layer_table(const std::string& markdown) {
  LayerTable table;
  static const std::regex kRow(R"(^\| `(\w+)` \| ([^|]*) \|)");
  for (const auto& line : lines(markdown)) {
    std::smatch m;
    if (std::regex_search(line, m, kRow)) table[m[1].str()];
  }
  for (const auto& line : lines(markdown)) {
    std::smatch m;
    if (!std::regex_search(line, m, kRow)) continue;
    std::string allowed = m[2].str();
    static const std::regex kWord(R"(\w+)");
    for (auto it = std::sregex_iterator(allowed.begin(), allowed.end(), kWord); it != std::sregex_iterator(); ++it)
      if (table.count(it->str())) table[m[1].str()].insert(it->str());
  }
  return table;
}

// What a layer may include: its own layers and theirs, all the way down; a cycle is reported.
std::set<std::string> reachable(const LayerTable& table, const std::string& layer, std::string& cycle) {
  std::set<std::string> seen;
  std::vector<std::pair<std::string, std::vector<std::string>>> todo = {{layer, {layer}}};
  while (!todo.empty()) {
    auto [at, path] = todo.back();
    todo.pop_back();
    for (const auto& next : table.at(at)) {
      if (next == layer) cycle = join(path, " -> ") + " -> " + next;
      if (!seen.insert(next).second) continue;
      auto longer = path;
      longer.push_back(next);
      todo.push_back({next, longer});
    }
  }
  return seen;
}

// A layer's files, its platform folders' too (probe/windows/...), relative to the layer.
std::vector<std::string> files_under(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& name : list_directory(dir)) {
    if (!is_directory(dir + "/" + name)) {
      files.push_back(name);
      continue;
    }
    for (const auto& inner : files_under(dir + "/" + name)) files.push_back(name + "/" + inner);
  }
  return files;
}

TEST(Architecture, EveryIncludeFollowsTheLayerTable) {
  std::string root = DLREADY_SOURCE_DIR;
  auto table = read_layer_table(read_text(root + "/docs/architecture.md"));
  ASSERT_GE(table.size(), 15u) << "the table in docs/architecture.md was not found";
  std::vector<std::string> violations;
  for (const auto& layer : list_directory(root + "/src")) {
    if (!is_directory(root + "/src/" + layer)) continue;
    ASSERT_TRUE(table.count(layer)) << "src/" << layer << " has no row in docs/architecture.md's layer table";
    std::string cycle;
    auto allowed = reachable(table, layer, cycle);
    EXPECT_TRUE(cycle.empty()) << "a cycle in the layer table: " << cycle;
    for (const auto& file : files_under(root + "/src/" + layer)) {
      static const std::regex kInclude(R"re(#include "(\w+)/)re");
      std::string text = read_text(root + "/src/" + layer + "/" + file);
      for (auto it = std::sregex_iterator(text.begin(), text.end(), kInclude); it != std::sregex_iterator(); ++it) {
        std::string to = (*it)[1].str();
        if (to != layer && !allowed.count(to)) violations.push_back("src/" + layer + "/" + file + " includes " + to + "/");
      }
    }
  }
  EXPECT_TRUE(violations.empty()) << join(violations, "\n");
}

TEST(Architecture, TheCheckFindsAnIncludePastTheTable) {
  auto table = read_layer_table("| layer | may include | holds |\n|---|---|---|\n| `core` | — | x |\n"
                                "| `probe` | core | x |\n| `diagnose` | core | x |\n| `doctor` | probe, diagnose | x |\n");
  std::string cycle;
  auto probe = reachable(table, "probe", cycle);
  EXPECT_FALSE(probe.count("diagnose")) << "probe may not include diagnose";
  EXPECT_TRUE(reachable(table, "doctor", cycle).count("core")) << "doctor reaches core through probe";
  table["core"].insert("doctor");
  reachable(table, "core", cycle);
  EXPECT_NE(cycle.find("core -> doctor"), std::string::npos) << cycle;
}

}  // namespace
}  // namespace dlready::test
