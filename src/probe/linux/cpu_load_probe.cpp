// How busy the CPUs are: the tutorial's job runs ten times slower beside other heavy processes
// (issue 15: 0.8 s epochs became 60-87 s with no hint), so the doctor and `train` say so.
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "core/text.hpp"
#include "probe/linux/probes.hpp"

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

struct ProcStat {
  std::string comm;
  char state = '?';
  std::string ppid;
};
// /proc/<pid>/stat: "pid (comm) R ppid ..." (comm may hold spaces and parentheses: the last ')').
std::optional<ProcStat> read_proc_stat(const RootFs& fs, const std::string& pid) {
  auto stat = fs.read("/proc/" + pid + "/stat", 4096);
  if (!stat) return std::nullopt;
  auto open = stat->find('('), close = stat->rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open || close + 2 >= stat->size())
    return std::nullopt;
  ProcStat s{stat->substr(open + 1, close - open - 1), (*stat)[close + 2], ""};
  auto rest = split(stat->substr(close + 2), ' ');
  if (rest.size() > 1) s.ppid = rest[1];
  return s;
}

// The command names of the processes in state R, ours excluded: this process and its siblings
// running the same command (the other ranks a launcher started beside it are this job, not
// someone else's).
std::vector<std::string> running_commands(const RootFs& fs) {
  std::vector<std::string> names;
  // The reader's pid as the root's /proc says it (a capture replays the process that made it).
  const std::string self = fs.readlink("/proc/self").value_or(fs.is_host_root() ? std::to_string(::getpid()) : "");
  auto me = read_proc_stat(fs, self);
  for (const auto& pid : fs.list("/proc")) {
    if (pid.empty() || pid == self || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    auto s = read_proc_stat(fs, pid);
    if (!s || s->state != 'R') continue;
    if (me && s->ppid == me->ppid && s->comm == me->comm) continue;
    names.push_back(s->comm);
    if (names.size() >= 8) break;
  }
  return names;
}

// (busy, total) jiffies of all processors from /proc/stat's first line.
std::optional<std::pair<double, double>> cpu_jiffies(const RootFs& fs) {
  auto text = fs.read("/proc/stat", 1 << 16);
  if (!text || text->rfind("cpu ", 0) != 0) return std::nullopt;
  auto fields = split(trim(text->substr(0, text->find('\n'))), ' ');
  double busy = 0, total = 0;
  int n = 0;
  for (size_t i = 1; i < fields.size() && n < 8; ++i) {  // user nice system idle iowait irq softirq steal
    if (fields[i].empty()) continue;
    auto v = parse_int(fields[i]);
    if (!v || *v < 0) return std::nullopt;
    total += static_cast<double>(*v);
    if (n != 3 && n != 4) busy += static_cast<double>(*v);
    ++n;
  }
  if (n < 4) return std::nullopt;
  return std::make_pair(busy, total);
}

}  // namespace

// This process's own processor time, all its threads, in the clock ticks /proc/stat counts in
// (utime + stime of /proc/self/stat).
std::optional<double> own_jiffies(const RootFs& fs) {
  auto text = fs.read("/proc/self/stat", 4096);
  if (!text) return std::nullopt;
  auto close = text->rfind(')');
  if (close == std::string::npos || close + 2 > text->size()) return std::nullopt;
  auto rest = split(text->substr(close + 2), ' ');  // field 3 (state) onwards: utime is 14, stime 15
  if (rest.size() < 13) return std::nullopt;
  auto user = parse_int(rest[11]), system = parse_int(rest[12]);
  if (!user || !system) return std::nullopt;
  return static_cast<double>(*user + *system);
}

std::optional<BusySample> start_busy_sample(const RootFs& fs, int cpus) {
  if (cpus <= 0) return std::nullopt;
  auto text = fs.read("/proc/loadavg", 4096);
  if (!text) return std::nullopt;
  auto l = parse_loadavg(*text);
  // Nothing but the reader runnable and a quiet last minute: idle, no need to wait for a sample.
  if (l.runnable && *l.runnable <= 1 && l.load_1min && *l.load_1min < 0.5) return std::nullopt;
  auto before = cpu_jiffies(fs);
  auto own = own_jiffies(fs);
  if (!before || !own) return std::nullopt;
  return BusySample{before->first, before->second, *own, std::chrono::steady_clock::now()};
}

std::string busy_sample_text(const BusySample& s) {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(s.started.time_since_epoch()).count();
  return std::to_string(static_cast<long long>(s.busy)) + " " + std::to_string(static_cast<long long>(s.total)) + " " +
         std::to_string(static_cast<long long>(s.own)) + " " + std::to_string(static_cast<long long>(ns));
}

std::optional<BusySample> parse_busy_sample(std::string_view text) {
  auto parts = split(text, ' ');
  if (parts.size() != 4) return std::nullopt;
  long long v[4];
  for (size_t i = 0; i < 4; ++i) {
    auto n = parse_int(parts[i]);
    if (!n || *n < 0) return std::nullopt;
    v[i] = *n;
  }
  BusySample s{static_cast<double>(v[0]), static_cast<double>(v[1]), static_cast<double>(v[2]),
               std::chrono::steady_clock::time_point(std::chrono::nanoseconds(v[3]))};
  // A start in the future (not this process's clock) is no sample.
  if (s.started > std::chrono::steady_clock::now() || s.busy > s.total) return std::nullopt;
  return s;
}

std::optional<double> finish_busy_sample(const RootFs& fs, const BusySample& s, int cpus, int min_window_ms) {
  auto waited = std::chrono::steady_clock::now() - s.started;
  auto left = std::chrono::milliseconds(min_window_ms) - std::chrono::duration_cast<std::chrono::milliseconds>(waited);
  if (left.count() > 0) ::usleep(static_cast<useconds_t>(left.count()) * 1000);
  auto after = cpu_jiffies(fs);
  auto own = own_jiffies(fs);
  if (!after || !own || after->second <= s.total) return std::nullopt;
  // Someone else's work: the processors' busy time less this process's own (it loaded its data meanwhile).
  double others = (after->first - s.busy) - (*own - s.own);
  double fraction = others / (after->second - s.total);
  return std::clamp(fraction, 0.0, 1.0) * cpus;
}

std::optional<double> busy_processors(const RootFs& fs, int cpus, int window_ms) {
  auto sample = start_busy_sample(fs, cpus);
  if (!sample) return std::nullopt;
  return finish_busy_sample(fs, *sample, cpus, window_ms);
}

CpuLoad probe_cpu_load(const RootFs& fs, std::optional<int> cpus) {
  auto text = fs.read("/proc/loadavg", 4096);
  if (!text) return {};
  CpuLoad l = parse_loadavg(*text);
  bool busy = cpus && ((l.load_1min && *l.load_1min > *cpus) || (l.runnable && *l.runnable - 1 > *cpus));
  if (busy) l.running_commands = running_commands(fs);
  return l;
}

}  // namespace dlready
