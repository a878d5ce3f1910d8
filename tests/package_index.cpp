#include "package_index.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "fixture.hpp"

namespace dlready::test {

PackageIndex::PackageIndex(const std::string& dir, const std::vector<std::string>& specs) {
  std::string port_file = dir + "/port", folder = dir + "/index";
  std::vector<std::string> args = {"python3", DLREADY_SOURCE_DIR "/tests/tools/torch_index.py", folder, port_file};
  args.insert(args.end(), specs.begin(), specs.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ == 0) {
    ::execvp("python3", argv.data());
    ::_exit(127);
  }
  for (int i = 0; i < 500 && read_text(port_file).empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  url_ = "http://127.0.0.1:" + read_text(port_file) + "/";
}

PackageIndex::~PackageIndex() {
  ::kill(pid_, SIGTERM);
  ::waitpid(pid_, nullptr, 0);
}

}  // namespace dlready::test
