#include <nlohmann/json.hpp>

#include "core/device_fields.hpp"
#include "core/json_text.hpp"
#include "core/fact_fields.hpp"
#include "diagnose/compat.hpp"
#include "diagnose/gpu_code.hpp"
#include "report/render.hpp"

namespace dlready {
namespace {

using nlohmann::json;

std::vector<std::string> arch_names(const std::vector<int>& archs, const char* prefix) {
  std::vector<std::string> out;
  for (int a : archs) out.push_back(prefix + std::to_string(a));
  return out;
}

template <typename T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

// A probed device: its index and every field of its table, null where unknown.
template <class Device>
json device_json(const Device& d, const std::vector<DeviceField<Device>>& fields) {
  json j = {{"index", d.index}};
  for (const auto& f : fields)
    std::visit([&](auto member) { j[f.key] = opt(d.*member); }, f.member);
  return j;
}

json lib(const LibraryLocation& l) {
  return {{"soname", l.soname},       {"path", opt(l.path)}, {"real_path", opt(l.real_path)},
          {"version", opt(l.version)}, {"found_via", l.found() ? json(l.found_via) : json(nullptr)},
          {"searched", l.searched},   {"stub", l.stub},      {"compat", l.compat}, {"wsl", l.wsl}};
}

// Each --binary's (and PyTorch's libtorch_cuda.so's) closure as ld.so would load it.
json binaries_json(const Facts& f) {
  json binaries = json::array();
  for (const auto& b : f.binaries) {
    json libs_of = json::array();
    for (const auto& l : b.libraries)
      libs_of.push_back({{"name", l.name}, {"needed_by", l.needed_by}, {"path", opt(l.path)},
                         {"via", l.path ? json(l.via) : json(nullptr)}, {"version", opt(l.version)},
                         {"searched", l.searched},
                         {"later_copies", l.later_copies}});
    binaries.push_back({{"binary", b.binary}, {"libraries", libs_of}});
  }
  return binaries;
}

// The GPU code of each scanned library, and per GPU whether it runs it.
json gpu_code_json(const Facts& f) {
  json gpu_code = json::array();
  auto views = gpu_code_views(f);  // one per f.gpu_code entry, in its order
  for (size_t i = 0; i < views.size(); ++i) {
    const auto& v = views[i];
    const auto& c = f.gpu_code[i];
    json gpus = json::array();
    for (const auto& g : v.gpus) gpus.push_back({{"gpu", g.gpu}, {"arch", g.arch}, {"runs", g.runs}, {"how", g.how}});
    gpu_code.push_back({{"library", c.library}, {"owner", v.owner}, {"sass", arch_names(c.sass, "sm_")},
                        {"ptx", arch_names(c.ptx, "compute_")}, {"compressed", c.compressed}, {"error", c.error},
                        {"summary", v.summary}, {"gpus", gpus}});
  }
  return gpu_code;
}

// What dlready setup last read of the indexes: the pages, and each release's variants with their Pythons.
json torch_index_json(const Facts& f) {
  if (!f.torch_index) return nullptr;
  json releases = json::array();
  for (const auto& r : f.torch_index->releases) releases.push_back({{"version", r.version}, {"variants", r.pythons}});
  return {{"sources", f.torch_index->sources}, {"releases", releases}, {"variant_index", f.torch_index->variant_index}};
}

json facts_json(const Facts& f) {
  json os = fact_group_json(f.os, os_fields());
  os["load"] = {{"load_1min", opt(f.os.load.load_1min)}, {"runnable", opt(f.os.load.runnable)},
                {"running_commands", f.os.load.running_commands}};
  json pci = json::array();
  for (const auto* list : {&f.pci.nvidia, &f.pci.other_gpus})
    for (const auto& g : *list) {
      json one = fact_group_json(g, pci_function_fields());
      one["nvidia"] = list == &f.pci.nvidia;
      pci.push_back(one);
    }
  json kernel = fact_group_json(f.kernel, kernel_driver_fields());
  json nodes = json::array();
  for (const auto& n : f.nodes.nodes)
    nodes.push_back({{"path", n.path}, {"exists", n.exists}, {"accessible", n.accessible}, {"mode", opt(n.mode)}});
  json devices = json::array();
  for (const auto& d : f.driver.devices) devices.push_back(device_json(d, cuda_device_fields()));
  json driver = {{"status", to_string(f.driver.status)}, {"library", opt(f.driver.library)},
                 {"detail", f.driver.detail}, {"init_result", opt(f.driver.init_result)},
                 {"init_error_name", opt(f.driver.init_error_name)}, {"driver_version", opt(f.driver.driver_version)},
                 {"device_count", opt(f.driver.device_count)}, {"devices", devices},
                 {"elapsed_ms", f.driver.elapsed_ms}};
  json ndev = json::array();
  for (const auto& d : f.nvml.devices) ndev.push_back(device_json(d, nvml_device_fields()));
  json nvml = {{"status", to_string(f.nvml.status)}, {"library", opt(f.nvml.library)}, {"detail", f.nvml.detail},
               {"init_result", opt(f.nvml.init_result)}, {"driver_version", opt(f.nvml.driver_version)},
               {"cuda_driver_version", opt(f.nvml.cuda_driver_version)}, {"device_count", opt(f.nvml.device_count)},
               {"devices", ndev}};
  json toolkits = json::array();
  for (const auto& t : f.cuda_libs.toolkits)
    toolkits.push_back({{"path", t.path}, {"version", opt(t.version)}, {"nvcc", t.has_nvcc}});
  json libs = json::array();
  for (const auto& l : f.cuda_libs.libraries) libs.push_back(lib(l));
  json blas_users = json::array();
  for (const auto& c : f.blas.consumers)
    blas_users.push_back({{"name", c.name}, {"where", c.where}, {"library", c.library}, {"blas", c.blas},
                          {"system_blas", c.system_blas}});
  json envs = json::array();
  for (const auto& e : f.python.envs) {
    json torch = json::array();
    for (const auto& t : e.torch)
      torch.push_back({{"site_packages", t.site_packages}, {"version", opt(t.version)}, {"cuda", opt(t.cuda)},
                       {"dist_version", opt(t.dist_version)}, {"has_libtorch_cuda", t.has_libtorch_cuda},
                       {"xnnpack", t.xnnpack ? json(*t.xnnpack) : json()},
                       {"nvidia_pins", t.nvidia_pins}, {"nvidia_installed", t.nvidia_installed}});
    envs.push_back({{"prefix", e.prefix}, {"kind", e.kind}, {"active", e.active},
                    {"python_version", opt(e.python_version)}, {"python_full_version", opt(e.python_full_version)},
                    {"site_packages", e.site_packages}, {"torch", torch}, {"distributions", e.distributions}});
  }
  json libtorch = json::array();
  for (const auto& l : f.libtorch.installs)
    libtorch.push_back({{"path", l.path}, {"build_version", opt(l.build_version)}, {"cxx11_abi", opt(l.cxx11_abi)}});
  return {{"root", f.root},
          {"os", os},
          {"pci", pci},
          {"torch_index", torch_index_json(f)},
          {"kernel_driver", kernel},
          {"device_nodes", {{"user", f.nodes.checked_user}, {"nodes", nodes}}},
          {"libcuda", lib(f.libcuda)},
          {"libnvidia_ml", lib(f.libnvml)},
          {"driver_api", driver},
          {"nvml", nvml},
          {"environment", f.env.vars},
          {"cuda_toolkits", toolkits},
          {"cuda_libraries", libs},
          {"python_envs", envs},
          {"libtorch", libtorch},
          {"own_module", {{"path", opt(f.own_module.path)}, {"libtorch_dir", opt(f.own_module.libtorch_dir)},
                          {"torch_version", opt(f.own_module.torch_version)},
                          {"nccl_version", opt(f.own_module.nccl_version)}, {"error", f.own_module.error}}},
          {"blas", {{"library", lib(f.blas.library)}, {"implementation", opt(f.blas.implementation)},
                    {"consumers", blas_users}}},
          {"binaries", binaries_json(f)},
          {"gpu_code", gpu_code_json(f)}};
}

}  // namespace

std::string render_json(const Facts& f, const Report& r) { return json_text(report_json(f, r), 2) + "\n"; }

json report_json(const Facts& f, const Report& r) {
  json findings = json::array();
  for (const auto& x : r.findings)
    findings.push_back({{"id", x.id}, {"severity", to_string(x.severity)}, {"check", x.check}, {"title", x.title},
                        {"evidence", x.evidence}, {"fix", x.fix}});
  json torch = json::array();
  for (const auto& t : r.verdict.torch)
    torch.push_back({{"location", t.location}, {"version", t.version}, {"cuda", opt(t.cuda)},
                     {"cuda_available", t.cuda_available}, {"reason", t.reason}});
  json recs = json::array();
  for (const auto& rec : r.recommendations) recs.push_back({{"title", rec.title}, {"commands", rec.commands}});
  json j = {{"schema", "dlready.doctor/1"},
            {"dlready_version", DLREADY_VERSION},
            {"compat_table_date", kCompatTableDate},
            {"facts", facts_json(f)},
            {"findings", findings},
            {"verdict",
             {{"cuda_usable", opt(r.verdict.cuda_usable)}, {"cpu_training_ok", r.verdict.cpu_training_ok},
              {"summary", r.verdict.summary}, {"torch", torch}}},
            {"recommendations", recs}};
  json collect_env = json::object();
  for (const auto& [label, value] : collect_env_fields(f, r)) collect_env[label] = value;
  j["collect_env"] = collect_env;
  return j;
}

}  // namespace dlready
