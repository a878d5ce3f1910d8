// What --redact hides (core/redact.hpp): the user names and home directories of this machine's
// people (uid >= 1000 in <root>/etc/passwd, and the caller's USER/HOME), its host names
// (gethostname on this machine, <root>/etc/hostname), its addresses (the interfaces' own, on
// this machine), and the addresses written in environment variables (MASTER_ADDR=10.0.0.2).
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

#include <regex>

#include "core/text.hpp"
#include "probe/posix/posix_probes.hpp"

namespace dlready {
namespace {

void add_own_addresses(std::vector<std::string>& out) {
  struct ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return;
  for (auto* a = list; a; a = a->ifa_next) {
    if (!a->ifa_addr) continue;
    char buf[INET6_ADDRSTRLEN] = {};
    if (a->ifa_addr->sa_family == AF_INET)
      ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, buf, sizeof buf);
    else if (a->ifa_addr->sa_family == AF_INET6)
      ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(a->ifa_addr)->sin6_addr, buf, sizeof buf);
    std::string s = buf;
    if (!s.empty() && s != "127.0.0.1" && s != "::1") out.push_back(s);
  }
  ::freeifaddrs(list);
}

}  // namespace

RedactionInputs probe_redaction_inputs(const RootFs& fs, const std::map<std::string, std::string>& env) {
  RedactionInputs in;
  in.environment = env;
  if (auto passwd = fs.read("/etc/passwd", 4 << 20))
    for (const auto& line : lines(*passwd)) {
      auto f = split(line, ':', true);
      if (f.size() < 6) continue;
      long uid = std::strtol(f[2].c_str(), nullptr, 10);
      if (uid < 1000 || uid == 65534) continue;  // system accounts and nobody are the same everywhere
      in.users.push_back(f[0]);
      if (f[5].size() > 1) in.homes.push_back(f[5]);
    }
  for (const char* v : {"USER", "LOGNAME"})
    if (auto it = env.find(v); it != env.end()) in.users.push_back(it->second);
  if (auto it = env.find("USER"); it != env.end()) in.account = it->second;
  else if (fs.is_host_root()) in.account = current_user().name;
  if (auto it = env.find("HOME"); it != env.end()) in.homes.push_back(it->second);
  if (auto h = fs.read_line("/etc/hostname")) in.hosts.push_back(trim(*h));
  if (fs.is_host_root()) {
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) == 0) in.hosts.push_back(host);
    add_own_addresses(in.addresses);
  }
  for (auto h : std::vector<std::string>(in.hosts))  // the short name of gpu1.lab.example.com too
    if (auto dot = h.find('.'); dot != std::string::npos && dot > 0) in.hosts.push_back(h.substr(0, dot));
  static const std::regex kIpv4(R"((^|[^0-9.])((25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])){3})(?=[^0-9.]|$))");
  for (const auto& [name, value] : env)
    for (auto it = std::sregex_iterator(value.begin(), value.end(), kIpv4); it != std::sregex_iterator(); ++it)
      if ((*it)[2].str() != "127.0.0.1" && (*it)[2].str() != "0.0.0.0") in.addresses.push_back((*it)[2].str());
  return in;
}

}  // namespace dlready
