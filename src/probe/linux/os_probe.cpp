#include <sys/utsname.h>

#include <algorithm>
#include <cctype>

#include "core/text.hpp"
#include "binfmt/elf_reader.hpp"
#include "probe/linux/probes.hpp"
#include "probe/linux/scan_cache.hpp"

namespace dlready {

std::optional<std::string> parse_os_release_value(const std::string& text, const std::string& key) {
  for (const auto& line : lines(text)) {
    if (!starts_with(line, key + "=")) continue;
    std::string v = trim(line.substr(key.size() + 1));
    if (v.size() >= 2 && (v[0] == '"' || v[0] == '\'') && v.back() == v[0]) v = v.substr(1, v.size() - 2);
    return v;
  }
  return std::nullopt;
}

std::optional<uint64_t> parse_shm_size_from_mounts(const std::string& mounts) {
  for (const auto& line : lines(mounts)) {
    auto f = split(line, ' ');
    if (f.size() < 4 || f[1] != "/dev/shm") continue;
    for (const auto& opt : split(f[3], ',')) {
      if (!starts_with(opt, "size=")) continue;
      std::string v = opt.substr(5);
      uint64_t mult = 1;
      if (!v.empty()) {
        char u = static_cast<char>(std::tolower(static_cast<unsigned char>(v.back())));
        if (u == 'k') mult = 1024;
        if (u == 'm') mult = 1024ull * 1024;
        if (u == 'g') mult = 1024ull * 1024 * 1024;
        if (mult != 1) v.pop_back();
      }
      auto n = parse_int(v);
      if (n && *n >= 0) return static_cast<uint64_t>(*n) * mult;
    }
    // tmpfs without size= defaults to half of RAM: the caller can fall back to that.
  }
  return std::nullopt;
}

namespace {

// "MemTotal:       24683784 kB" -> bytes.
std::optional<uint64_t> meminfo_bytes(const std::string& meminfo, const std::string& key) {
  for (const auto& line : lines(meminfo)) {
    if (!starts_with(line, key)) continue;
    auto parts = split(trim(line.substr(key.size())), ' ');
    if (!parts.empty())
      if (auto kb = parse_int(parts[0]); kb && *kb >= 0) return static_cast<uint64_t>(*kb) * 1024;
  }
  return std::nullopt;
}

// `read()`'s values out of `file`, from the doctor's cache while the file is as it was when they
// were read (a file that is absent stays absent): dpkg's status file was ~0.35 ms of every run,
// libc's banner ~0.14 ms. No cache: read every time.
template <class Read>
std::map<std::string, std::string> values_of(const RootFs& fs, ScanCache* cache, const std::string& what,
                                             const std::string& file, Read read) {
  const std::string key = what + "|" + fs.host(file);
  if (cache)
    if (auto hit = cache->values(key)) return *hit;
  std::map<std::string, std::string> values = read();
  if (cache) cache->put_values(key, values, {fs.host(file)});
  return values;
}

// "GNU C Library (Debian GLIBC 2.36-9+deb12u4) stable release version 2.36."
std::optional<std::string> libc_release(const RootFs& fs, const std::string& libc_path) {
  // The banner is in .rodata: read that section alone where the file lists its sections.
  std::optional<FileView> view;
  if (auto elf = read_elf(fs, libc_path, true); elf.info)
    for (const auto& s : elf.info->sections)
      if (s.name == ".rodata" && s.size <= (8u << 20)) view = fs.view_at(libc_path, s.offset, s.size);
  if (!view) view = fs.view_at(libc_path, 0, 8u << 20);
  if (!view) return std::nullopt;
  const std::string_view bytes = view->text;
  constexpr std::string_view marker = "release version ";
  auto pos = bytes.find(marker);
  if (pos == std::string_view::npos) return std::nullopt;
  pos += marker.size();
  std::string v;
  while (pos < bytes.size() && (std::isdigit(static_cast<unsigned char>(bytes[pos])) || bytes[pos] == '.'))
    v += bytes[pos++];
  while (!v.empty() && v.back() == '.') v.pop_back();
  if (v.empty()) return std::nullopt;
  return v;
}


std::optional<std::string> glibc_version(const RootFs& fs, const LibraryLocator& loc, ScanCache* cache) {
  auto libc = loc.locate("libc.so.6");
  if (!libc.path) return std::nullopt;
  auto values = values_of(fs, cache, "glibc", *libc.path, [&] {
    std::map<std::string, std::string> v;
    if (auto release = libc_release(fs, *libc.path)) v["release"] = *release;
    return v;
  });
  auto it = values.find("release");
  return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
}

std::optional<std::string> detect_container(const RootFs& fs) {
  if (fs.exists("/run/.containerenv")) return "podman";
  if (fs.exists("/var/run/secrets/kubernetes.io") || fs.exists("/run/secrets/kubernetes.io"))
    return "kubernetes";
  if (fs.exists("/.dockerenv")) return "docker";
  if (auto cg = fs.read("/proc/1/cgroup", 64 * 1024)) {
    if (contains(*cg, "kubepods")) return "kubernetes";
    if (contains(*cg, "docker") || contains(*cg, "containerd")) return "docker";
    if (contains(*cg, "libpod")) return "podman";
    if (contains(*cg, "/lxc")) return "lxc";
  }
  if (auto env = fs.read("/proc/1/environ", 64 * 1024)) {
    if (contains(*env, "container=podman")) return "podman";
    if (contains(*env, "container=lxc")) return "lxc";
  }
  return std::nullopt;
}

// A virtual machine: the CPU's hypervisor flag (x86: CPUID leaf 1 ECX bit 31, what systemd-detect-virt
// checks first) or /sys/hypervisor/type (Xen); named by DMI's vendor and product. An arm64 guest
// has no flag: DMI's product names its hypervisor (QEMU's "KVM Virtual Machine").
std::optional<std::string> detect_virtual_machine(const RootFs& fs, const std::vector<std::string>& cpu_flags) {
  auto dmi = [&](const char* name) { return trim(fs.read_line(std::string("/sys/class/dmi/id/") + name).value_or("")); };
  const std::string vendor = printable(dmi("sys_vendor"), 64), product = printable(dmi("product_name"), 64);
  const std::string both = trim(vendor + " " + product);
  const std::string lower = to_lower(both);
  bool flagged = std::find(cpu_flags.begin(), cpu_flags.end(), "hypervisor") != cpu_flags.end() ||
                 fs.exists("/sys/hypervisor/type");
  for (const char* word : {"kvm", "qemu", "vmware", "virtualbox", "xen", "bochs", "virtual machine", "parallels"})
    flagged = flagged || lower.find(word) != std::string::npos;
  if (!flagged) return std::nullopt;
  return both.empty() ? "hypervisor" : both;
}

}  // namespace

namespace {

// Compiler and CMake versions from the directories their packages install (collect_env runs
// `gcc --version`; the doctor runs no program it finds): /usr/lib/gcc/<triplet>/<N>,
// /usr/lib/llvm-<N>/lib/clang/<full version>, /usr/share/cmake-<X.Y>.
// Installed packages' versions from dpkg's status file ("gcc-12" -> "12.2.0-14+deb12u1").
// Each wanted package's paragraph is found by its "Package: NAME" line (a few memchr passes over
// the ~1 MB file, mapped: no copy of it, and ~15 page faults instead of ~880 for a buffer).
std::map<std::string, std::string> dpkg_versions(const RootFs& fs, const std::vector<std::string>& wanted) {
  std::map<std::string, std::string> out;
  auto status = fs.view_at("/var/lib/dpkg/status", 0, 64 << 20);
  if (!status) return out;
  const std::string_view text = status->text;
  // A field's value in one paragraph ("\nVersion: 3.25.1-1\n"), "" when absent.
  auto field = [](std::string_view para, std::string_view name) {
    size_t at = para.find("\n" + std::string(name) + ": ");
    if (at == std::string_view::npos) return std::string();
    at += name.size() + 3;
    return trim(para.substr(at, para.find('\n', at) - at));
  };
  for (const auto& name : wanted) {
    const std::string key = "Package: " + name + "\n";
    for (size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
      if (at != 0 && text[at - 1] != '\n') continue;  // "Package: " begins a line
      size_t end = text.find("\n\n", at);
      std::string_view para = text.substr(at == 0 ? 0 : at - 1, end == std::string_view::npos ? std::string_view::npos : end - at + 2);
      std::string version = field(para, "Version");
      if (ends_with(field(para, "Status"), " installed") && !version.empty()) out[name] = version;
    }
  }
  return out;
}

// "12.2.0-14+deb12u1" -> "12.2.0" (epoch and Debian revision off).
std::string upstream_version(std::string v) {
  if (auto colon = v.find(':'); colon != std::string::npos) v = v.substr(colon + 1);
  return v.substr(0, v.find('-'));
}

void probe_build_tools(const RootFs& fs, OsFacts& f, ScanCache* cache) {
  // The host's compilers only: a cross compiler (mingw-w64's x86_64-w64-mingw32) is not the gcc
  // collect_env runs.
  for (const auto& triplet : fs.list("/usr/lib/gcc")) {
    if (triplet.find("-linux-") == std::string::npos) continue;
    if (f.arch && triplet.rfind(*f.arch + "-", 0) != 0) continue;
    for (const auto& v : fs.list("/usr/lib/gcc/" + triplet))
      if (!v.empty() && std::isdigit(static_cast<unsigned char>(v[0])) && fs.exists("/usr/lib/gcc/" + triplet + "/" + v + "/cc1plus"))
        f.gcc_versions.push_back(v);
  }
  // The gcc on PATH is Debian's gcc-N (/usr/bin/gcc -> gcc-12): its package's version.
  std::vector<std::string> packages = {"cmake"};
  std::string gcc_package;
  if (auto target = fs.readlink("/usr/bin/gcc"); target && starts_with(path_basename(*target), "gcc-"))
    gcc_package = path_basename(*target), packages.push_back(gcc_package);
  auto versions = values_of(fs, cache, "dpkg " + join(packages, ","), "/var/lib/dpkg/status",
                            [&] { return dpkg_versions(fs, packages); });
  if (auto it = versions.find(gcc_package); it != versions.end()) {
    std::string distro = f.id == std::string("ubuntu") ? "Ubuntu" : f.id == std::string("debian") ? "Debian" : "";
    if (!distro.empty()) f.gcc_version_text = "(" + distro + " " + it->second + ") " + upstream_version(it->second);
  }
  if (auto it = versions.find("cmake"); it != versions.end()) f.cmake_version = upstream_version(it->second);
  for (const auto& dir : fs.list("/usr/lib")) {
    if (!starts_with(dir, "llvm-")) continue;
    auto full = fs.list("/usr/lib/" + dir + "/lib/clang");
    f.clang_versions.push_back(full.empty() ? dir.substr(5) : full.back());
  }
  // CMake's own folder where dpkg did not say (a CMake installed from its tarball): /usr/share
  // holds a hundred names, listed only then.
  for (const char* share : {"/usr/local/share", "/usr/share"})
    if (!f.cmake_version)
      for (const auto& dir : fs.list(share))
        if (starts_with(dir, "cmake-") && !f.cmake_version) f.cmake_version = dir.substr(6);
}

}  // namespace

std::optional<std::string> machine_of_root(const RootFs& fs) {
  if (fs.is_host_root()) {
    struct utsname u {};
    if (::uname(&u) == 0) return std::string(u.machine);
    return std::nullopt;
  }
  // Another machine's root: its dynamic loader's name says its processor.
  for (const auto& [loader, arch] : {std::pair<const char*, const char*>{"/lib/ld-linux-aarch64.so.1", "aarch64"},
                                     {"/usr/lib/ld-linux-aarch64.so.1", "aarch64"},
                                     {"/lib64/ld-linux-x86-64.so.2", "x86_64"}})
    if (fs.exists(loader)) return std::string(arch);
  return std::nullopt;
}

OsFacts probe_os(const RootFs& fs, const LibraryLocator& loc, ScanCache* cache) {
  OsFacts f;
  if (auto rel = fs.read("/etc/os-release", 64 * 1024)) {
    f.pretty_name = parse_os_release_value(*rel, "PRETTY_NAME");
    f.id = parse_os_release_value(*rel, "ID");
  }
  f.kernel = fs.read_line("/proc/sys/kernel/osrelease");
  if (fs.can_list("/sys/class/net")) f.net_interfaces = fs.list("/sys/class/net");
  f.arch = machine_of_root(fs);
  f.glibc = glibc_version(fs, loc, cache);
  auto cxx = loc.locate("libstdc++.so.6");
  if (cxx.real_path) {
    auto v = library_version_from_name(path_basename(*cxx.real_path));
    if (v) f.libstdcxx = v;
  }
  f.container = detect_container(fs);
  if (auto v = fs.read_line("/proc/version")) {
    f.wsl = contains(to_lower(*v), "microsoft");
    // "Linux version <release> (...)": the release where osrelease was not readable (a copied root).
    if (!f.kernel && starts_with(*v, "Linux version ")) {
      std::string release = v->substr(14, v->find(' ', 14) == std::string::npos ? std::string::npos : v->find(' ', 14) - 14);
      if (!release.empty() && release.size() <= 128) f.kernel = release;
    }
  }
  f.wsl_dxg = fs.exists("/dev/dxg");
  f.wsl_libcuda = fs.exists("/usr/lib/wsl/lib/libcuda.so.1");
  if (auto mounts = fs.read("/proc/self/mounts", 1 << 20)) f.shm_bytes = parse_shm_size_from_mounts(*mounts);
  if (auto mem = fs.read("/proc/meminfo", 64 * 1024)) {
    f.memory_bytes = meminfo_bytes(*mem, "MemTotal:");
    f.swap_bytes = meminfo_bytes(*mem, "SwapTotal:");
  }
  if (f.shm_bytes == std::nullopt && f.memory_bytes && fs.is_dir("/dev/shm"))
    f.shm_bytes = *f.memory_bytes / 2;  // tmpfs default when no size= is given
  if (auto cpu = fs.read("/proc/cpuinfo", 4 << 20)) {
    int n = 0;
    for (const auto& line : lines(*cpu)) {
      if (starts_with(line, "processor")) ++n;
      if (!f.cpu_model && starts_with(line, "model name")) {
        auto c = line.find(':');
        if (c != std::string::npos) f.cpu_model = trim(line.substr(c + 1));
      }
      if (f.cpu_flags.empty() && (starts_with(line, "flags") || starts_with(line, "Features"))) {  // x86 / arm64
        auto c = line.find(':');
        if (c != std::string::npos) f.cpu_flags = split(trim(line.substr(c + 1)), ' ');
      }
    }
    if (n > 0) f.cpu_count = n;
  }
  f.load = probe_cpu_load(fs, f.cpu_count);
  f.virtual_machine = detect_virtual_machine(fs, f.cpu_flags);
  probe_build_tools(fs, f, cache);
  return f;
}

}  // namespace dlready
