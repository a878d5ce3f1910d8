// What --redact hides (core/redact.hpp): the user names and home directories of this machine's
// people (uid >= 1000 in <root>/etc/passwd, and the caller's USER/HOME), its host names
// (gethostname on this machine, <root>/etc/hostname), its addresses (the interfaces' own, on
// this machine), and the addresses written in environment variables (MASTER_ADDR=10.0.0.2).
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

#include "core/scan.hpp"
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

// "10.0.0.2": four numbers of 0..255 (a three-digit one starts with 1 or 2), nothing else.
bool is_dotted_quad(std::string_view s) {
  auto parts = split(s, '.', true);
  if (parts.size() != 4) return false;
  for (const auto& p : parts) {
    if (p.empty() || p.size() > 3) return false;
    if (p.size() == 3 && (p[0] == '0' || std::stoi(p) > 255)) return false;
  }
  return true;
}

// The IPv4 addresses written in `value`, each a whole run of digits and dots.
void add_written_addresses(std::string_view value, std::vector<std::string>& out) {
  TextCursor c{value};
  auto digit_or_dot = [](char ch) { return is_ascii_digit(ch) || ch == '.'; };
  while (!c.done()) {
    c.take([&](char ch) { return !digit_or_dot(ch); });
    std::string_view run = c.take(digit_or_dot);
    if (run.size() <= 15 && is_dotted_quad(run) && run != "127.0.0.1" && run != "0.0.0.0") out.emplace_back(run);
  }
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
  for (const auto& [name, value] : env) add_written_addresses(value, in.addresses);
  return in;
}

}  // namespace dlready
