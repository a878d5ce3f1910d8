#include <algorithm>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <set>

#include "core/scan.hpp"
#include "core/text.hpp"
#include "probe/linux/probes.hpp"

namespace dlready {

namespace {

std::string mode_string(mode_t m) {
  std::string s = S_ISCHR(m) ? "c" : S_ISDIR(m) ? "d" : "-";
  const char* rwx = "rwxrwxrwx";
  for (int i = 0; i < 9; ++i) s += (m & (1 << (8 - i))) ? rwx[i] : '-';
  return s;
}

// Read+write for `user`, decided from the mode bits the way the kernel does (root bypasses).
bool can_read_write(const FileStat& st, const UserIdentity& user) {
  if (user.uid == 0) return true;
  mode_t need;
  if (st.uid == user.uid)
    need = S_IRUSR | S_IWUSR;
  else if (std::find(user.gids.begin(), user.gids.end(), st.gid) != user.gids.end())
    need = S_IRGRP | S_IWGRP;
  else
    need = S_IROTH | S_IWOTH;
  return (st.mode & need) == need;
}

// name -> id and id -> name of /etc/passwd or /etc/group (fields 0 and 2).
std::map<unsigned, std::string> names_by_id(const RootFs& fs, const std::string& file) {
  std::map<unsigned, std::string> out;
  if (auto text = fs.read(file, 4 << 20))
    for (const auto& line : lines(*text)) {
      auto f = split(line, ':', true);
      if (f.size() >= 3)
        if (auto id = parse_int(f[2]); id && *id >= 0) out.emplace(static_cast<unsigned>(*id), f[0]);
    }
  return out;
}

// Who is in group `gid`: the members /etc/group lists, and the users whose primary group it is.
std::vector<std::string> members_of(const RootFs& fs, unsigned gid) {
  std::set<std::string> out;
  if (auto text = fs.read("/etc/group", 4 << 20))
    for (const auto& line : lines(*text)) {
      auto f = split(line, ':', true);
      if (f.size() >= 4 && parse_int(f[2]) == static_cast<long long>(gid))
        for (const auto& m : split(f[3], ',')) out.insert(m);
    }
  if (auto text = fs.read("/etc/passwd", 4 << 20))
    for (const auto& line : lines(*text)) {
      auto f = split(line, ':', true);
      if (f.size() >= 4 && parse_int(f[3]) == static_cast<long long>(gid)) out.insert(f[0]);
    }
  return {out.begin(), out.end()};
}

}  // namespace

DeviceNodeFacts probe_device_nodes(const RootFs& fs, const UserIdentity& user) {
  DeviceNodeFacts f;
  f.checked_user = user.name + (user.uid == 0 ? "" : " (uid " + std::to_string(user.uid) + ")");
  std::vector<std::string> paths = {"/dev/nvidiactl", "/dev/nvidia-uvm"};
  for (const auto& name : fs.list("/dev")) {
    std::string_view number = std::string_view(name).substr(std::min<size_t>(name.size(), 6));
    if (starts_with(name, "nvidia") && !number.empty() && std::all_of(number.begin(), number.end(), is_ascii_digit))
      paths.push_back("/dev/" + name);  // /dev/nvidia0, /dev/nvidia1, ...
  }
  if (fs.exists("/dev/dxg")) paths.push_back("/dev/dxg");
  auto users = names_by_id(fs, "/etc/passwd"), groups = names_by_id(fs, "/etc/group");
  auto name = [](const std::map<unsigned, std::string>& m, unsigned id) {
    auto it = m.find(id);
    return it == m.end() ? std::to_string(id) : it->second;
  };
  for (const auto& p : paths) {
    DeviceNode n;
    n.path = p;
    auto st = fs.stat(p);
    n.exists = st.has_value();
    if (st) {
      n.mode = mode_string(st->mode);
      n.accessible = can_read_write(*st, user);
      n.owner = name(users, st->uid);
      n.group = name(groups, st->gid);
      if (p == "/dev/nvidiactl") f.group_members = members_of(fs, st->gid);
    }
    f.nodes.push_back(n);
  }
  if (auto params = fs.read("/proc/driver/nvidia/params", 64 * 1024))
    for (const auto& line : lines(*params))
      for (const char* key : {"DeviceFileUID", "DeviceFileGID", "DeviceFileMode"})
        if (starts_with(line, std::string(key) + ":")) f.driver_params[key] = trim(line.substr(std::string(key).size() + 1));
  return f;
}

}  // namespace dlready
