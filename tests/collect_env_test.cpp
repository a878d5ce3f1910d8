// Bug-report parity with `python -m torch.utils.collect_env` (issue 16): the doctor, reading files
// only, gives the same values for the fields both can know, on this machine with the pinned venv.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>

#include "core/posix_fs.hpp"
#include "core/text.hpp"
#include "fixture.hpp"

namespace dlready::test {
namespace {

std::string venv() {
  return std::string(std::getenv("HOME") ? std::getenv("HOME") : "/root") + "/.cache/dlready/venv-torch2.11.0-tv0.26.0";
}

TEST(CollectEnvParity, TheFieldsBothKnowAgree) {
  if (!path_exists(venv() + "/bin/python")) GTEST_SKIP() << "pinned venv not installed";
  std::map<std::string, std::string> theirs;
  for (const auto& l : lines(command_output(venv() + "/bin/python -m torch.utils.collect_env 2>/dev/null"))) {
    auto c = l.find(": ");
    if (c != std::string::npos) theirs.emplace(l.substr(0, c), l.substr(c + 2));
  }
  ASSERT_TRUE(theirs.count("PyTorch version")) << "collect_env printed nothing usable";
  auto j = nlohmann::json::parse(command_output("VIRTUAL_ENV=" + venv() + " " + DLREADY_BINARY + " doctor --json --no-cache"));
  auto ours = j.at("collect_env").get<std::map<std::string, std::string>>();
  for (const char* same : {"PyTorch version", "CUDA used to build PyTorch", "OS", "Libc version", "Python platform",
                           "Clang version", "CUDA runtime version"})
    EXPECT_EQ(ours[same], theirs[same]) << same;
  EXPECT_EQ(theirs["Python version"].rfind(ours["Python version"] + " ", 0), 0u) << theirs["Python version"];
  EXPECT_EQ(theirs["CMake version"].rfind(ours["CMake version"], 0), 0u) << theirs["CMake version"];  // 3.25 of 3.25.1
  EXPECT_NE(theirs["GCC version"].find(") " + ours["GCC version"] + "."), std::string::npos) << theirs["GCC version"];
  EXPECT_EQ(theirs["Is CUDA available"] + " (predicted)", ours["Is CUDA available"]);
  for (const char* lib : {"[pip3] torch==", "[pip3] numpy==", "[pip3] triton=="}) {
    auto at = ours["Versions of relevant libraries"].find(lib);
    ASSERT_NE(at, std::string::npos) << lib;
  }
}

}  // namespace
}  // namespace dlready::test
