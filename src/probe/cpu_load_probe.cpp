// How busy the CPUs are: the tutorial's job runs ten times slower beside other heavy processes
// (issue 15: 0.8 s epochs became 60-87 s with no hint), so the doctor and `train` say so.
#include <unistd.h>

#include "core/text.hpp"
#include "probe/probes.hpp"

namespace dlready {

CpuLoad parse_loadavg(const std::string& text) {
  CpuLoad l;
  auto fields = split(trim(text), ' ');
  if (fields.size() < 4) return l;
  char* end = nullptr;
  double v = std::strtod(fields[0].c_str(), &end);
  if (end != fields[0].c_str() && *end == '\0' && v >= 0 && v < 1e6) l.load_1min = v;
  auto slash = fields[3].find('/');
  if (slash != std::string::npos)
    if (auto r = parse_int(fields[3].substr(0, slash)); r && *r >= 0 && *r < (1 << 24)) l.runnable = static_cast<int>(*r);
  return l;
}

namespace {

// The command names of the processes in state R, ours excluded (/proc/<pid>/stat: "pid (comm) R ...").
std::vector<std::string> running_commands(const RootFs& fs) {
  std::vector<std::string> names;
  const std::string self = std::to_string(::getpid());
  for (const auto& pid : fs.list("/proc")) {
    if (pid.empty() || pid == self || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    auto stat = fs.read("/proc/" + pid + "/stat", 4096);
    if (!stat) continue;
    auto open = stat->find('('), close = stat->rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open || close + 2 >= stat->size()) continue;
    if ((*stat)[close + 2] != 'R') continue;
    names.push_back(stat->substr(open + 1, close - open - 1));
    if (names.size() >= 8) break;
  }
  return names;
}

}  // namespace

CpuLoad probe_cpu_load(const RootFs& fs, std::optional<int> cpus) {
  auto text = fs.read("/proc/loadavg", 4096);
  if (!text) return {};
  CpuLoad l = parse_loadavg(*text);
  bool busy = cpus && ((l.load_1min && *l.load_1min > *cpus) || (l.runnable && *l.runnable - 1 > *cpus));
  if (busy) l.running_commands = running_commands(fs);
  return l;
}

}  // namespace dlready
