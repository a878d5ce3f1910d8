// Where a Mac's pip looks for packages: the variables (PIP_INDEX_URL and its kin, uv's) and the
// pip.conf files pip reads on macOS (pip's docs, "Configuration": /Library/Application Support/pip,
// ~/Library/Application Support/pip or ~/.config/pip, the legacy ~/.pip, the active environment's
// own, PIP_CONFIG_FILE). A CUDA index copied from a Linux tutorial has no macOS wheels.
#include "core/text.hpp"
#include "probe/macos/macos_probes.hpp"
#include "probe/posix/posix_probes.hpp"

namespace dlready {
namespace {

// index-url / extra-index-url (or their underscore spellings) in a pip.conf; an extra-index-url
// may continue on indented lines.
void read_pip_conf(const RootFs& fs, const std::string& path, std::vector<std::string>& out) {
  auto text = fs.read(path, 256 * 1024);
  if (!text) return;
  bool continuing = false;
  for (const auto& raw : lines(*text)) {
    bool indented = !raw.empty() && (raw[0] == ' ' || raw[0] == '\t');
    std::string line = trim(raw);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (continuing && indented) {
      out.push_back(path + ": extra-index-url = " + without_credentials(line));
      continue;
    }
    continuing = false;
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
    for (char& c : key) c = c == '_' ? '-' : c;
    if (key != "index-url" && key != "extra-index-url") continue;
    if (!value.empty()) out.push_back(path + ": " + key + " = " + without_credentials(value));
    continuing = key == "extra-index-url";
  }
}

}  // namespace

void probe_pip_indexes(const RootFs& fs, const std::map<std::string, std::string>& env, const PythonFacts& python,
                       MacosFacts& mac) {
  for (const char* var : {"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_DEFAULT_INDEX"})
    if (auto it = env.find(var); it != env.end() && !it->second.empty())
      mac.pip_indexes.push_back(std::string(var) + ": " + without_credentials(it->second));
  std::vector<std::string> files = {"/Library/Application Support/pip/pip.conf"};
  if (auto home = env.find("HOME"); home != env.end() && starts_with(home->second, "/"))
    for (const char* f : {"/Library/Application Support/pip/pip.conf", "/.config/pip/pip.conf", "/.pip/pip.conf"})
      files.push_back(home->second + f);
  for (const auto& e : python.envs)
    if (e.active) files.push_back(e.prefix + "/pip.conf");
  if (auto f = env.find("PIP_CONFIG_FILE"); f != env.end() && starts_with(f->second, "/")) files.push_back(f->second);
  for (const auto& f : files) read_pip_conf(fs, f, mac.pip_indexes);
}

}  // namespace dlready
