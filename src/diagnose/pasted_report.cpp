#include "diagnose/pasted_report.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include "compat/compat.hpp"
#include "core/scan.hpp"
#include "core/text.hpp"
#include "platform/platform_record.hpp"

namespace dlready {
namespace {

// The reporter's environment, named as a placeholder the fixes can carry ("<env>/bin/python -m pip ...").
constexpr const char* kPrefix = "<env>";
constexpr const char* kSitePackages = "<env>/site-packages";

// collect_env's "Key: value" line: true with its value when `line` is `key`'s.
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

// A Mac's facts as a report gives them: sw_vers, collect_env's OS, Python platform and CPU lines.
MacosFacts& reporter_mac(PastedReport& r) {
  r.facts.os.id = "macos";
  if (!r.facts.macos) r.facts.macos = MacosFacts{};
  return *r.facts.macos;
}

void set_macos_version(PastedReport& r, const std::string& version) {
  MacosFacts& m = reporter_mac(r);
  if (m.product_version || version.empty() || !is_ascii_digit(version[0])) return;
  m.product_version = printable(version, 20);
  r.read.push_back("macOS " + *m.product_version);
}

// collect_env's "Python platform: macOS-10.16-x86_64-i386-64bit": the interpreter's own
// architecture (x86_64 on Apple Silicon is Rosetta), and the macOS it was told (10.16: the shim).
void read_mac_python_platform(PastedReport& r, const std::string& v) {
  auto parts = split(v, '-');
  if (parts.size() < 3) return;
  MacosFacts& m = reporter_mac(r);
  if (parts[1] != "10.16") set_macos_version(r, parts[1]);
  if (m.pythons.empty()) {
    MacPython p;
    p.prefix = kPrefix;
    m.pythons.push_back(p);
  }
  m.pythons.front().cpus = {parts[2]};
  r.read.push_back("an " + printable(parts[2], 20) + " Python");
}

// collect_env's "CPU:" block on a Mac: "Apple M2 Pro" or "Intel(R) Core(TM) i9-9880H".
void read_mac_cpu(PastedReport& r, const std::string& line) {
  if (!r.facts.macos || r.facts.macos->cpu_brand) return;
  MacosFacts& m = *r.facts.macos;
  if (starts_with(line, "Apple M")) m.apple_silicon = true;
  else if (starts_with(line, "Intel(R)")) m.apple_silicon = false;
  else return;
  m.cpu_brand = printable(line, 80);
  r.read.push_back(*m.cpu_brand);
}

// "OS: Ubuntu 22.04.4 LTS (x86_64)" -> ubuntu, x86_64; "macOS 14.5 (arm64)"; "Microsoft Windows 11 Pro".
void read_os(PastedReport& r, const std::string& v) {
  std::string lower = to_lower(v);
  std::string id = lower.substr(0, lower.find(' '));
  if (starts_with(lower, "microsoft windows")) id = "windows";
  if (starts_with(lower, "macos")) {
    id = "macos";
    set_macos_version(r, v.substr(6, v.find(' ', 6) - 6));
  }
  r.facts.os.id = id;
  r.facts.os.pretty_name = printable(v, 120);
  auto open = v.rfind('('), close = v.rfind(')');
  if (open != std::string::npos && close > open) {
    std::string arch = v.substr(open + 1, close - open - 1);
    r.facts.os.arch = arch == "arm64" ? "aarch64" : arch;
  }
}

// What the reader carries from line to line: which block it is in, and what collect_env said of
// torch's CUDA build.
struct ReadState {
  bool in_gpus = false, in_pip_list = false, in_conda_list = false;
  bool in_cpu = false;        // collect_env's "CPU:" block
  bool in_fb_memory = false;  // nvidia-smi -q's "FB Memory Usage" block
  std::string cuda_said;
  std::string echoed;  // `echo $NAME` was the last line: its value is the next
  std::string shown;   // `pip show`'s "Name:": its "Version:" follows
  std::string asked;   // a Python prompt asked torch.__version__ or torch.version.cuda: the answer follows
};


// The packages whose row is read outside a listing's header too (`pip list | grep torch` keeps no
// header): the ones the rules read, nothing a stray "word 1.2" line could be mistaken for.
bool known_package(const std::string& name) {
  const std::string n = to_lower(name);
  return n == "torch" || n == "torchvision" || n == "torchaudio" || n == "numpy" || n == "triton" ||
         n == "pytorch" || starts_with(n, "nvidia-") || starts_with(n, "nvidia_") || n == "cuda-toolkit";
}

// A GPU by the name a report gives: a device whose compute capability the GPU table knows, as if
// the driver had named it.
void add_gpu(PastedReport& r, const std::string& label, const std::string& name) {
  CudaDevice dev;
  dev.index = static_cast<int>(r.facts.driver.devices.size());
  dev.name = printable(name, 120);
  std::set<std::pair<int, int>> ccs;
  for (const auto& k : gpus_by_name(name)) ccs.insert({k.cc_major, k.cc_minor});
  if (ccs.size() == 1) dev.cc_major = ccs.begin()->first, dev.cc_minor = ccs.begin()->second;
  r.facts.driver.devices.push_back(dev);
  r.facts.driver.status = ProbeStatus::ok;
  r.facts.driver.device_count = static_cast<int>(r.facts.driver.devices.size());
  r.read.push_back(label + ": " + *dev.name +
                   (dev.cc_major ? " (sm_" + std::to_string(*dev.cc_major) + std::to_string(*dev.cc_minor) + ")" : ""));
}

// collect_env's "GPU 0: NVIDIA GeForce RTX 5090" (on the key's line, or one per line after it).
void read_gpu(PastedReport& r, std::string line) {
  line = trim(line);
  auto colon = line.find(": ");
  if (!starts_with(line, "GPU ") || colon == std::string::npos) return;
  std::string name = trim(line.substr(colon + 2));
  add_gpu(r, line.substr(0, colon), name.substr(0, name.find(" (UUID")));
}

void set_driver(PastedReport& r, const std::string& version) {
  if (r.facts.kernel.loaded_version || version.empty()) return;
  r.facts.kernel.loaded_version = printable(version, 40);
  r.read.push_back("driver " + *r.facts.kernel.loaded_version);
}

// What nvidia-smi says of the GPU it listed last, in NVML's terms (nvidia-smi is NVML's tool): its
// compute mode and its memory.
NvmlDevice& smi_device(PastedReport& r) {
  auto& devices = r.facts.nvml.devices;
  int index = static_cast<int>(r.facts.driver.devices.size()) - 1;
  if (devices.empty() || devices.back().index != index) {
    NvmlDevice d;
    d.index = index;
    if (index >= 0) d.name = r.facts.driver.devices.back().name;
    devices.push_back(d);
    r.facts.nvml.status = ProbeStatus::ok;
  }
  return devices.back();
}

// "Default", "Exclusive_Process" (nvidia-smi -q) or the table's "E. Process", "Prohibited": NVML's
// number.
std::optional<int> compute_mode_named(const std::string& text) {
  std::string t = to_lower(trim(text));
  if (t == "default") return 0;
  if (t == "prohibited") return 2;
  if (t == "exclusive_process" || t == "e. process") return 3;
  return std::nullopt;
}

// "74MiB", "11439 MiB": bytes.
std::optional<uint64_t> mib_bytes(const std::string& text) {
  std::string t = trim(text);
  if (!ends_with(t, "MiB")) return std::nullopt;
  auto n = parse_int(trim(t.substr(0, t.size() - 3)));
  if (!n || *n < 0 || *n > (1LL << 30)) return std::nullopt;
  return static_cast<uint64_t>(*n) << 20;
}

// The table's second line of a GPU: "| N/A 35C P0 63W / 235W |  74MiB / 11439MiB |  0%  E. Process
// |".
bool read_smi_usage(PastedReport& r, const std::string& line) {
  auto cells = split(line, '|');
  if (r.facts.driver.devices.empty() || cells.size() < 4) return false;
  auto slash = cells[2].find('/');
  if (slash == std::string::npos || cells[2].find("MiB") == std::string::npos) return false;
  auto used = mib_bytes(cells[2].substr(0, slash)), total = mib_bytes(cells[2].substr(slash + 1));
  if (!used || !total) return false;
  NvmlDevice& d = smi_device(r);
  d.memory_used = used, d.memory_total = total;
  std::string util = trim(cells[3]);
  auto pct = util.find('%');
  if (pct != std::string::npos) d.compute_mode = compute_mode_named(util.substr(pct + 1));
  return true;
}

// nvidia-smi -q's "Key        : value" lines.
bool smi_q_value(const std::string& line, std::string_view key, std::string& value) {
  if (!starts_with(line, key)) return false;
  std::string rest = line.substr(key.size());
  size_t colon = rest.find(':');
  if (colon == std::string::npos || !trim(rest.substr(0, colon)).empty()) return false;
  value = trim(rest.substr(colon + 1));
  return true;
}

bool read_nvidia_smi_q(PastedReport& r, const std::string& line, ReadState& st) {
  std::string v;
  if (smi_q_value(line, "Driver Version", v)) {
    set_driver(r, v.substr(0, v.find_first_of(" \t")));  // "470.82.01    CUDA Version: 11.4" pasted off the table
    return r.recognised = true;
  }
  if (smi_q_value(line, "Product Name", v) && !v.empty()) {
    add_gpu(r, "GPU " + std::to_string(r.facts.driver.devices.size()), v);
    return true;
  }
  if (r.facts.driver.devices.empty()) return false;
  if (smi_q_value(line, "Compute Mode", v)) {
    if (auto mode = compute_mode_named(v)) smi_device(r).compute_mode = mode;
    return true;
  }
  if (line == "FB Memory Usage") return st.in_fb_memory = true;
  if (!st.in_fb_memory) return false;
  if (smi_q_value(line, "Total", v)) return (smi_device(r).memory_total = mib_bytes(v)), true;
  if (smi_q_value(line, "Used", v)) return (smi_device(r).memory_used = mib_bytes(v)), true;
  if (!smi_q_value(line, "Free", v) && !smi_q_value(line, "Reserved", v)) st.in_fb_memory = false;
  return false;
}

// The variables the rules read from a paste: "NAME=value", "export NAME=value", env's lines, or
// "$ echo $NAME" with its value on the next line.
constexpr std::string_view kPastedVariables[] = {"CUDA_VISIBLE_DEVICES",
                                                 "PYTORCH_CUDA_ALLOC_CONF",
                                                 "PYTORCH_ALLOC_CONF",
                                                 "NCCL_P2P_DISABLE",
                                                 "NCCL_SHM_DISABLE",
                                                 "NCCL_IB_DISABLE",
                                                 "NCCL_SOCKET_IFNAME",
                                                 "NCCL_DEBUG",
                                                 "LD_LIBRARY_PATH",
                                                 "CUDA_HOME",
                                                 "LD_PRELOAD"};

bool pasted_variable(std::string_view name) {
  for (auto v : kPastedVariables)
    if (v == name) return true;
  return false;
}

void set_variable(PastedReport& r, const std::string& name, const std::string& value) {
  if (r.facts.env.vars.count(name)) return;
  r.facts.env.vars[name] = printable(value, 4096);
  r.read.push_back(name + "=" + printable(value, 80));
}

// The line after `echo $NAME`: its value (unless it is the next command).
bool read_echoed(PastedReport& r, const std::string& line, ReadState& st) {
  if (st.echoed.empty()) return false;
  std::string name = std::exchange(st.echoed, "");
  if (starts_with(line, "$") || line.find("echo ") != std::string::npos) return false;
  set_variable(r, name, line);
  return true;
}

// A notebook's `os.environ['LD_LIBRARY_PATH'] = f"/opt/conda/lib:{os.environ.get(...)}"`: the
// literal part of the value (what it puts first).
bool read_python_environ(PastedReport& r, const std::string& line) {
  auto at = line.find("os.environ[");
  if (at == std::string::npos) return false;
  std::string rest = line.substr(at + 11);
  if (rest.empty() || (rest[0] != '\'' && rest[0] != '"')) return false;
  auto close = rest.find(rest[0], 1);
  if (close == std::string::npos || !pasted_variable(std::string_view(rest).substr(1, close - 1))) return false;
  std::string name = rest.substr(1, close - 1);
  std::string value = trim(rest.substr(close + 1));
  if (!starts_with(value, "]") || trim(value.substr(1)).substr(0, 1) != "=") return false;
  value = trim(trim(value.substr(1)).substr(1));
  if (starts_with(value, "f")) value = value.substr(1);
  if (value.empty() || (value[0] != '\'' && value[0] != '"')) return false;
  std::string literal = value.substr(1, value.find_first_of(std::string(1, value[0]) + "{", 1) - 1);
  set_variable(r, name, literal);
  return true;
}

bool read_variable(PastedReport& r, const std::string& line, ReadState& st) {
  if (read_python_environ(r, line)) return true;
  std::string l = line;
  for (const char* prompt : {"$ ", "# ", "> "})
    if (starts_with(l, prompt)) l = trim(l.substr(2));
  // A prompt with its user, host and folder ("(venv) u@host:~/proj$ echo $LD_LIBRARY_PATH").
  if (auto echo = l.find("$ echo $"); echo != std::string::npos) l = l.substr(echo + 2);
  if (starts_with(l, "echo $")) {
    std::string name = l.substr(6);
    if (starts_with(name, "{") && ends_with(name, "}")) name = name.substr(1, name.size() - 2);
    if (pasted_variable(name)) st.echoed = name;
    return true;
  }
  if (starts_with(l, "export ")) l = trim(l.substr(7));
  auto eq = l.find('=');
  if (eq == std::string::npos || !pasted_variable(std::string_view(l).substr(0, eq))) return false;
  std::string value = l.substr(eq + 1);
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
      value.back() == value.front())
    value = value.substr(1, value.size() - 2);
  set_variable(r, l.substr(0, eq), value);
  return true;
}

// ldd's "libnvJitLink.so.12 => /usr/local/cuda-12.1/lib64/libnvJitLink.so.12 (0x000070ddad800000)"
// or "libcudnn.so.8 => not found": the copy the loader picks for each name.
bool read_ldd(PastedReport& r, const std::string& line) {
  auto arrow = line.find(" => ");
  if (arrow == std::string::npos || arrow == 0 || line.find(".so", 0) > arrow) return false;
  std::string name = line.substr(0, arrow);
  if (name.find_first_of(" \t/") != std::string::npos) return false;
  std::string target = trim(line.substr(arrow + 4));
  if (starts_with(target, "not found")) target = "not found";
  else if (auto paren = target.rfind(" (0x"); paren != std::string::npos) target = trim(target.substr(0, paren));
  if (target != "not found" && !starts_with(target, "/")) return false;
  if (r.clues.ldd.size() < 256) r.clues.ldd.emplace(printable(name, 200), printable(target, 400));  // a closure's worth
  return true;
}

// A WSL kernel wherever the report names it (uname -r, collect_env's "Python platform", DKMS's
// "kernel headers for kernel 4.4.0-19041-Microsoft"): "-Microsoft" alone is WSL1, which has no GPU;
// "-microsoft-standard" (with or without "-WSL2") is WSL2's own kernel.
void read_wsl_kernel(PastedReport& r, const std::string& line) {
  if (r.facts.os.kernel) return;
  auto at = line.find("-Microsoft");
  bool wsl2 = false;
  if (at == std::string::npos) at = line.find("-microsoft-standard"), wsl2 = true;
  if (at == std::string::npos || at == 0 || !is_ascii_digit(line[at - 1])) return;
  size_t start = line.find_last_not_of("0123456789.-", at - 1);
  start = start == std::string::npos ? 0 : start + 1;
  if (start < line.size() && line.compare(start, 6, "Linux-") == 0) start += 6;
  size_t end = line.find_first_of(" \t\"'),", at);
  std::string kernel = line.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (!wsl2) kernel = kernel.substr(0, kernel.find("-Microsoft") + 10);
  else if (auto x86 = kernel.find("-x86_64"); x86 != std::string::npos) kernel = kernel.substr(0, x86);
  r.facts.os.kernel = printable(kernel, 80);
  r.facts.os.wsl = true;
  r.facts.os.wsl_dxg = wsl2;
  r.read.push_back("kernel " + *r.facts.os.kernel + (wsl2 ? " (WSL2)" : " (WSL1)"));
}

// A 32-bit Python: collect_env's "Python version: 3.7 (32-bit runtime)", or python.org's 32-bit
// install folder in a path ("C:\\Python\\Python37-32\\Scripts", "python38-32\\python.exe").
void read_python_bits(PastedReport& r, const std::string& line) {
  if (r.clues.python_32bit) return;
  if (line.find("(32-bit runtime)") != std::string::npos) r.clues.python_32bit = true;
  if (line.find("-32\\") == std::string::npos) return;
  const std::string lower = to_lower(line);
  for (size_t at = lower.find("-32\\"); at != std::string::npos && !r.clues.python_32bit; at = lower.find("-32\\", at + 1)) {
    size_t python = lower.rfind("python", at);
    r.clues.python_32bit = python != std::string::npos && at - python <= 8 &&
                           lower.find_first_not_of("0123456789", python + 6) == at;
  }
  if (r.clues.python_32bit) r.read.push_back("a 32-bit Python");
}

// mokutil --sb-state's "SecureBoot enabled" and lsmod's "nouveau  2293760  3" row: what keeps the
// NVIDIA module from loading.
void read_module_state(PastedReport& r, const std::string& line) {
  if (line == "SecureBoot enabled") r.clues.secure_boot_on = true;
  if (starts_with(line, "nouveau ") && line.find_first_of("0123456789") != std::string::npos) r.clues.nouveau_loaded = true;
}

// A traceback's 'File "/venv/lib/python3.11/site-packages/torch/__init__.py"': where the torch that
// failed lives.
void read_torch_folder(PastedReport& r, const std::string& line) {
  for (const char* marker : {"site-packages/torch/", "dist-packages/torch/", "site-packages\\torch\\"}) {
    auto at = line.find(marker);
    if (at == std::string::npos || r.clues.torch_folders.size() >= 4) continue;
    size_t start = line.find_last_of(" \"'(", at);
    std::string folder = line.substr(start == std::string::npos ? 0 : start + 1, at - (start == std::string::npos ? 0 : start + 1) +
                                                                                     std::string_view(marker).size() - 1);
    if (std::find(r.clues.torch_folders.begin(), r.clues.torch_folders.end(), folder) == r.clues.torch_folders.end())
      r.clues.torch_folders.push_back(printable(folder, 300));
  }
}

// "$ sudo docker run -t -i --privileged testimage bash": a container the report's error ran in.
bool read_docker_run(PastedReport& r, const std::string& line) {
  auto at = line.find("docker run ");
  if (at == std::string::npos || r.clues.docker_runs.size() >= 8) return false;
  r.clues.docker_runs.push_back(printable(line.substr(at), 300));
  return true;
}

// nvidia-smi's table: "| NVIDIA-SMI 470.86   Driver Version: 470.86   CUDA Version: 11.4 |" and a
// row per GPU, "|   0  NVIDIA GeForce RTX 4090        Off |   00000000:01:00.0  On |  Off |".
bool read_nvidia_smi(PastedReport& r, const std::string& line) {
  auto at = line.find("Driver Version: ");
  if (starts_with(line, "| NVIDIA-SMI ") && at != std::string::npos) {
    std::string rest = line.substr(at + 16);
    set_driver(r, rest.substr(0, rest.find(' ')));
    r.recognised = true;
    return true;
  }
  if (!starts_with(line, "|") || line.size() < 8) return false;
  std::string row = trim(line.substr(1));
  size_t digits = row.find_first_not_of("0123456789");
  if (digits == 0 || digits == std::string::npos || row.compare(digits, 2, "  ") != 0) return false;
  std::string name = trim(row.substr(digits));
  name = trim(name.substr(0, std::min(name.find("  "), name.find('|'))));
  for (const char* tail : {" Off", " On"})
    if (ends_with(name, tail)) name = trim(name.substr(0, name.size() - std::string(tail).size()));
  // A process row ("|    0   N/A  N/A   1234   C   python   900MiB |") names no GPU.
  if (name.empty() || !is_ascii_alpha(name[0]) || starts_with(name, "N/A") || name.find("MiB") != std::string::npos)
    return false;
  add_gpu(r, "GPU " + row.substr(0, digits), name);
  return true;
}

// A package and its version, from any listing: numpy's decides torch-needs-numpy1, torch's is the
// torch when collect_env did not say.
void add_package(PastedReport& r, std::string name, const std::string& version) {
  name = to_lower(name);
  reporter_env(r).distributions[name] = printable(version, 60);
  if ((name == "torch" || name == "pytorch") && !reporter_torch(r).version) {
    reporter_torch(r).version = printable(version, 60);
    r.read.push_back("PyTorch " + *reporter_torch(r).version);
  }
}

std::vector<std::string> words_of(const std::string& line) {
  std::vector<std::string> out;
  for (const auto& w : split(line, ' '))
    if (!w.empty()) out.push_back(w);
  return out;
}

// "[pip3] numpy==1.26.4", pip freeze's "numpy==1.26.4", pip list's "numpy   1.26.4" (under its
// header), "[conda] pytorch 2.1.0 py3.11_cuda12.1_cudnn8.9.2_0 pytorch" and conda list's rows (under
// its "# Name" header; pytorch's build string says cpu or cudaX.Y).
void read_library(PastedReport& r, const std::string& line, ReadState& st) {
  bool pip3 = starts_with(line, "[pip3] ") || starts_with(line, "[pip] ");
  std::string spec = pip3 ? trim(line.substr(line.find(' ') + 1)) : line;
  auto eq = spec.find("==");
  if (eq != std::string::npos && eq > 0 && spec.find(' ') == std::string::npos)
    return add_package(r, spec.substr(0, eq), spec.substr(eq + 2));
  bool conda_line = starts_with(line, "[conda] ");
  auto w = words_of(conda_line ? line.substr(8) : line);
  bool conda = conda_line || st.in_conda_list;
  const bool listed = conda || st.in_pip_list || (w.size() == 2 && known_package(w[0]));
  if (w.size() < 2 || !listed || !is_ascii_digit(w[1][0])) return;
  add_package(r, w[0], w[1]);
  if (!conda || w.size() < 3) return;
  CondaPackage p{w[0], w[1], w[2], w.size() > 3 ? w[3] : "", {}};
  reporter_env(r).conda_packages.push_back(p);
  if (w[0] != "pytorch" || !st.cuda_said.empty()) return;
  auto cuda = w[2].find("cuda");
  if (w[2].find("cpu") != std::string::npos) st.cuda_said = "None";
  else if (cuda != std::string::npos) {
    st.cuda_said = w[2].substr(cuda + 4, w[2].find('_', cuda) - cuda - 4);
    // conda-forge's "cuda118_py311h…" or "cuda120_…": 11.8, 12.0
    if (st.cuda_said.size() == 3 && st.cuda_said.find_first_not_of("0123456789") == std::string::npos)
      st.cuda_said = st.cuda_said.substr(0, 2) + "." + st.cuda_said.substr(2);
  }
}

// A Python session's answer to `torch.__version__` / `torch.version.cuda` (the REPL's '2.5.1+cu124'
// or print's 2.5.1+cu124, on the next line): the torch and the CUDA it was built for.
bool read_python_answer(PastedReport& r, const std::string& line, ReadState& st) {
  if (!st.asked.empty()) {
    const std::string asked = std::exchange(st.asked, "");
    std::string v = line;
    if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"') && v.back() == v.front()) v = v.substr(1, v.size() - 2);
    const bool answer = !v.empty() && v.find(' ') == std::string::npos && (is_ascii_digit(v[0]) || v == "None");
    if (answer && asked == "version" && is_ascii_digit(v[0])) return add_package(r, "torch", v), true;
    if (answer && asked == "cuda") return st.cuda_said = v, true;
  }
  if (line.find(">>>") == std::string::npos && line.find("print(") == std::string::npos) return false;
  if (line.find("torch.__version__") != std::string::npos) st.asked = "version";
  else if (line.find("torch.version.cuda") != std::string::npos) st.asked = "cuda";
  return false;
}

// The blocks whose rows carry no key of their own: pip list's and conda list's rows.
void enter_block(const std::string& line, ReadState& st) {
  auto w = words_of(line);
  if (w.size() >= 2 && w[0] == "Package" && w[1] == "Version") st.in_pip_list = true;
  if (starts_with(line, "# Name") || starts_with(line, "# packages in environment")) st.in_conda_list = true;
}

void read_line(PastedReport& r, const std::string& raw, ReadState& st) {
  std::string line = trim(raw);
  read_torch_folder(r, line);
  read_wsl_kernel(r, line);
  read_python_bits(r, line);
  read_module_state(r, line);
  std::string v;
  if (read_echoed(r, line, st) || read_python_answer(r, line, st)) return;
  if (st.in_gpus && starts_with(line, "GPU ")) return read_gpu(r, line);
  st.in_gpus = false;
  if (std::exchange(st.in_cpu, false)) read_mac_cpu(r, line);
  if (line == "CPU:") st.in_cpu = true;
  if (key_value(line, "PyTorch version", v) && !unknown(v)) {
    reporter_torch(r).version = v, r.recognised = true;
    r.read.push_back("PyTorch " + printable(v, 60));
  } else if (key_value(line, "CUDA used to build PyTorch", v)) {
    r.recognised = true;
    st.cuda_said = v;
  } else if (key_value(line, "OS", v) && !unknown(v)) {
    read_os(r, v);
  } else if (key_value(line, "Python version", v) && !unknown(v)) {
    auto parts = split(v.substr(0, v.find(' ')), '.');
    if (parts.size() >= 2) reporter_env(r).python_version = parts[0] + "." + parts[1];
  } else if (key_value(line, "Nvidia driver version", v) && !unknown(v)) {
    set_driver(r, v);
  } else if (key_value(line, "GPU models and configuration", v)) {
    st.in_gpus = true;
    if (!unknown(v)) read_gpu(r, v);
  } else if (key_value(line, "Name", v) && known_package(v)) {
    st.shown = v;  // pip show
  } else if (!st.shown.empty() && key_value(line, "Version", v) && !v.empty() && is_ascii_digit(v[0])) {
    add_package(r, st.shown, v);
    st.shown.clear();
  } else if (key_value(line, "Python platform", v)) {
    std::string lower = to_lower(v);
    if (starts_with(lower, "macos-")) read_mac_python_platform(r, v);
  } else if (key_value(line, "ProductName", v) && v == "macOS") {
    reporter_mac(r);  // sw_vers
  } else if (key_value(line, "ProductVersion", v) && r.facts.macos) {
    set_macos_version(r, v);
  } else if (!read_variable(r, line, st) && !read_ldd(r, line) && !read_docker_run(r, line) && !read_nvidia_smi_q(r, line, st) &&
             !read_nvidia_smi(r, line) && !read_smi_usage(r, line)) {
    enter_block(line, st);
    read_library(r, line, st);
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
  } else if (label.empty() && platform_of(r.facts).pypi_torch_is_cpu_build) {
    t.cuda.reset();  // PyPI's own wheel there; the CUDA ones carry +cuXYZ
    r.read.push_back("a CPU build (torch " + version + " without +cuXYZ on " + std::string(platform_of(r.facts).title) +
                     ": PyPI's own wheel)");
  } else if (starts_with(label, "cu") && label.size() >= 5 && label.find_first_not_of("0123456789", 2) == std::string::npos) {
    t.cuda = label.substr(2, label.size() - 3) + "." + label.substr(label.size() - 1);
    r.read.push_back("built for CUDA " + *t.cuda + " (+" + label + ")");
  } else {
    t.cuda = "unknown";  // neither a CPU build nor a known CUDA: the rules that need it say nothing
    r.missing.push_back("whether this torch is a CUDA build (collect_env's \"CUDA used to build PyTorch\")");
  }
}

// pip's torch beside conda's pytorch of another release ("[pip3] torch==2.1.0+cu121" and "[conda]
// pytorch 1.13.1 py3.9_cpu_0 pytorch"): two installs in one environment (the same release is one
// install: pip lists conda's pytorch as torch too).
void settle_two_installs(PastedReport& r) {
  if (r.facts.python.envs.empty() || r.facts.python.envs.front().torch.empty()) return;
  PythonEnv& e = r.facts.python.envs.front();
  auto pip = e.distributions.find("torch");
  if (pip == e.distributions.end()) return;
  const std::string pip_release = pip->second.substr(0, pip->second.find('+'));
  for (const auto& p : e.conda_packages) {
    if (p.name != "pytorch" || p.channel == "pypi" || p.version.substr(0, p.version.find('+')) == pip_release) continue;
    TorchInstall conda;
    conda.site_packages = kSitePackages;
    conda.version = p.version + " (conda's pytorch, " + p.build + ")";
    if (p.build.find("cpu") != std::string::npos) conda.cuda.reset();
    else conda.cuda = "unknown";
    e.torch.push_back(conda);
    r.read.push_back("conda's pytorch " + p.version + " beside pip's torch " + pip->second);
    return;
  }
}

// A Mac's report: its torch is what the macOS rules check (MPS, not CUDA), and what decides them
// is the macOS version, the processor and the Python's architecture.
void settle_mac(PastedReport& r) {
  MacosFacts& m = *r.facts.macos;
  for (auto& e : r.facts.python.envs)
    for (auto& t : e.torch) {
      t.cuda.reset();  // no CUDA on macOS
      MacTorchCheck c;
      c.site_packages = t.site_packages;
      m.torch.push_back(c);
    }
  if (!m.product_version) r.missing.push_back("the macOS version (sw_vers, or collect_env's \"OS\")");
  if (!m.apple_silicon) r.missing.push_back("the processor (collect_env's \"CPU\": Apple M… or Intel)");
}

}  // namespace

PastedClues read_pasted_clues(std::string_view text) {
  PastedReport r;
  text = text.substr(0, 16u << 20);
  for (size_t start = 0; start < text.size();) {
    size_t end = std::min(text.find('\n', start), text.size());
    std::string_view view = text.substr(start, end - start);
    start = end + 1;
    // Most lines of a long log hold no clue: only these are read (each clue reader's own marker).
    if (view.find("-packages") == std::string_view::npos && view.find(" => ") == std::string_view::npos &&
        view.find("docker run ") == std::string_view::npos && view.find("-32") == std::string_view::npos &&
        view.find("SecureBoot") == std::string_view::npos && view.find("nouveau") == std::string_view::npos)
      continue;
    std::string line(view.substr(0, 4096));
    std::replace(line.begin(), line.end(), '\t', ' ');
    line = trim(printable(line, 2000));
    read_torch_folder(r, line);
    read_python_bits(r, line);
    read_module_state(r, line);
    if (!read_ldd(r, line)) read_docker_run(r, line);
  }
  return r.clues;
}

PastedReport read_pasted_report(std::string_view text) {
  PastedReport r;
  ReadState st;
  for (auto line : lines(text.substr(0, 16u << 20))) {
    std::replace(line.begin(), line.end(), '\t', ' ');  // ldd and sw_vers indent and align with tabs
    read_line(r, printable(line, 2000), st);
  }
  // A listing alone (pip list, conda list, nvidia-smi with pip freeze) is a report too when it names torch.
  if (!r.facts.python.envs.empty() && !r.facts.python.envs.front().torch.empty()) r.recognised = true;
  if (!r.recognised) return r;
  if (r.facts.macos) return settle_mac(r), r;
  settle_cuda_build(r, st.cuda_said);
  settle_two_installs(r);
  // nvidia-smi and collect_env list every GPU NVML sees, whatever CUDA_VISIBLE_DEVICES says.
  if (!r.facts.driver.devices.empty()) r.facts.nvml.device_count = static_cast<int>(r.facts.driver.devices.size());
  if (!r.facts.kernel.loaded_version) r.missing.push_back("the driver version (collect_env's \"Nvidia driver version\", or nvidia-smi's first lines)");
  if (r.facts.driver.devices.empty()) r.missing.push_back("the GPU (collect_env's \"GPU models and configuration\")");
  for (const auto& d : r.facts.driver.devices)
    if (!d.cc_major) r.missing.push_back("the compute capability of " + d.name.value_or("the GPU") + " (not in dlready's GPU table)");
  return r;
}

}  // namespace dlready
