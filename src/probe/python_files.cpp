#include "probe/python_files.hpp"

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

std::optional<std::string> pyvenv_setting(const FileSource& fs, const std::string& prefix, const std::string& name) {
  auto cfg = fs.read(fs.join(prefix, "pyvenv.cfg"), 64 * 1024);
  if (!cfg) return std::nullopt;
  for (const auto& line : lines(*cfg)) {
    auto eq = line.find('=');
    if (eq != std::string::npos && trim(line.substr(0, eq)) == name) return trim(line.substr(eq + 1));
  }
  return std::nullopt;
}

std::optional<std::string> pyvenv_python_version(const FileSource& fs, const std::string& prefix) {
  for (const char* key : {"version", "version_info"}) {
    std::string value = pyvenv_setting(fs, prefix, key).value_or("");
    if (auto v = leading_python_version(value); !v.empty()) return std::string(v);
  }
  return std::nullopt;
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
  std::string torch = fs.join(sp, "torch");
  if (fs.exists(fs.join(torch, "version.py")) || fs.exists(fs.join(torch, "__init__.py"))) return true;
  for (const auto& name : fs.list(sp))
    if (starts_with(name, "torch-") && ends_with(name, ".dist-info")) return true;
  return false;
}

}  // namespace dlready
