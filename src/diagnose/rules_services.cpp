// Rules about what sits around the driver: firmware (Secure Boot), container specifications (CDI)
// and the network variables collectives read (NCCL, Gloo).
#include "core/text.hpp"
#include "diagnose/catalogue.hpp"
#include "diagnose/rules.hpp"

namespace dlready {
namespace {

void secure_boot_rule(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  if (d.pci_gpus == 0 || f.kernel.nvidia_loaded || f.kernel.secure_boot != true) return;
  auto x = make_finding("secure-boot-blocks-driver");
  x.evidence = {"the SecureBoot EFI variable is 1 (/sys/firmware/efi/efivars/SecureBoot-8be4df61-...)",
                "an NVIDIA GPU is on the PCI bus and the nvidia module is not loaded"};
  if (f.kernel.module_file) x.evidence.push_back("a module is installed: " + *f.kernel.module_file);
  x.fix = {"check: mokutil --sb-state; sudo modprobe nvidia (\"Key was rejected by service\" confirms it)",
           "enroll the key DKMS signs with: sudo mokutil --import /var/lib/dkms/mok.pub, reboot, confirm in the "
           "blue MOK manager, then sudo modprobe nvidia",
           "or install the distribution's signed driver modules (Ubuntu: sudo ubuntu-drivers install), or turn "
           "Secure Boot off in the firmware settings"};
  out.push_back(x);
}

void cdi_rule(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  if (!d.driver_version) return;
  for (const auto& spec : f.cdi_specs) {
    if (spec.driver_versions.empty()) continue;
    bool current = false;
    for (const auto& v : spec.driver_versions) current |= v == *d.driver_version;
    if (current) continue;
    auto x = make_finding("cdi-spec-driver-mismatch");
    x.evidence = {spec.path + " mounts files of driver " + join(spec.driver_versions, ", "),
                  "the driver here is " + *d.driver_version};
    x.fix = {"sudo nvidia-ctk cdi generate --output=" + spec.path, "then restart the containers that use the GPU",
             "NVIDIA Container Toolkit 1.18+ regenerates it at boot and on driver changes: sudo systemctl enable "
             "--now nvidia-cdi-refresh.path"};
    out.push_back(x);
  }
}

// NCCL: comma-separated prefixes, "=" for an exact name, a leading "^" excludes instead (not
// checked: excluding every interface is rare). Gloo: interface names, comma-separated.
bool selects_an_interface(const std::string& value, bool prefixes, const std::vector<std::string>& interfaces) {
  if (starts_with(value, "^")) return true;
  for (auto entry : split(value, ',')) {
    entry = trim(entry);
    bool exact = !prefixes || starts_with(entry, "=");
    if (starts_with(entry, "=")) entry = entry.substr(1);
    for (const auto& i : interfaces)
      if (exact ? i == entry : starts_with(i, entry)) return true;
  }
  return false;
}

void socket_ifname_rules(const Facts& f, std::vector<Finding>& out) {
  if (!f.os.net_interfaces) return;
  for (auto [var, prefixes] : {std::pair{"NCCL_SOCKET_IFNAME", true}, std::pair{"GLOO_SOCKET_IFNAME", false}}) {
    auto value = f.env.get(var);
    if (!value || value->empty() || selects_an_interface(*value, prefixes, *f.os.net_interfaces)) continue;
    auto x = make_finding("socket-ifname-missing");
    x.evidence = {std::string(var) + "=" + *value, "interfaces here (/sys/class/net): " + join(*f.os.net_interfaces, ", ")};
    x.fix = {std::string("name an interface this machine has: export ") + var + "=<one of the above>",
             std::string("or unset ") + var + " and let the library choose (multi-node: the interface on the "
             "network the nodes share; check with ip -br addr)"};
    out.push_back(x);
  }
}

void nccl_variable_rule(const Facts& f, std::vector<Finding>& out) {
  static const std::pair<const char*, const char*> kVariables[] = {
      {"NCCL_P2P_DISABLE", "GPU-to-GPU traffic goes through host memory instead of NVLink/PCIe peer access"},
      {"NCCL_IB_DISABLE", "InfiniBand/RoCE is not used; inter-node traffic falls back to TCP sockets"},
      {"NCCL_SHM_DISABLE", "intra-node traffic does not use shared memory"},
      {"NCCL_DEBUG", "NCCL prints diagnostics (INFO/TRACE slow every collective down)"},
  };
  auto x = make_finding("nccl-variables-set");
  for (const auto& [var, effect] : kVariables) {
    auto v = f.env.get(var);
    if (!v || (std::string(var) == "NCCL_DEBUG" && to_lower(*v) != "info" && to_lower(*v) != "trace")) continue;
    x.evidence.push_back(std::string(var) + "=" + *v + ": " + effect);
  }
  if (x.evidence.empty()) return;
  x.fix = {"unset the ones left from debugging (unset NCCL_P2P_DISABLE NCCL_IB_DISABLE NCCL_SHM_DISABLE NCCL_DEBUG)",
           "keep one only where a topology needs it (a known-broken P2P path), and measure: dlready bench"};
  out.push_back(x);
}

}  // namespace

void rules_services(const Facts& f, const Derived& d, std::vector<Finding>& out) {
  secure_boot_rule(f, d, out);
  cdi_rule(f, d, out);
  socket_ifname_rules(f, out);
  nccl_variable_rule(f, out);
}

}  // namespace dlready
