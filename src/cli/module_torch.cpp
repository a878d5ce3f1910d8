#include "cli/module_torch.hpp"

#include "binfmt/elf_reader.hpp"
#include "core/path_text.hpp"
#include "core/text.hpp"
#include "os/root_fs.hpp"
#include "probe/gather.hpp"
#include "probe/linux/ld_resolver.hpp"
#include "probe/linux/probes.hpp"
#include "setup/module_build.hpp"

namespace dlready {

std::optional<std::string> module_built_for_torch(const std::string& module_path) {
  RootFs fs("/");
  auto elf = read_elf(fs, module_path, true);
  if (!elf.info) return std::nullopt;
  for (const auto& s : elf.info->sections) {
    if (s.name != ".dlready_torch" || s.size == 0 || s.size > 4096) continue;
    auto bytes = fs.read_at(module_path, s.offset, s.size);
    if (!bytes) return std::nullopt;
    std::string text = printable(bytes->substr(0, bytes->find('\0')), 512);
    return trim(text).empty() ? std::nullopt : std::optional<std::string>(trim(text));
  }
  return std::nullopt;
}

namespace {

std::string version_of(const std::string& built_for) { return built_for.substr(0, built_for.find(' ')); }

// The module's DT_NEEDED libraries that `torch_lib` holds, by absolute path.
std::vector<std::string> torch_libraries_needed(const RootFs& fs, const std::vector<std::string>& needed,
                                                const std::string& torch_lib) {
  std::vector<std::string> out;
  for (const auto& name : needed)
    if (fs.exists(path_join(torch_lib, name))) out.push_back(path_join(torch_lib, name));
  return out;
}

}  // namespace

Status locate_module_torch(const std::string& module_path, ModuleTorch& out) {
  RootFs fs("/");
  auto elf = read_elf(fs, module_path);
  out = ModuleTorch{};
  if (!elf.info) return {};  // not an ELF: dlopen says so
  for (auto dir : expand_search_path(elf.info->runpath ? elf.info->runpath : elf.info->rpath, path_dirname(module_path)))
    out.run_path.push_back(path_normalize(dir));
  std::optional<std::string> built_lib;
  for (const auto& dir : out.run_path)
    if (ends_with(dir, "/torch/lib")) built_lib = dir;
  if (!built_lib || fs.exists(path_join(*built_lib, "libtorch.so"))) return {};  // its own torch is there
  const std::string built_site = built_lib->substr(0, built_lib->size() - std::string("/torch/lib").size());
  auto built_for = module_built_for_torch(module_path);
  const std::string needs = built_for ? "torch " + version_of(*built_for) : "the torch it was built against";
  const std::string gone = "the module needs " + needs + ", built against " + *built_lib + ", which is gone";
  auto user = find_user_torch(process_environment(), own_environment());
  if (!user.torch)
    return Status::failure(gone + "; no other torch was found (" + user.why + ")");
  const std::string found = "your environment's torch is " + user.torch->version + " (" + user.torch->torch_dir + ")";
  if (!built_for || version_of(*built_for) != user.torch->version ||
      (built_for->find(' ') != std::string::npos && built_for->substr(built_for->find(' ') + 1) != user.torch->git_version))
    return Status::failure(gone + "; " + found + (built_for ? ", another build" : ", and the module does not say which build it needs"));
  const std::string site = path_dirname(user.torch->torch_dir);
  for (auto& dir : out.run_path)
    if (starts_with(dir, built_site + "/")) dir = site + dir.substr(built_site.size());
  out.torch_libraries = torch_libraries_needed(fs, elf.info->needed, path_join(site, "torch/lib"));
  out.moved_from = built_site;
  out.moved_to = path_join(site, "torch/lib");
  return {};
}

}  // namespace dlready
