#include <elf.h>

#include <cstring>

#include "core/text.hpp"
#include "probe/linux/probes.hpp"

namespace dlready {

std::optional<std::string> parse_nvidia_proc_version(const std::string& line) {
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 06:54:38 UTC 2025"
  // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build  (...)"
  // The version is the token after the first double space (uv's accelerator.rs does the same).
  auto pos = line.find("  ");
  if (pos == std::string::npos) return std::nullopt;
  std::string rest = trim(line.substr(pos));
  auto end = rest.find(' ');
  std::string v = rest.substr(0, end);
  if (v.empty() || !std::isdigit(static_cast<unsigned char>(v[0]))) return std::nullopt;
  return v;
}

namespace {

// The `version=` field of a kernel module's .modinfo section, read through the ELF section
// table so that a 100 MB nvidia.ko costs a few small reads. Compressed modules: unknown.
std::optional<std::string> modinfo_version(const RootFs& fs, const std::string& path) {
  auto head = fs.read(path, sizeof(Elf64_Ehdr));
  if (!head || head->size() < sizeof(Elf64_Ehdr) || head->compare(0, 4, "\x7f" "ELF") != 0 ||
      (*head)[EI_CLASS] != ELFCLASS64)
    return std::nullopt;
  Elf64_Ehdr eh;
  std::memcpy(&eh, head->data(), sizeof eh);
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 || eh.e_shnum > 4096 ||
      eh.e_shstrndx >= eh.e_shnum)
    return std::nullopt;
  auto table = fs.read_at(path, eh.e_shoff, size_t{eh.e_shnum} * sizeof(Elf64_Shdr));
  if (!table || table->size() < size_t{eh.e_shnum} * sizeof(Elf64_Shdr)) return std::nullopt;
  auto shdr = [&](size_t i) {
    Elf64_Shdr s;
    std::memcpy(&s, table->data() + i * sizeof(Elf64_Shdr), sizeof s);
    return s;
  };
  Elf64_Shdr strtab_hdr = shdr(eh.e_shstrndx);
  if (strtab_hdr.sh_size > (1u << 20)) return std::nullopt;
  auto strtab = fs.read_at(path, strtab_hdr.sh_offset, strtab_hdr.sh_size);
  if (!strtab || strtab->size() < strtab_hdr.sh_size) return std::nullopt;
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr s = shdr(i);
    if (s.sh_name >= strtab->size()) continue;
    const char* name = strtab->data() + s.sh_name;
    size_t max = strtab->size() - s.sh_name;
    if (strnlen(name, max) == max || std::strcmp(name, ".modinfo") != 0) continue;
    if (s.sh_size > (1u << 20)) return std::nullopt;
    auto info = fs.read_at(path, s.sh_offset, s.sh_size);
    if (!info) return std::nullopt;
    for (const auto& field : split(*info, '\0'))
      if (starts_with(field, "version=")) return field.substr(8);
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::string> find_module_file(const RootFs& fs, const std::string& dir, int depth) {
  if (depth > 6) return std::nullopt;
  for (const auto& name : fs.list(dir)) {
    std::string p = dir + "/" + name;
    if (name == "nvidia.ko" || name == "nvidia.ko.xz" || name == "nvidia.ko.zst" || name == "nvidia.ko.gz")
      return p;
    if (fs.is_dir(p))
      if (auto found = find_module_file(fs, p, depth + 1)) return found;
  }
  return std::nullopt;
}

bool module_loaded(const RootFs& fs, const std::optional<std::string>& proc_modules, const std::string& name) {
  if (proc_modules) {
    for (const auto& line : lines(*proc_modules))
      if (starts_with(line, name + " ")) return true;
    return false;
  }
  return fs.exists("/sys/module/" + name + "/initstate");
}

}  // namespace

KernelDriverFacts probe_kernel_driver(const RootFs& fs, const std::optional<std::string>& kernel) {
  KernelDriverFacts f;
  f.proc_version_line = fs.read_line("/proc/driver/nvidia/version");
  if (f.proc_version_line) {
    f.loaded_version = parse_nvidia_proc_version(*f.proc_version_line);
    f.open_kernel_module = contains(*f.proc_version_line, "Open Kernel Module");
  }
  if (!f.loaded_version) f.loaded_version = fs.read_line("/sys/module/nvidia/version");
  auto mods = fs.read("/proc/modules", 1 << 20);
  f.nvidia_loaded = module_loaded(fs, mods, "nvidia") || f.proc_version_line.has_value();
  f.nvidia_uvm_loaded = module_loaded(fs, mods, "nvidia_uvm");
  f.nvidia_drm_loaded = module_loaded(fs, mods, "nvidia_drm");
  f.nouveau_loaded = module_loaded(fs, mods, "nouveau");
  f.nova_core_loaded = module_loaded(fs, mods, "nova_core");
  if (kernel) {
    std::string dir = "/lib/modules/" + *kernel;
    for (const char* sub : {"updates", "extra", "kernel/drivers/video", "kernel/nvidia", "misc"}) {
      if ((f.module_file = find_module_file(fs, dir + "/" + sub, 0))) break;
    }
    if (f.module_file && ends_with(*f.module_file, ".ko"))
      f.module_file_version = modinfo_version(fs, *f.module_file);
  }
  f.fabric_manager_installed = fs.exists("/usr/bin/nv-fabricmanager") ||
                               fs.exists("/lib/systemd/system/nvidia-fabricmanager.service") ||
                               fs.exists("/usr/lib/systemd/system/nvidia-fabricmanager.service");
  // efivarfs: 4 bytes of attributes, then the value (1 = Secure Boot enforced).
  if (auto var = fs.read("/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c", 64);
      var && var->size() >= 5)
    f.secure_boot = (*var)[4] == 1;
  return f;
}

}  // namespace dlready
