#include "fixture.hpp"

#include <elf.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <chrono>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "os/posix_fs.hpp"
#include "os/root_fs.hpp"
#include "diagnose/rules.hpp"

namespace dlready::test {

Fixture::Fixture() {
  char tmpl[] = "/tmp/dlready-fixture-XXXXXX";
  if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
  root = tmpl;
}

Fixture::~Fixture() { remove_tree(root); }

void Fixture::write(const std::string& path, const std::string& content, mode_t mode) {
  (void)make_directories(path_dirname(host(path)));
  std::ofstream out(host(path), std::ios::binary | std::ios::trunc);
  out << content;
  out.close();
  ::chmod(host(path).c_str(), mode);
}

void Fixture::link(const std::string& path, const std::string& target) {
  (void)make_directories(path_dirname(host(path)));
  ::unlink(host(path).c_str());
  if (::symlink(target.c_str(), host(path).c_str()) != 0) throw std::runtime_error("symlink " + path);
}

void Fixture::mkdir(const std::string& path) { (void)make_directories(host(path)); }

void Fixture::remove(const std::string& path) { remove_tree(host(path)); }

void Fixture::copy(const std::string& host_src, const std::string& path) {
  std::ifstream in(host_src, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + host_src);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ::unlink(host(path).c_str());  // never write through a symlink into another fixture file
  write(path, bytes, 0755);
}

GatherOptions Fixture::options() const {
  GatherOptions o;
  o.root = root;
  o.env = env;
  if (!user.empty()) o.user = user;
  o.probe_timeout_ms = timeout_ms;
  o.load_root_drivers = true;  // the suite built this root and its fake driver libraries
  return o;
}

Facts Fixture::facts() const {
  auto g = gather_facts(options());
  if (!g.error.empty()) throw std::runtime_error(g.error);
  return g.facts;
}

Report Fixture::report() const { return diagnose(facts()); }

std::string Fixture::env_command() const {
  std::string out = "env -i";
  for (const auto& [k, v] : env) out += " " + k + "='" + v + "'";
  return out;
}

pid_t start_shell(const std::string& cmd) {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

CommandRun run_command(const std::string& cmd) {
  CommandRun r{-1, ""};
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
  int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string command_output(const std::string& cmd) { return run_command(cmd).out; }

pid_t start_in_background(const std::string& cmd, const std::string& log) {
  std::string full = "exec " + cmd + " >" + log + " 2>&1";
  pid_t pid = ::fork();
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", full.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid, int seconds) {
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > until) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

int exit_status(const Report& r, Severity threshold) {
  for (const auto& x : r.findings)
    if (x.severity >= threshold) return 1;
  return 0;
}

bool has_finding(const Report& r, const std::string& id) {
  for (const auto& x : r.findings)
    if (x.id == id) return true;
  return false;
}

std::string finding_ids(const Report& r) {
  std::string s;
  for (const auto& x : r.findings) s += (s.empty() ? "" : ",") + x.id;
  return s.empty() ? "(none)" : s;
}

void add_base_system(Fixture& f, const std::string& os_id) {
  f.write("/etc/os-release", "PRETTY_NAME=\"Test Linux (" + os_id + ")\"\nID=" + os_id + "\n");
  f.write("/proc/sys/kernel/osrelease", "6.1.0-test-amd64\n");
  f.write("/proc/version", "Linux version 6.1.0-test-amd64 (gcc 12.2.0) #1 SMP\n");
  f.write("/proc/meminfo", "MemTotal:       65536000 kB\nMemFree:        60000000 kB\n");
  f.write("/proc/cpuinfo", "processor\t: 0\nmodel name\t: Test CPU\nprocessor\t: 1\nmodel name\t: Test CPU\n");
  f.write("/proc/self/mounts", "proc /proc proc rw 0 0\ntmpfs /dev/shm tmpfs rw,nosuid,nodev,size=8388608k 0 0\n");
  f.write("/proc/modules", "ext4 1 0 - Live 0x0\n");
  f.mkdir("/dev/shm");
  f.mkdir("/sys/bus/pci/devices");
  f.write("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:Alice:/home/alice:/bin/bash\n");
  f.write("/etc/group", "root:x:0:\nvideo:x:44:\nalice:x:1000:\n");
  f.write("/usr/share/misc/pci.ids",
          "# test pci.ids\n8086  Intel Corporation\n\t4680  AlderLake-S GT1\n10de  NVIDIA Corporation\n"
          "\t1b06  GP102 [GeForce GTX 1080 Ti]\n\t2330  GH100 [H100 SXM5 80GB]\n\t2684  AD102 [GeForce RTX 4090]\n"
          "\t2b85  GB202 [GeForce RTX 5090]\n\t22a3  GH100 [H100 NVSwitch]\n1af4  Red Hat, Inc.\n");
  f.mkdir("/home/alice");
}

void add_pci_function(Fixture& f, const std::string& address, const std::string& vendor,
                      const std::string& device, const std::string& cls, const std::string& driver) {
  // sysfs: /sys/bus/pci/devices/<addr> -> ../../../devices/pci0000:00/<addr>
  std::string real = "/sys/devices/pci0000:00/" + address;
  f.write(real + "/vendor", "0x" + vendor + "\n");
  f.write(real + "/device", "0x" + device + "\n");
  f.write(real + "/class", "0x" + cls + "\n");
  f.write(real + "/current_link_speed", "16.0 GT/s PCIe\n");
  f.write(real + "/max_link_speed", "16.0 GT/s PCIe\n");
  f.write(real + "/current_link_width", "16\n");
  f.write(real + "/max_link_width", "16\n");
  f.write(real + "/resource",
          "0x00000000fb000000 0x00000000fbffffff 0x0000000000040200\n"
          "0x000000e000000000 0x000000efffffffff 0x000000000014220c\n"
          "0x0000000000000000 0x0000000000000000 0x0000000000000000\n");
  if (!driver.empty()) {
    f.mkdir("/sys/bus/pci/drivers/" + driver);
    f.link(real + "/driver", "../../../bus/pci/drivers/" + driver);
  }
  f.link("/sys/bus/pci/devices/" + address, "../../../devices/pci0000:00/" + address);
}

void add_nvidia_gpu(Fixture& f, const std::string& address, const std::string& device_id, const std::string& driver) {
  add_pci_function(f, address, "10de", device_id, "030200", driver);
}

void add_loaded_driver(Fixture& f, const std::string& version, bool uvm) {
  f.write("/proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  " + version +
                                             "  Release Build  (dvs-builder@U16)  Mon Jul 14 2025\n"
                                             "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n");
  f.write("/sys/module/nvidia/version", version + "\n");
  std::string mods = "ext4 1 0 - Live 0x0\nnvidia 1 0 - Live 0x0\nnvidia_drm 1 0 - Live 0x0\n";
  if (uvm) mods += "nvidia_uvm 1 0 - Live 0x0\n";
  f.write("/proc/modules", mods);
}

void add_device_nodes(Fixture& f, int gpus, mode_t mode) {
  f.write("/dev/nvidiactl", "", mode);
  f.write("/dev/nvidia-uvm", "", mode);
  for (int i = 0; i < gpus; ++i) f.write("/dev/nvidia" + std::to_string(i), "", mode);
}

void write_driver_conf(Fixture& f, const std::string& conf, const std::string& dir) {
  f.write(dir + "/fake_driver.conf", conf);
}

void add_user_driver(Fixture& f, const std::string& version, const std::string& conf, const std::string& dir) {
  f.copy(DLREADY_FAKE_CUDA_LIB, dir + "/libcuda.so." + version);
  f.link(dir + "/libcuda.so.1", "libcuda.so." + version);
  f.copy(DLREADY_FAKE_NVML_LIB, dir + "/libnvidia-ml.so." + version);
  f.link(dir + "/libnvidia-ml.so.1", "libnvidia-ml.so." + version);
  write_driver_conf(f, conf, dir);
}

void replace_driver(Fixture& f, const std::string& version, const std::string& conf) {
  add_loaded_driver(f, version);
  write_kernel_module(f, "/lib/modules/6.1.0-test-amd64/updates/dkms/nvidia.ko", version);
  f.remove("/usr/lib/x86_64-linux-gnu");
  add_user_driver(f, version, conf);
}

void add_torch_to_site_packages(Fixture& f, const std::string& sp, const TorchSpec& spec) {
  f.write(sp + "/torch/__init__.py", "");
  f.write(sp + "/torch/version.py",
          "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda']\n__version__ = '" + spec.version +
              "'\ndebug = False\ncuda: Optional[str] = " + (spec.cuda.empty() ? "None" : "'" + spec.cuda + "'") +
              "\ngit_version = '0000'\n");
  if (!spec.cuda.empty()) f.write(sp + "/torch/lib/libtorch_cuda.so", "");
  std::string base = spec.from_pytorch_index ? spec.version : spec.version.substr(0, spec.version.find('+'));
  std::string meta = "Metadata-Version: 2.1\nName: torch\nVersion: " + base + "\nRequires-Dist: filelock\n";
  for (const auto& [name, v] : spec.pins) meta += "Requires-Dist: " + name + "==" + v + "; platform_system == \"Linux\"\n";
  f.write(sp + "/torch-" + base + ".dist-info/METADATA", meta);
  f.write(sp + "/torch-" + base + ".dist-info/INSTALLER", "pip\n");
  for (const auto& [name, v] : spec.installed) {
    std::string under = name;
    for (auto& c : under)
      if (c == '-') c = '_';
    f.write(sp + "/" + under + "-" + v + ".dist-info/METADATA", "Name: " + name + "\nVersion: " + v + "\n");
  }
}

void add_torch_venv(Fixture& f, const std::string& prefix, const TorchSpec& spec, bool active) {
  f.write(prefix + "/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\n");
  f.write(prefix + "/bin/python3", "#!/bin/sh\n", 0755);
  add_torch_to_site_packages(f, prefix + "/lib/python3.11/site-packages", spec);
  if (active) f.env["VIRTUAL_ENV"] = prefix;
}

void write_kernel_module(Fixture& f, const std::string& path, const std::string& version) {
  // Layout: ELF header | .modinfo data | .shstrtab data | section headers (null, .modinfo, .shstrtab)
  std::string modinfo = std::string("license=NVIDIA") + '\0' + "version=" + version + '\0';
  std::string shstr = std::string("\0.modinfo\0.shstrtab\0", 20);
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_REL;
  eh.e_machine = EM_X86_64;
  eh.e_version = EV_CURRENT;
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = 3;
  eh.e_shstrndx = 2;
  size_t off_modinfo = sizeof eh, off_str = off_modinfo + modinfo.size();
  eh.e_shoff = (off_str + shstr.size() + 7) & ~size_t{7};
  Elf64_Shdr sh[3]{};
  sh[1].sh_name = 1;
  sh[1].sh_type = SHT_PROGBITS;
  sh[1].sh_offset = off_modinfo;
  sh[1].sh_size = modinfo.size();
  sh[2].sh_name = 10;
  sh[2].sh_type = SHT_STRTAB;
  sh[2].sh_offset = off_str;
  sh[2].sh_size = shstr.size();
  std::string bytes(reinterpret_cast<const char*>(&eh), sizeof eh);
  bytes += modinfo + shstr;
  bytes.resize(eh.e_shoff, '\0');
  bytes.append(reinterpret_cast<const char*>(sh), sizeof sh);
  f.write(path, bytes);
}

std::string make_ld_cache(const std::vector<std::pair<std::string, std::string>>& entries) {
  // glibc-ld.so.cache1.1: 48-byte header, 24-byte entries, then strings; offsets from file start.
  std::string strings;
  std::vector<std::pair<uint32_t, uint32_t>> offs;
  size_t strings_start = 48 + 24 * entries.size();
  for (const auto& [soname, path] : entries) {
    uint32_t k = static_cast<uint32_t>(strings_start + strings.size());
    strings += soname + '\0';
    uint32_t v = static_cast<uint32_t>(strings_start + strings.size());
    strings += path + '\0';
    offs.push_back({k, v});
  }
  std::string out = "glibc-ld.so.cache1.1";
  auto u32 = [&](uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
  u32(static_cast<uint32_t>(entries.size()));
  u32(static_cast<uint32_t>(strings.size()));
  out += std::string(4, '\0');  // flags + padding
  u32(0);                       // extension offset
  out += std::string(12, '\0');
  for (const auto& [k, v] : offs) {
    u32(0x0303);  // FLAG_ELF_LIBC6 | FLAG_X8664_LIB64
    u32(k);
    u32(v);
    u32(0);
    uint64_t hw = 0;
    out.append(reinterpret_cast<const char*>(&hw), 8);
  }
  return out + strings;
}

void write_ld_cache(Fixture& f, const std::vector<std::pair<std::string, std::string>>& entries) {
  f.write("/etc/ld.so.cache", make_ld_cache(entries));
}

void healthy_gpu_machine(Fixture& f) {
  add_base_system(f);
  add_nvidia_gpu(f, "0000:01:00.0", "2330");
  add_loaded_driver(f, "580.65.06");
  write_kernel_module(f, "/lib/modules/6.1.0-test-amd64/updates/dkms/nvidia.ko", "580.65.06");
  add_device_nodes(f, 1);
  add_user_driver(f, "580.65.06", "devices=1\ndev0.name=NVIDIA H100 80GB HBM3\ndev0.cc=9.0\ncuda.driver_version=13000\n");
  add_torch_venv(f, "/home/alice/venv", TorchSpec{});
}

}  // namespace dlready::test
