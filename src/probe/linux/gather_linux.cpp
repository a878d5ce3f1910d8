// gather_facts on Linux: every file through RootFs (the live machine, a fixture root or a capture
// replayed with its recorded answers), the drivers in forked children (probe/gather.hpp's one verb;
// the Windows source is probe/windows/gather_windows.cpp).
#include "probe/gather.hpp"

#include <algorithm>
#include <unistd.h>

#include "os/posix_fs.hpp"
#include "os/root_fs.hpp"
#include "core/text.hpp"
#include "probe/linux/driver_api.hpp"
#include "binfmt/elf_reader.hpp"
#include "binfmt/fatbin_reader.hpp"
#include "probe/index_pages.hpp"
#include "probe/linux/ld_resolver.hpp"
#include "probe/linux/library_locator.hpp"
#include "probe/linux/probes.hpp"
#include "probe/linux/scan_cache.hpp"
#include "platform/platform_record.hpp"

namespace dlready {


namespace {

constexpr const char* kRootDriversNotLoaded =
    "not loaded: under --root the driver is another machine's code; a capture replays its answers "
    "(dlready capture), a fixture root the test suite built is loaded with --load-root-drivers";

// <site-packages>/torch/lib/<library> -> the version in <site-packages>/torch/version.py.
std::optional<std::string> torch_version_beside(const RootFs& fs, const std::string& lib) {
  std::string dir = path_dirname(lib);
  if (path_basename(dir) != "lib" || path_basename(path_dirname(dir)) != "torch") return std::nullopt;
  auto text = fs.read(path_dirname(dir) + "/version.py", 64 * 1024);
  return text ? find_assignment(*text, "__version__") : std::nullopt;
}

// What a closure depended on: the binary, each library found, each directory searched (a file
// that appears there changes the answer), ld.so.cache.
std::vector<std::string> closure_inputs(const RootFs& fs, const std::string& binary, const Resolution& r) {
  std::vector<std::string> in = {fs.host(binary), fs.host("/etc/ld.so.cache")};
  for (const auto& l : r.libraries) {
    if (l.path) in.push_back(fs.host(*l.path));
    for (const auto& s : l.searched) in.push_back(fs.host(s.substr(0, s.find(" ("))));
  }
  return in;
}

// What the user running the doctor is, on this machine or in the capture being replayed.
UserIdentity replayed_user(const std::optional<CaptureManifest>& replay) {
  if (!replay) return current_user();
  UserIdentity u;
  u.name = replay->user_name;
  u.uid = replay->uid;
  u.gids = replay->gids;
  return u;
}

// The libtorch_cuda.so beside the libtorch_cpu.so a program links, when the program does not link
// it (the linker dropped it: CUDA is never initialised).
std::optional<std::string> unlinked_torch_cuda(const RootFs& fs, const std::string& binary, const Resolution& res) {
  bool has_cuda = false;
  std::optional<std::string> cpu;
  for (const auto& l : res.libraries) {
    has_cuda |= l.name == "libtorch_cuda.so";
    if (l.name == "libtorch_cpu.so" && l.path) cpu = l.path;
  }
  // libtorch_cuda.so itself links libtorch_cpu.so and not itself: it lost nothing.
  bool is_torch_cuda = path_basename(binary) == "libtorch_cuda.so";
  if (cpu && !has_cuda && !is_torch_cuda && fs.exists(path_dirname(*cpu) + "/libtorch_cuda.so"))
    return path_dirname(*cpu) + "/libtorch_cuda.so";
  return std::nullopt;
}

// A capture replays the machine it was made on: its environment, its module, and (in the probes)
// its driver answers; nothing is recorded from a replay.
GatherOptions replayed_options(const GatherOptions& options, const std::optional<CaptureManifest>& replay) {
  GatherOptions opt = options;
  if (replay) {
    opt.env = replay->environment;
    if (replay->own_module && !replay->own_module->empty()) opt.own_module = replay->own_module;  // "": none recorded
    opt.record = nullptr;
  }
  return opt;
}

// Whose access to the device nodes is checked: --user's (from the root's /etc/passwd), else the
// caller's, or the captured one's. nullopt with `error` when --user names nobody there.
std::optional<UserIdentity> gathering_user(const RootFs& fs, const std::optional<std::string>& name,
                                           const std::optional<CaptureManifest>& replay, std::string& error) {
  if (!name) return replayed_user(replay);
  if (auto u = lookup_user(fs, *name)) return u;
  auto st = fs.stat("/etc/passwd");
  constexpr uint64_t kMaxPasswd = 4 << 20;  // what lookup_user reads
  error = st && st->size > kMaxPasswd
              ? fs.host("/etc/passwd") + " is " + std::to_string(st->size) + " bytes, more than the " +
                    std::to_string(kMaxPasswd) + " read to look up '" + *name + "'"
              : "user '" + *name + "' is not in " + fs.host("/etc/passwd");
  return std::nullopt;
}

}  // namespace

std::optional<std::string> own_environment() {
  std::string exe = own_executable();
  std::string bin = path_dirname(exe);
  if (exe.empty() || path_basename(bin) != "bin") return std::nullopt;
  return path_dirname(bin);
}

namespace {

// Blackwell and Thor GPUs (compute capability 10 and up) need a ptxas from CUDA 12.8 or later: only
// then is Triton's (tens of megabytes) read.
bool needs_blackwell_ptxas(const Facts& f) {
  for (const auto& d : f.driver.devices)
    if (d.cc_major.value_or(0) >= 10) return true;
  for (const auto& c : f.arm->compatible)
    if (c == "nvidia,tegra264") return true;
  return false;
}

// The machine's fact groups, each from its own source; a capture's recorded driver answers instead
// of loading its drivers.
void probe_machine(const RootFs& fs, const LibraryLocator& loc, const GatherOptions& opt, const UserIdentity& user,
                   const std::optional<CaptureManifest>& replay, ScanCache& cache, Facts& f) {
  const CaptureManifest* answers = replay ? &*replay : nullptr;
  f.os = probe_os(fs, loc, opt.record ? nullptr : &cache);  // a capture reads what it records
  if (replay) f.os.arch = replay->arch;
  f.arm = probe_arm(fs, f.os.arch);
  f.pci = probe_pci(fs);
  f.kernel = probe_kernel_driver(fs, f.os.kernel);
  f.nodes = probe_device_nodes(fs, user);
  f.cdi_specs = probe_cdi_specs(fs);
  f.libcuda = loc.locate("libcuda.so.1");
  f.libnvml = loc.locate("libnvidia-ml.so.1");
  if (opt.driver_probe && (replay || fs.is_host_root() || opt.load_root_drivers)) {
    f.nvml = probe_nvml(fs, f.libnvml, opt.probe_timeout_ms, answers);
    f.driver = probe_driver_api(fs, f.libcuda, f.env, opt.probe_timeout_ms, answers);
  } else if (opt.driver_probe) {
    f.driver.library = f.libcuda.path;
    f.nvml.library = f.libnvml.path;
    if (f.libcuda.path) f.driver.detail = kRootDriversNotLoaded;
  }
  f.cuda_libs = probe_cuda_libs(fs, loc, f.env);
  f.python = probe_python(fs, f.env, fs.is_host_root() ? own_environment() : std::nullopt,
                          {std::string(platform_record(Platform::linux).sys_platform),
                           std::string(platform_record(Platform::linux).platform_system), f.os.arch.value_or(""), ""});
  if (f.arm) probe_page_alignment(fs, f.python, *f.arm);
  if (f.arm && needs_blackwell_ptxas(f)) {
    std::optional<RootFs> unrecorded;
    if (opt.record) unrecorded.emplace(opt.root);
    probe_triton_ptxas(fs, unrecorded ? *unrecorded : fs, f.python, f.env, *f.arm);
  }
  f.libtorch = probe_libtorch(fs, f.env, f.python);
  f.blas = probe_blas(fs, loc, f.python, f.libtorch);
  f.torch_index = probe_index_cache(fs, f.env, f.os.arch.value_or("x86_64") == "aarch64" ? "linux-aarch64" : "linux-x86_64");
  if (opt.own_module)
    f.own_module = probe_own_module(fs, *opt.own_module, f.env, opt.own_module_torch_lib, opt.own_module_problem);
  if (opt.own_module) f.own_module.built_by = opt.own_module_built_by;
}

// The programs' and libraries' closures (ld.so's search) and the GPU code they carry, through the
// scan cache; a capture's recorded GPU code instead of the fat binaries it does not hold.
class BinaryScan {
 public:
  BinaryScan(const RootFs& fs, const LibraryLocator& loc, const GatherOptions& opt,
             const std::optional<CaptureManifest>& replay, ScanCache& cache, Facts& f)
      : fs_(fs), opt_(opt), replay_(replay), f_(f), resolver_(fs, loc), cache_(cache) {
    // A capture keeps the answer, not the fat binary (libtorch_cuda.so's headers alone are megabytes):
    // the scan reads through a RootFs that records nothing.
    if (opt.record) unrecorded_.emplace(opt.root);
  }

  void run() {
    // Scanning a 1 GB libtorch_cuda.so costs a few hundred ms: only when there is a GPU to compare.
    bool know_gpu_arch = false;
    for (const auto& d : f_.driver.devices) know_gpu_arch |= d.cc_major.has_value();
    // PyTorch's CUDA library and what cuDNN will dlopen from it: the import-time failures.
    std::vector<std::string> torch_libs;
    for (const auto& e : f_.python.envs)
      for (const auto& t : e.torch) {
        std::string lib = t.site_packages + "/torch/lib/libtorch_cuda.so";
        if (t.has_libtorch_cuda && elf_machine(fs_, lib)) torch_libs.push_back(lib);  // placeholder files are not ELF
      }
    auto is_torch_lib = [&](const std::string& b) {
      return std::find(torch_libs.begin(), torch_libs.end(), b) != torch_libs.end();
    };
    for (const auto& b : opt_.binaries) {
      // --binary naming a torch's libtorch_cuda.so is that library, resolved once, as the torch one
      // is (with what it opens by name): one file, one closure in the report.
      auto res = resolve(b, is_torch_lib(b));
      res.requested = true;
      res.unlinked_torch_cuda = unlinked_torch_cuda(fs_, b, res);
      f_.binaries.push_back(res);
      scan_gpu_code(b);
    }
    for (const auto& lib : torch_libs) {
      if (std::find(opt_.binaries.begin(), opt_.binaries.end(), lib) != opt_.binaries.end()) continue;
      f_.binaries.push_back(resolve(lib, true));
      if (know_gpu_arch) scan_gpu_code(lib);
    }
    // A cache that cannot be written only makes the next run slower; the report is complete without it.
    static_cast<void>(cache_.save());
  }

 private:
  void scan_gpu_code(const std::string& lib) {
    std::optional<GpuCode> code;
    if (replay_) {
      auto it = replay_->gpu_code.find(lib);
      if (it == replay_->gpu_code.end()) return;
      code = it->second;
    } else {
      code = cache_.gpu_code(fs_.host(lib));
    }
    if (!code) {
      auto archs = read_fatbin_archs(unrecorded_ ? *unrecorded_ : fs_, lib);
      if (!archs) return;  // not an ELF file, or no fat binary (not cached: the check is cheap)
      code = GpuCode{lib, std::vector<int>(archs->sass.begin(), archs->sass.end()),
                     std::vector<int>(archs->ptx.begin(), archs->ptx.end()), archs->lz4 || archs->zstd, archs->error};
      cache_.put_gpu_code(fs_.host(lib), *code);
    }
    if (opt_.record) opt_.record->gpu_code[lib] = *code;
    code->library = lib;
    code->torch_version = torch_version_beside(fs_, lib);
    f_.gpu_code.push_back(*code);
  }

  Resolution resolve(const std::string& binary, bool library) {
    std::string key = std::string(library ? "library" : "binary") + "|" + fs_.root() + "|" +
                      f_.env.get("LD_LIBRARY_PATH").value_or("") + "|" + binary;
    if (auto hit = cache_.closure(key)) return *hit;
    auto r = library ? resolver_.resolve_library(binary) : resolver_.resolve(binary);
    if (r.error.empty()) cache_.put_closure(key, r, closure_inputs(fs_, binary, r));
    return r;
  }

  const RootFs& fs_;
  const GatherOptions& opt_;
  const std::optional<CaptureManifest>& replay_;
  Facts& f_;
  LdResolver resolver_;
  ScanCache& cache_;
  std::optional<RootFs> unrecorded_;
};

GatherResult gather_linux_machine(const GatherOptions& options) {
  GatherResult r;
  RootFs fs(options.root);
  fs.remember_listings();
  auto replay = readable_capture(fs, r.error);
  if (!r.error.empty()) return r;
  GatherOptions opt = replayed_options(options, replay);
  fs.record_into(opt.record);
  r.replayed = replay.has_value();
  r.env = opt.env;
  auto user = gathering_user(fs, opt.user, replay, r.error);
  if (!user) return r;
  r.user = *user;
  Facts& f = r.facts;
  f.root = fs.root();
  f.env = probe_env(opt.env);
  // The examined machine's processor picks the loader's folders (an aarch64 root's libraries are in
  // aarch64-linux-gnu whatever this build is).
  LibraryLocator loc(fs, f.env.get("LD_LIBRARY_PATH"), replay && replay->arch ? replay->arch : machine_of_root(fs));
  ScanCache cache(opt.cache_file);
  probe_machine(fs, loc, opt, *user, replay, cache, f);
  BinaryScan(fs, loc, opt, replay, cache, f).run();
  if (options.redaction_inputs) r.redaction = probe_redaction_inputs(fs, r.env);
  return r;
}

}  // namespace

FactSource linux_fact_source() { return {Platform::linux, gather_linux_machine, root_platform}; }

}  // namespace dlready
