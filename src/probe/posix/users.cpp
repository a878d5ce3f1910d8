// Who the doctor checks for: the running process's user, or a user of the examined root's
// /etc/passwd and /etc/group.
#include <unistd.h>

#include "core/text.hpp"
#include "probe/posix/posix_probes.hpp"

namespace dlready {

UserIdentity current_user() {
  UserIdentity u;
  u.uid = ::geteuid();
  u.gids.push_back(::getegid());
  gid_t groups[256];
  int n = ::getgroups(256, groups);
  for (int i = 0; i < n; ++i) u.gids.push_back(groups[i]);
  u.name = u.uid == 0 ? "root" : "uid " + std::to_string(u.uid);
  return u;
}

std::optional<UserIdentity> lookup_user(const RootFs& fs, const std::string& name) {
  auto passwd = fs.read("/etc/passwd", 4 << 20);
  if (!passwd) return std::nullopt;
  std::optional<UserIdentity> u;
  for (const auto& line : lines(*passwd)) {
    auto f = split(line, ':', true);
    if (f.size() < 4 || f[0] != name) continue;
    auto uid = parse_int(f[2]), gid = parse_int(f[3]);
    if (!uid || !gid) return std::nullopt;
    u = UserIdentity{name, static_cast<unsigned>(*uid), {static_cast<unsigned>(*gid)}};
  }
  if (!u) return std::nullopt;
  if (auto group = fs.read("/etc/group", 4 << 20)) {
    for (const auto& line : lines(*group)) {
      auto f = split(line, ':', true);
      if (f.size() < 4) continue;
      for (const auto& member : split(f[3], ','))
        if (member == name)
          if (auto gid = parse_int(f[2])) u->gids.push_back(static_cast<unsigned>(*gid));
    }
  }
  return u;
}

}  // namespace dlready
