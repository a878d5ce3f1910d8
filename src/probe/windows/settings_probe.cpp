// Windows settings that decide whether Python and pip work: long paths, and which python.exe
// `python` runs (the Microsoft Store's stub comes first on PATH on a fresh Windows).
#include "core/text.hpp"
#include "probe/windows/windows_probes.hpp"

namespace dlready {

WindowsFacts probe_windows_settings(const WindowsApi& api, const std::map<std::string, std::string>& env) {
  WindowsFacts w;
  w.long_paths_enabled =
      api.registry_number(RegistryHive::local_machine, "SYSTEM\\CurrentControlSet\\Control\\FileSystem", "LongPathsEnabled")
          .value_or(0) != 0;
  std::string path = env.count("PATH") ? env.at("PATH") : env.count("Path") ? env.at("Path") : "";
  for (const auto& dir : split(path, ';')) {
    if (dir.empty() || api.on_network(dir)) continue;  // "a;;b": no folder; a network share: not waited for
    std::string exe = dir + (dir.back() == '\\' ? "" : "\\") + "python.exe";
    if (api.path_exists(exe)) w.python_on_path.push_back(exe);
  }
  const std::string graphics = "SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers";
  if (auto delay = api.registry_number(RegistryHive::local_machine, graphics, "TdrDelay")) w.tdr_delay = static_cast<int>(*delay);
  if (auto level = api.registry_number(RegistryHive::local_machine, graphics, "TdrLevel")) w.tdr_level = static_cast<int>(*level);
  if (env.count("LOCALAPPDATA")) w.store_stub_dir = env.at("LOCALAPPDATA") + "\\Microsoft\\WindowsApps";
  return w;
}

RedactionInputs windows_redaction_inputs(const std::map<std::string, std::string>& env) {
  RedactionInputs in;
  in.environment = env;
  auto get = [&](const char* k) { return env.count(k) ? env.at(k) : std::string(); };
  if (!get("USERNAME").empty()) in.users.push_back(get("USERNAME")), in.account = get("USERNAME");
  for (const char* k : {"USERPROFILE", "HOMEPATH"})
    if (get(k).size() > 3) in.homes.push_back(get(k));  // not a bare "C:\"
  for (const char* k : {"COMPUTERNAME", "USERDOMAIN", "LOGONSERVER"}) {
    std::string host = get(k);
    while (!host.empty() && host.front() == '\\') host.erase(0, 1);  // LOGONSERVER is "\\NAME"
    if (!host.empty()) in.hosts.push_back(host);
  }
  return in;
}

}  // namespace dlready
