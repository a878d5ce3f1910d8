// docs/architecture.md's layer table is the rule: every #include "<layer>/..." under src/ goes to
// the folder itself or to a layer the table allows it (directly or through the layers it builds on),
// and the table has no cycle.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "compat/compat.hpp"
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

// The paths of the project a text names ("facts/fact_table.hpp", "src/probe/linux/pci_probe.cpp",
// "docs/architecture.md") that exist neither from the clone's root nor from src/. A path is a
// word of [A-Za-z0-9_./-] with a known extension whose first folder is one of the project's; a
// pattern ("facts_<group>.cpp") or another project's path ("torch/version.py") is not one.
std::vector<std::string> stale_paths(const std::string& text, const std::string& root, const std::string& beside = "") {
  static const std::set<std::string> kFolders = [&] {
    std::set<std::string> f = {"src", "docs", "tests", "scripts", "bench", "cmake", "data", "python"};
    for (const auto& layer : list_directory(std::string(DLREADY_SOURCE_DIR) + "/src")) f.insert(layer);
    return f;
  }();
  auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_./-").find(c) != std::string_view::npos; };
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size();) {
    if (!word_char(text[i])) { ++i; continue; }
    size_t start = i;
    while (i < text.size() && word_char(text[i])) ++i;
    std::string word = text.substr(start, i - start);
    while (!word.empty() && (word.back() == '.' || word.back() == '-')) word.pop_back();
    auto slash = word.find('/');
    if (slash == std::string::npos || !kFolders.count(word.substr(0, slash)) || (i < text.size() && text[i] == '<'))
      continue;
    if (start > 0 && (text[start - 1] == '<' || text[start - 1] == '$' || text[start - 1] == '{')) continue;
    bool known = false;
    for (const char* ext : {".hpp", ".cpp", ".md", ".cmake", ".sh", ".py", ".tsv", ".c", ".h", ".json", ".in", ".map"})
      known = known || ends_with(word, ext);
    if (known && !path_exists(root + "/" + word) && !path_exists(root + "/src/" + word) &&
        (beside.empty() || !path_exists(beside + "/" + word)))
      out.push_back(word);
  }
  return out;
}

TEST(Architecture, EveryPathNamedInACommentOrDocExists) {
  const std::string root = DLREADY_SOURCE_DIR;
  std::vector<std::string> stale;
  std::vector<std::string> dirs = {"src", "docs", "tests", "scripts", "bench", "cmake", "python"};
  for (const auto& dir : dirs)
    for (const auto& file : files_under(root + "/" + dir)) {
      if (starts_with(file, "golden/") || starts_with(file, "fuzz/corpus") || starts_with(file, "fuzz/regressions") ||
          file == "architecture_test.cpp")  // this file names a moved path on purpose
        continue;
      const std::string path = root + "/" + dir + "/" + file;
      for (const auto& p : stale_paths(read_text(path), root, path.substr(0, path.rfind('/'))))
        stale.push_back(dir + "/" + file + ": " + p);
    }
  for (const char* file : {"README.md", "CMakeLists.txt"})
    for (const auto& p : stale_paths(read_text(root + "/" + file), root)) stale.push_back(std::string(file) + ": " + p);
  EXPECT_TRUE(stale.empty()) << stale.size() << " stale paths:\n" << join(stale, "\n");
}

// Issue 62, item 11: the README's sample outputs name the tables the binary carries (a sample said
// "tables of 2026-12-01" for a binary of 2026-12-05's).
TEST(Readme, ItsSampleOutputsNameTheBinarysTableDate) {
  const std::string readme = read_text(std::string(DLREADY_SOURCE_DIR) + "/README.md");
  const std::string marker = "tables of ";
  int seen = 0;
  for (size_t at = readme.find(marker); at != std::string::npos; at = readme.find(marker, at + 1)) {
    const std::string date = readme.substr(at + marker.size(), 10);
    if (date.size() != 10 || !std::isdigit(static_cast<unsigned char>(date[0])) || date[4] != '-') continue;
    ++seen;
    const size_t line = std::count(readme.begin(), readme.begin() + static_cast<long>(at), '\n') + 1;
    EXPECT_EQ(date, kCompatTableDate) << "README.md:" << line;
  }
  EXPECT_GE(seen, 3);
}

TEST(Architecture, TheStalePathCheckFindsAMovedFile) {
  const std::string root = DLREADY_SOURCE_DIR;
  EXPECT_EQ(stale_paths("// see core/fact_table.hpp and facts/fact_table.hpp.", root),
            std::vector<std::string>{"core/fact_table.hpp"});
  EXPECT_TRUE(stale_paths("torch/version.py, facts/facts_<group>.cpp, src/probe/linux/pci_probe.cpp", root).empty());
}

}  // namespace
}  // namespace dlready::test
