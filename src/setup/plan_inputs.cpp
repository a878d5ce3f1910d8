#include "setup/plan_inputs.hpp"

#include <set>

#include "compat/compat.hpp"
#include "core/text.hpp"
#include "diagnose/rules.hpp"

namespace dlready {

Status check_macos_version(const std::string& macos) {
  std::string bad = "--macos " + printable(macos, 40) + " is not a macOS version (14.5)";
  auto parts = split(macos, '.');
  for (const auto& p : parts)
    if (!parse_int(p) || p.size() > 3) return Status::failure(bad);
  if (parts.empty() || parts.size() > 3 || *parse_int(parts[0]) < 10 || *parse_int(parts[0]) > 99) return Status::failure(bad);
  return {};
}

Status check_flag_value(const std::string& flag, const std::string& value) {
  for (unsigned char c : value)
    if (c <= ' ' || c == '"' || c == '\'' || c == '`' || c == '\\' || c == 0x7f)
      return Status::failure(flag + " '" + printable(value, 80) + "' has a space, a quote or a control character");
  return {};
}

Status check_plan_flags(const std::string& python, const std::vector<std::string>& with, const std::string& where_found,
                             const std::string& index_url) {
  if (python.empty()) return Status::failure("no Python found (" + where_found + "): give its version with --python X.Y");
  auto parts = split(python, '.');
  if (parts.size() != 2 || !parse_int(parts[0]) || !parse_int(parts[1])) return Status::failure("--python " + printable(python, 40) + " is not X.Y (3.12)");
  for (const auto& w : with) {
    if (w.empty()) return Status::failure("--with '' is not a package name");
    if (Status s = check_flag_value("--with", w); !s.ok()) return s;
  }
  return check_flag_value("--index-url", index_url);
}

Status machine_from_flags(bool no_gpu, const std::vector<std::string>& gpus, const std::string& driver,
                               PlanMachine& m, std::vector<std::string>& seen) {
  if (no_gpu && (!gpus.empty() || !driver.empty())) return Status::failure("--no-gpu goes with neither --gpu nor --driver");
  if (!no_gpu && gpus.empty()) return Status::failure("--driver needs --gpu sm_XY[,sm_XY] (or --no-gpu for a CPU-only machine)");
  std::vector<std::string> named;
  for (const auto& g : gpus) {
    for (const auto& one : split(g, ',')) {
      auto cc = parse_compute_capability(one);
      if (!cc) {
        // A name from the doctor's GPU table (data/gpus.tsv): H100, "RTX 4090", GH200.
        auto known = gpus_by_name(one);
        std::set<std::pair<int, int>> ccs;
        for (const auto& k : known) ccs.insert({k.cc_major, k.cc_minor});
        if (known.empty())
          return Status::failure("--gpu '" + printable(one, 80) + "' is neither a compute capability (sm_61, 8.6 or 90) nor a GPU in dlready's table "
                 "(H100, \"RTX 4090\", GH200, A100, ...)");
        if (ccs.size() > 1) return Status::failure("--gpu " + printable(one, 80) + " names GPUs of different compute capabilities: give sm_XY");
        cc = *ccs.begin();
        named.push_back(one + " = " + known.front().name + ", sm_" + std::to_string(cc->first) + std::to_string(cc->second) +
                        " (data/gpus.tsv)");
      }
      m.gpus.push_back(*cc);
    }
  }
  for (const auto& n : named) seen.push_back(n);
  if (!driver.empty()) {
    if (!parse_int(split(driver, '.').front())) return Status::failure("--driver '" + printable(driver, 80) + "' is not a driver version (550.54.15)");
    m.driver = driver;
  }
  seen.push_back("the machine given: " + (no_gpu ? std::string("no GPU") : "GPUs " + join(gpus, ",")) +
                 (driver.empty() ? "" : ", driver " + driver));
  return {};
}

Status machine_from_facts(const Facts& f, PlanMachine& m, std::vector<std::string>& seen) {
  Derived d = derive(f);
  if (f.arm && f.arm->tegra && f.arm->jetpack) {
    m.jetpack = *f.arm->jetpack;
    seen.push_back("this machine: a Jetson, L4T " + f.arm->l4t_release.value_or("?") + " = JetPack " + m.jetpack);
  }
  m.driver = d.driver_version;
  for (const auto& g : d.gpu_archs) {
    m.gpus.push_back({g.major, g.minor});
    seen.push_back(g.label + ": compute capability " + std::to_string(g.major) + "." + std::to_string(g.minor) +
                   " (" + g.source + ")");
  }
  if (d.gpu_evidence && d.gpu_archs.empty())
    return Status::failure("an NVIDIA GPU is here but its compute capability is unknown (see dlready doctor); plan with --gpu sm_XY");
  seen.push_back(m.gpus.empty() ? "this machine: no NVIDIA GPU (dlready doctor)"
                                : "this machine: driver " + d.driver_version.value_or("unknown"));
  return {};
}

}  // namespace dlready
