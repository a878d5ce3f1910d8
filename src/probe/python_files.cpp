#include "probe/python_files.hpp"

#include <algorithm>

#include "core/scan.hpp"
#include "core/text.hpp"

namespace dlready {

std::string normalize_dist_name(std::string_view name) {
  std::string out;
  for (char c : to_lower(name)) {
    bool sep = c == '_' || c == '-' || c == '.';
    if (sep) {
      if (out.empty() || out.back() != '-') out += '-';
    } else {
      out += c;
    }
  }
  return out;
}

std::optional<std::pair<std::string, std::string>> split_dist_info(const std::string& dir) {
  if (!ends_with(dir, ".dist-info")) return std::nullopt;
  std::string stem = dir.substr(0, dir.size() - 10);
  auto dash = stem.find('-');
  if (dash == std::string::npos) return std::nullopt;
  return std::make_pair(normalize_dist_name(stem.substr(0, dash)), stem.substr(dash + 1));
}

std::optional<std::string> pyvenv_setting_in(std::string_view cfg, const std::string& name) {
  for (const auto& line : lines(cfg)) {
    auto eq = line.find('=');
    if (eq != std::string::npos && trim(line.substr(0, eq)) == name) return trim(line.substr(eq + 1));
  }
  return std::nullopt;
}

std::optional<std::string> pyvenv_setting(const FileSource& fs, const std::string& prefix, const std::string& name) {
  auto cfg = fs.read(fs.join(prefix, "pyvenv.cfg"), 64 * 1024);
  return cfg ? pyvenv_setting_in(*cfg, name) : std::nullopt;
}

std::optional<std::string> pyvenv_python_version_in(std::string_view cfg) {
  for (const char* key : {"version", "version_info"}) {
    std::string value = pyvenv_setting_in(cfg, key).value_or("");
    if (auto v = leading_python_version(value); !v.empty()) return std::string(v);
  }
  return std::nullopt;
}

std::optional<std::string> pyvenv_python_version(const FileSource& fs, const std::string& prefix) {
  auto cfg = fs.read(fs.join(prefix, "pyvenv.cfg"), 64 * 1024);  // once for both keys
  return cfg ? pyvenv_python_version_in(*cfg) : std::nullopt;
}

namespace {

// "Requires-Dist: nvidia-cudnn-cu13[extra]==9.13.0.50; platform_system == \"Linux\"" -> the
// name and the pinned version, when the requirement is an nvidia-* or cuda-toolkit pin. Names and
// versions longer than any real one are no pin (a root's METADATA is untrusted text).
std::optional<std::pair<std::string, std::string>> nvidia_pin(std::string_view line) {
  constexpr size_t kMaxName = 128, kMaxVersion = 64, kMaxExtras = 256;
  TextCursor c{line};
  if (!c.eat("Requires-Dist:")) return std::nullopt;
  c.skip_spaces();
  auto name = c.take_exactly([](char ch) { return is_ascii_alnum(ch) || ch == '-' || ch == '_' || ch == '.'; }, 1, kMaxName);
  if (!((starts_with(name, "nvidia") && name.size() > 6) || name == "cuda-toolkit")) return std::nullopt;
  if (c.eat("[")) {
    c.take([](char ch) { return ch != ']'; }, kMaxExtras);
    if (!c.eat("]")) return std::nullopt;
  }
  c.skip_spaces();
  if (!c.eat("==")) return std::nullopt;
  c.skip_spaces();
  if (!is_ascii_digit(c.peek())) return std::nullopt;
  auto version = c.take_exactly([](char ch) { return is_ascii_alnum(ch) || ch == '.' || ch == '+'; }, 1, kMaxVersion);
  if (version.empty()) return std::nullopt;
  return std::make_pair(std::string(name), std::string(version));
}

}  // namespace

TorchInstall read_torch_install(const FileSource& fs, const std::string& sp, const std::string& cuda_library,
                                const MarkerEnvironment& machine) {
  TorchInstall t;
  t.site_packages = sp;
  if (auto vp = fs.read(fs.join(fs.join(sp, "torch"), "version.py"), 64 * 1024)) {
    t.version_py_found = true;
    t.version = find_assignment(*vp, "__version__");
    auto cuda = find_assignment(*vp, "cuda");
    if (cuda && *cuda != "None") t.cuda = cuda;
  }
  t.has_libtorch_cuda = fs.exists(fs.join(fs.join(fs.join(sp, "torch"), "lib"), cuda_library));
  if (fs.exists(fs.join(fs.join(fs.join(sp, "torch"), "include"), "xnnpack.h"))) t.xnnpack = true;  // a build with USE_XNNPACK ships its header
  for (const auto& name : fs.list(sp)) {
    auto d = split_dist_info(name);
    if (!d) continue;
    if (d->first == "torch") {
      ++t.dist_info_count;
      t.dist_version = d->second;
      if (auto meta = fs.read(fs.join(fs.join(sp, name), "METADATA"), 1 << 20)) {
        // Requires-Dist: nvidia-cudnn-cu13==9.13.0.50; platform_system == "Linux"
        // (aarch64's CPU wheels up to 2.10 list them too, each behind platform_machine == "x86_64").
        for (const auto& line : lines(*meta)) {
          auto pin = nvidia_pin(line);
          if (!pin) continue;
          auto semicolon = line.find(';');
          std::string marker = semicolon == std::string::npos ? "" : line.substr(semicolon + 1);
          if (marker_holds(marker, machine) == false) continue;  // not for this machine: pip skipped it
          t.nvidia_pins[normalize_dist_name(pin->first)] = pin->second;
        }
      }
    } else if (starts_with(d->first, "nvidia-") || d->first == "cuda-toolkit") {
      t.nvidia_installed[d->first] = d->second;
    }
  }
  if (!t.version) t.version = t.dist_version;
  return t;
}

bool has_torch(const FileSource& fs, const std::string& sp) {
  // The folder's names first (most site-packages hold no torch, and the names are listed once an
  // examination): torch's two files are looked for only where "torch" is listed, or where nothing
  // could be listed (a folder this user may enter but not read).
  auto names = fs.list(sp);
  bool torch_listed = names.empty();
  for (const auto& name : names) {
    if (starts_with(name, "torch-") && ends_with(name, ".dist-info")) return true;
    torch_listed |= to_lower(name) == "torch";  // a Windows folder's name is any case
  }
  if (!torch_listed) return false;
  std::string torch = fs.join(sp, "torch");
  return fs.exists(fs.join(torch, "version.py")) || fs.exists(fs.join(torch, "__init__.py"));
}

namespace {

// The JSON string starting at `c` (after its opening quote), escapes kept as written but for \" and
// \\; nullopt when it does not end within 512 bytes (a name or a spec, never longer).
std::optional<std::string> json_string_at(TextCursor& c) {
  std::string out;
  while (!c.done() && out.size() <= 512) {
    char ch = c.text[c.at++];
    if (ch == '"') return out;
    if (ch == '\\' && !c.done()) ch = c.text[c.at++];
    out.push_back(ch);
  }
  return std::nullopt;
}

// The value of a top-level `"key": "..."` or `"key": ["...", ...]` in a record's opening bytes.
std::vector<std::string> record_values(std::string_view text, std::string_view key) {
  std::vector<std::string> out;
  std::string quoted = "\"" + std::string(key) + "\":";
  size_t at = LinearFinder(quoted).find(text, 0);
  if (at == std::string_view::npos) return out;
  TextCursor c{text, at + quoted.size()};
  c.take(is_ascii_space);
  if (c.eat("\"")) {
    if (auto v = json_string_at(c)) out.push_back(*v);
    return out;
  }
  if (!c.eat("[")) return out;
  while (out.size() < 256) {
    c.take(is_ascii_space);
    if (!c.eat("\"")) break;
    auto v = json_string_at(c);
    if (!v) break;
    out.push_back(*v);
    c.take(is_ascii_space);
    if (!c.eat(",")) break;
  }
  return out;
}

}  // namespace

std::vector<CondaPackage> read_conda_packages(const FileSource& fs, const std::string& prefix) {
  std::vector<CondaPackage> out;
  const std::string meta = fs.join(prefix, "conda-meta");
  auto names = fs.list(meta);
  std::sort(names.begin(), names.end());
  for (const auto& file : names) {
    if (out.size() == 4096) break;
    if (!ends_with(file, ".json")) continue;
    // <name>-<version>-<build>.json: the name may hold '-', the version and build do not.
    std::string stem = file.substr(0, file.size() - 5);
    size_t build_dash = stem.rfind('-');
    if (build_dash == std::string::npos || build_dash == 0) continue;
    size_t version_dash = stem.rfind('-', build_dash - 1);
    if (version_dash == std::string::npos || version_dash == 0) continue;
    CondaPackage p;
    p.name = stem.substr(0, version_dash);
    p.version = stem.substr(version_dash + 1, build_dash - version_dash - 1);
    p.build = stem.substr(build_dash + 1);
    if (auto text = fs.read(fs.join(meta, file), 64 * 1024)) {
      auto channel = record_values(*text, "channel");
      // "https://conda.anaconda.org/pytorch", "pkgs/main", "conda-forge": the last part names it.
      // Older conda writes the platform's folder too (".../pytorch/linux-64"): the part before it.
      if (!channel.empty()) {
        auto parts = split(channel[0], '/');
        while (parts.size() > 1 && (parts.back() == "noarch" || contains(parts.back(), "-64") ||
                                    contains(parts.back(), "-arm64") || contains(parts.back(), "-aarch64")))
          parts.pop_back();
        p.channel = parts.empty() ? "" : parts.back();
      }
      p.depends = record_values(*text, "depends");
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace dlready
