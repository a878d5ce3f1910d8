#include "diagnose/pasted_report.hpp"

#include <set>

#include "core/text.hpp"
#include "diagnose/compat.hpp"

namespace dlready {
namespace {

// The reporter's environment, named as a placeholder the fixes can carry ("<env>/bin/python -m pip ...").
constexpr const char* kPrefix = "<env>";
constexpr const char* kSitePackages = "<env>/site-packages";

// "Key: value" of collect_env's line, with its key; nullopt for another line.
bool key_value(std::string_view line, std::string_view key, std::string& value) {
  if (line.substr(0, key.size()) != key || line.substr(key.size(), 1) != ":") return false;
  value = trim(std::string(line.substr(key.size() + 1, 400)));
  return true;
}

bool unknown(const std::string& v) {
  return v.empty() || v == "N/A" || v == "None" || v == "Could not collect" || v == "No CUDA" || v == "False";
}

PythonEnv& reporter_env(PastedReport& r) {
  if (r.facts.python.envs.empty()) {
    PythonEnv e;
    e.prefix = kPrefix;
    e.site_packages = {kSitePackages};
    e.active = true;
    r.facts.python.envs.push_back(e);
  }
  return r.facts.python.envs.front();
}

TorchInstall& reporter_torch(PastedReport& r) {
  PythonEnv& e = reporter_env(r);
  if (e.torch.empty()) {
    TorchInstall t;
    t.site_packages = kSitePackages;
    t.version_py_found = true;
    e.torch.push_back(t);
  }
  return e.torch.front();
}

// "OS: Ubuntu 22.04.4 LTS (x86_64)" -> ubuntu, x86_64; "macOS 14.5 (arm64)"; "Microsoft Windows 11 Pro".
void read_os(PastedReport& r, const std::string& v) {
  std::string lower = to_lower(v);
  std::string id = lower.substr(0, lower.find(' '));
  if (starts_with(lower, "microsoft windows")) id = "windows";
  if (starts_with(lower, "macos")) id = "macos";
  r.facts.os.id = id;
  r.facts.os.pretty_name = printable(v, 120);
  auto open = v.rfind('('), close = v.rfind(')');
  if (open != std::string::npos && close > open) {
    std::string arch = v.substr(open + 1, close - open - 1);
    r.facts.os.arch = arch == "arm64" ? "aarch64" : arch;
  }
}

// "GPU 0: NVIDIA GeForce RTX 5090" (one per line after the key, or on it): a device whose compute
// capability the GPU table knows, as if the driver had named it.
void read_gpu(PastedReport& r, std::string line) {
  line = trim(line);
  if (!starts_with(line, "GPU ")) return;
  auto colon = line.find(": ");
  if (colon == std::string::npos) return;
  std::string name = trim(line.substr(colon + 2));
  name = name.substr(0, name.find(" (UUID"));
  CudaDevice dev;
  dev.index = static_cast<int>(r.facts.driver.devices.size());
  dev.name = printable(name, 120);
  std::set<std::pair<int, int>> ccs;
  for (const auto& k : gpus_by_name(name)) ccs.insert({k.cc_major, k.cc_minor});
  if (ccs.size() == 1) dev.cc_major = ccs.begin()->first, dev.cc_minor = ccs.begin()->second;
  r.facts.driver.devices.push_back(dev);
  r.facts.driver.status = ProbeStatus::ok;
  r.facts.driver.device_count = static_cast<int>(r.facts.driver.devices.size());
  r.read.push_back(line.substr(0, colon) + ": " + *dev.name +
                   (dev.cc_major ? " (sm_" + std::to_string(*dev.cc_major) + std::to_string(*dev.cc_minor) + ")" : ""));
}

// "[pip3] numpy==1.26.4", "[conda] pytorch 2.1.0 py3.11_cuda12.1_cudnn8.9.2_0 pytorch".
void read_library(PastedReport& r, const std::string& line) {
  if (starts_with(line, "[pip3] ") || starts_with(line, "[pip] ")) {
    std::string spec = trim(line.substr(line.find(' ') + 1));
    auto eq = spec.find("==");
    if (eq == std::string::npos) return;
    std::string name = to_lower(spec.substr(0, eq)), version = spec.substr(eq + 2);
    reporter_env(r).distributions[name] = version;
    if (name == "torch" && !reporter_torch(r).version) reporter_torch(r).version = version;
    return;
  }
  if (!starts_with(line, "[conda] ")) return;
  auto f = split(trim(line.substr(8)), ' ', true);
  std::vector<std::string> words;
  for (const auto& w : f)
    if (!w.empty()) words.push_back(w);
  if (words.size() < 2) return;
  CondaPackage p{words[0], words[1], words.size() > 2 ? words[2] : "", words.size() > 3 ? words[3] : "", {}};
  reporter_env(r).conda_packages.push_back(p);
}

void read_line(PastedReport& r, const std::string& raw, bool& in_gpus, std::string& cuda_said) {
  std::string line = trim(raw);
  std::string v;
  if (in_gpus && starts_with(line, "GPU ")) return read_gpu(r, line);
  in_gpus = false;
  if (key_value(line, "PyTorch version", v) && !unknown(v)) {
    reporter_torch(r).version = v, r.recognised = true;
    r.read.push_back("PyTorch " + printable(v, 60));
  } else if (key_value(line, "CUDA used to build PyTorch", v)) {
    r.recognised = true;
    cuda_said = v;
  } else if (key_value(line, "OS", v) && !unknown(v)) {
    read_os(r, v);
  } else if (key_value(line, "Python version", v) && !unknown(v)) {
    auto parts = split(v.substr(0, v.find(' ')), '.');
    if (parts.size() >= 2) reporter_env(r).python_version = parts[0] + "." + parts[1];
  } else if (key_value(line, "Nvidia driver version", v) && !unknown(v)) {
    r.facts.kernel.loaded_version = printable(v, 40);
    r.read.push_back("driver " + *r.facts.kernel.loaded_version);
  } else if (key_value(line, "GPU models and configuration", v)) {
    in_gpus = true;
    if (!unknown(v)) read_gpu(r, v);
  } else if (key_value(line, "Python platform", v)) {
    std::string lower = to_lower(v);
    if (lower.find("microsoft") != std::string::npos) r.facts.os.wsl = true, r.facts.os.wsl_dxg = lower.find("wsl2") != std::string::npos;
  } else {
    read_library(r, line);
  }
}

// Whether the torch is a CUDA build: collect_env's "CUDA used to build PyTorch" (None: a CPU build),
// else the version's local label (+cpu, +cu121). When neither says, it stays undecided — a CPU
// build is never assumed (the rules take a torch without CUDA for a CPU build).
void settle_cuda_build(PastedReport& r, const std::string& said) {
  if (r.facts.python.envs.empty() || r.facts.python.envs.front().torch.empty()) return;
  TorchInstall& t = reporter_torch(r);
  std::string version = t.version.value_or("");
  std::string label = version.find('+') == std::string::npos ? "" : version.substr(version.find('+') + 1);
  if (!unknown(said)) {
    t.cuda = said;
    r.read.push_back("built for CUDA " + printable(said, 20));
  } else if (said == "None" || label == "cpu") {
    t.cuda.reset();
    r.read.push_back("a CPU build (" + std::string(said == "None" ? "CUDA used to build PyTorch: None" : "+cpu") + ")");
  } else if (starts_with(label, "cu") && label.size() >= 5 && label.find_first_not_of("0123456789", 2) == std::string::npos) {
    t.cuda = label.substr(2, label.size() - 3) + "." + label.substr(label.size() - 1);
    r.read.push_back("built for CUDA " + *t.cuda + " (+" + label + ")");
  } else {
    t.cuda = "unknown";  // neither a CPU build nor a known CUDA: the rules that need it say nothing
    r.missing.push_back("whether this torch is a CUDA build (collect_env's \"CUDA used to build PyTorch\")");
  }
}

}  // namespace

PastedReport read_pasted_report(std::string_view text) {
  PastedReport r;
  bool in_gpus = false;
  std::string cuda_said;
  for (const auto& line : lines(text.substr(0, 16u << 20))) read_line(r, printable(line, 2000), in_gpus, cuda_said);
  if (!r.recognised) return r;
  settle_cuda_build(r, cuda_said);
  if (!r.facts.kernel.loaded_version) r.missing.push_back("the driver version (collect_env's \"Nvidia driver version\", or nvidia-smi's first lines)");
  if (r.facts.driver.devices.empty()) r.missing.push_back("the GPU (collect_env's \"GPU models and configuration\")");
  for (const auto& d : r.facts.driver.devices)
    if (!d.cc_major) r.missing.push_back("the compute capability of " + d.name.value_or("the GPU") + " (not in dlready's GPU table)");
  return r;
}

}  // namespace dlready
