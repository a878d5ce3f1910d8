#include "diagnose/install_plan.hpp"

#include <algorithm>

#include "core/text.hpp"
#include "diagnose/compat.hpp"

namespace dlready {
namespace {

std::string sm(std::pair<int, int> cc) { return "sm_" + std::to_string(cc.first) + std::to_string(cc.second); }

std::string release_line(const std::string& version) {
  auto parts = split(version.substr(0, version.find('+')), '.');
  return parts.size() >= 2 ? parts[0] + "." + parts[1] : version;
}

bool python_fits(const std::string& release, const std::string& python) {
  auto r = python_range(release);
  return !r || (compare_versions(python, r->min) >= 0 && compare_versions(python, r->max) <= 0);
}

// The release lines of the table, the newest first.
std::vector<std::string> releases_newest_first() {
  std::vector<std::string> out;
  for (const auto& v : torch_variants_newest_first())
    if (out.empty() || out.back() != v.torch) out.push_back(v.torch);
  return out;
}

// Why a variant cannot serve this machine ("" when it can).
std::string variant_misfit(const TorchVariant& v, const PlanMachine& m) {
  if (m.driver)
    if (auto need = min_driver_for_cuda(v.cuda); need && compare_versions(*m.driver, *need) < 0)
      return v.variant + " needs driver >= " + *need;
  std::vector<std::string> missing;
  for (const auto& g : m.gpus)
    if (!arch_list_covers(v.arch_list, g.first, g.second)) missing.push_back(sm(g));
  if (!missing.empty()) return v.variant + " has no kernels for " + join(missing, ", ") + " (" + v.arch_list + ")";
  return "";
}

// The one line the plan gives for a machine no single build fits: what each GPU alone would take.
std::string no_fit_error(const PlanMachine& m, const std::vector<std::string>& misfits) {
  std::string e = "no PyTorch build in dlready's tables (" + std::string(kCompatTableDate) + ") fits";
  if (m.driver) e += " driver " + *m.driver;
  std::vector<std::string> alone;
  for (const auto& g : m.gpus) {
    PlanMachine one = m;
    one.gpus = {g};
    one.index_url.clear();
    auto p = plan_install(one);
    alone.push_back(sm(g) + (p.ok ? " alone: " + p.release + " " + p.variant : " alone: none"));
  }
  e += " and " + std::string(m.gpus.size() > 1 ? "every GPU here (" : "the GPU (") + join(alone, "; ") + ")";
  if (m.gpus.size() > 1) e += ": no single build fits them all; run one job per GPU kind (CUDA_VISIBLE_DEVICES)";
  if (!misfits.empty()) e += "; the newest release: " + join(misfits, "; ");
  return e;
}

void choose_index(const PlanMachine& m, InstallPlan& p) {
  std::string base = m.torch_index;
  if (!base.empty() && base.back() != '/') base += '/';
  p.index_url = base + p.variant;
  if (!m.extra_index_url.empty())
    p.warnings.push_back("pip also looks in " + m.extra_index_url + " (PIP_EXTRA_INDEX_URL) and takes the highest "
                         "version from any index: a torch there may replace the planned " + p.variant +
                         " build; unset it for this install");
  if (m.index_url.empty()) return;
  std::string wanted = m.index_url;
  while (!wanted.empty() && wanted.back() == '/') wanted.pop_back();
  if (wanted.find("download.pytorch.org") != std::string::npos || starts_with(wanted, base)) {
    if (wanted != p.index_url)
      p.warnings.push_back("the index you set (" + m.index_url + ") serves another variant than " + p.variant +
                           ": the plan uses " + p.index_url);
    return;
  }
  // A PyPI mirror (the tutorial's TUNA one, a company proxy) serves what PyPI serves: each
  // release's default CUDA variant only.
  std::string dflt;
  for (const auto& v : torch_variants())
    if (v.torch == p.release && v.pypi_default) dflt = v.variant;
  if (!dflt.empty() && dflt == p.variant) {
    p.index_url = m.index_url;
    p.why.push_back("index: " + m.index_url + " (yours; a PyPI mirror serves " + p.release + "'s default variant, " +
                    dflt + ", the one planned)");
    return;
  }
  if (p.variant == "cpu" && !dflt.empty()) {
    // A CPU-only machine behind a PyPI mirror (the tutorial's situation with TUNA): the mirror's
    // build runs on the CPU too; it only brings CUDA libraries this machine will not use.
    for (const auto& v : torch_variants())
      if (v.torch == p.release && v.variant == dflt) p.cuda = v.cuda;
    p.variant = dflt;
    p.index_url = m.index_url;
    for (auto& w : p.why)
      if (starts_with(w, "no NVIDIA GPU")) w = "no NVIDIA GPU: every build runs on the CPU";
    p.why.push_back("index: " + m.index_url + " (yours; a PyPI mirror has only " + p.release + "'s default build, " +
                    dflt + ", which runs on the CPU too; the smaller cpu build is at " + base + "cpu)");
    return;
  }
  p.warnings.push_back("the index you set (" + m.index_url + ") looks like a PyPI mirror: PyPI has only " + p.release +
                       "'s default build" + (dflt.empty() ? "" : " (" + dflt + ")") + ", not " + p.variant +
                       "; the plan installs from " + p.index_url + " (or a mirror of that index)");
}

}  // namespace

std::optional<std::pair<int, int>> parse_compute_capability(const std::string& text) {
  std::string t = to_lower(trim(text));
  if (starts_with(t, "sm_")) t.erase(0, 3);
  else if (starts_with(t, "sm")) t.erase(0, 2);
  auto dot = t.find('.');
  // "8.6", else "86" / "120": the last digit is the minor version.
  if (t.size() < 2 || (dot != std::string::npos && (dot == 0 || dot + 2 != t.size()))) return std::nullopt;
  std::string major = dot == std::string::npos ? t.substr(0, t.size() - 1) : t.substr(0, dot);
  std::string minor = t.substr(t.size() - 1);
  auto a = parse_int(major), b = parse_int(minor);
  if (!a || !b || *a < 1 || *a > 20 || *b < 0 || *b > 9) return std::nullopt;
  return std::pair<int, int>{static_cast<int>(*a), static_cast<int>(*b)};
}

namespace {

// Why the machine cannot be planned for at all ("" when it can).
std::string refuse_machine(const PlanMachine& m) {
  if (m.platform != "linux-x86_64" && m.platform != "linux-aarch64")
    return "unknown platform " + m.platform + " (linux-x86_64 or linux-aarch64)";
  // A driver newer than a GPU's last branch does not drive it: no wheel helps that machine.
  if (m.driver)
    for (const auto& [major, minor] : m.gpus)
      if (auto limit = last_driver_branch(major, minor))
        if (auto branch = parse_int(m.driver->substr(0, m.driver->find('.'))); branch && *branch > limit->last_branch)
          return "driver " + *m.driver + " does not drive " + sm({major, minor}) + " (" + limit->arch + "): R" +
                 std::to_string(limit->last_branch) + " is the last driver branch for it; install a " +
                 std::to_string(limit->last_branch) + ".x driver and plan with --driver " +
                 std::to_string(limit->last_branch) + ".x";
  if (m.platform == "linux-aarch64" && !m.gpus.empty())
    return "dlready's tables hold the CUDA wheels of linux-x86_64 only; for an aarch64 GPU machine see "
           "https://pytorch.org/get-started/locally/ (or plan with --no-gpu for the CPU build)";
  return "";
}

// The newest variant of `release` that serves this machine, into p; each misfit of the first
// release tried is kept for the explanation.
bool pick_variant(const std::string& release, const PlanMachine& m, bool first, InstallPlan& p,
                  std::vector<std::string>& misfits) {
  if (m.gpus.empty()) {
    p.ok = true, p.release = release, p.variant = "cpu";
    p.why.push_back("no NVIDIA GPU: the CPU build (about 200 MB, no CUDA libraries)");
    return true;
  }
  for (const auto& v : torch_variants_newest_first()) {
    if (v.torch != release) continue;
    if (std::string misfit = variant_misfit(v, m); !misfit.empty()) {
      if (first) misfits.push_back(misfit);
      continue;
    }
    p.ok = true, p.release = release, p.variant = v.variant, p.cuda = v.cuda;
    std::vector<std::string> gpus;
    for (const auto& g : m.gpus) gpus.push_back(sm(g));
    p.why.push_back(v.variant + ": the newest CUDA variant of " + release + " that " +
                    (m.driver ? "driver " + *m.driver + " runs" : "the driver should run (driver unknown)") +
                    " with kernels for every GPU (" + join(gpus, ", ") + " in " + v.arch_list + ")");
    return true;
  }
  return false;
}

// The lines that say why this release and what else the plan relies on.
void explain(const PlanMachine& m, const std::vector<std::string>& skipped_python,
             const std::vector<std::string>& misfits, InstallPlan& p) {
  std::string newest = releases_newest_first().front();
  if (!m.torch.empty())
    p.why.insert(p.why.begin(), "release " + p.release + ": the one asked for (--torch " + m.torch + ")");
  else if (p.release == newest)
    p.why.insert(p.why.begin(), "release " + p.release + ": the newest in dlready's tables (" + kCompatTableDate + ")");
  else
    p.why.insert(p.why.begin(), "release " + p.release + ": the newest that fits (" + newest + ": " +
                                    (misfits.empty() ? "no wheels for Python " + m.python : join(misfits, "; ")) + ")");
  if (!skipped_python.empty() && m.torch.empty() && p.release != newest && misfits.empty())
    p.why.push_back("Python " + m.python + ": releases " + join(skipped_python, ", ") + " have no wheels for it");
  if (m.driver && p.variant != "cpu")
    if (auto max = max_cuda_for_driver(*m.driver); max && compare_versions(p.cuda, *max) > 0)
      p.why.push_back("CUDA " + p.cuda + " on a driver for CUDA " + *max + ": minor-version compatibility");
  if (!m.driver && !m.gpus.empty())
    p.warnings.push_back("the driver's version is unknown: the plan assumes it runs " + p.variant +
                         " (needs >= " + min_driver_for_cuda(p.cuda).value_or("?") + "); give --driver to be sure");
}

}  // namespace

InstallPlan plan_install(const PlanMachine& m) {
  InstallPlan p;
  if (p.error = refuse_machine(m); !p.error.empty()) return p;
  std::vector<std::string> releases;
  for (const auto& r : releases_newest_first())
    if (m.torch.empty() || r == release_line(m.torch)) releases.push_back(r);
  if (releases.empty()) {
    p.error = "PyTorch " + m.torch + " is not in dlready's tables (releases " + releases_newest_first().back() + " to " +
              releases_newest_first().front() + ")";
    return p;
  }
  std::vector<std::string> skipped_python, misfits;
  for (const auto& release : releases) {
    if (!python_fits(release, m.python)) skipped_python.push_back(release);
    else if (pick_variant(release, m, release == releases.front(), p, misfits)) break;
  }
  if (!p.ok) {
    bool python_only = !skipped_python.empty() && (m.gpus.empty() || skipped_python.size() == releases.size());
    auto r = python_range(releases.front());
    p.error = !python_only ? no_fit_error(m, misfits)
                           : "no release" + (m.torch.empty() ? std::string() : " matching " + m.torch) +
                                 " has wheels for Python " + m.python +
                                 (r ? " (" + releases.front() + " supports " + r->min + " to " + r->max + ")" : "");
    return p;
  }
  bool exact = split(m.torch, '.').size() >= 3;  // "2.5.1": that version; "2.5": the newest 2.5.x
  p.requirement = "torch==" + (exact ? m.torch : p.release + ".*");
  explain(m, skipped_python, misfits, p);
  choose_index(m, p);
  return p;
}

}  // namespace dlready
