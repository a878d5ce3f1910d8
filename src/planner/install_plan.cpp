#include "planner/install_plan.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "core/redact.hpp"
#include "core/text.hpp"
#include "compat/compat.hpp"

namespace dlready {
namespace {

std::string sm(std::pair<int, int> cc) { return "sm_" + std::to_string(cc.first) + std::to_string(cc.second); }

std::string release_line(const std::string& version) {
  auto parts = split(version.substr(0, version.find('+')), '.');
  return parts.size() >= 2 ? parts[0] + "." + parts[1] : version;
}

// The release line's versions on the index ("2.16" -> 2.16.0, 2.16.1); empty when it has none.
std::vector<const IndexRelease*> index_line(const IndexReleases& index, const std::string& release) {
  std::vector<const IndexRelease*> out;
  for (const auto& r : index.releases)
    if (r.version == release || starts_with(r.version, release + ".")) out.push_back(&r);
  return out;
}

// The table of the machine's platform: linux-aarch64 has its own wheels (SBSA), the others share
// x86_64's variants (Windows builds the same CUDA variants).
const std::vector<TorchVariant>& table_of(const PlanMachine& m) {
  return torch_variants_newest_first(m.platform == "linux-aarch64" ? "aarch64" : "x86_64");
}

// The release lines of the table, the newest first.
std::vector<std::string> releases_newest_first(const PlanMachine& m) {
  std::vector<std::string> out;
  for (const auto& v : table_of(m))
    // Setup installs from PyTorch's simple indexes (--index-url .../cu126); the releases before 1.9
    // are on find-links pages only (the doctor names those for a GPU nothing newer covers).
    if ((out.empty() || out.back() != v.torch) && compare_versions(v.torch, "1.9") >= 0) out.push_back(v.torch);
  return out;
}

bool in_tables(const PlanMachine& m, const std::string& release) {
  auto all = releases_newest_first(m);
  return std::find(all.begin(), all.end(), release) != all.end();
}

// The release lines that can be planned, the newest first: what the index lists when one was read
// (a release it does not serve cannot be installed from it, whatever the tables know), else the
// tables'.
std::vector<std::string> candidate_releases(const PlanMachine& m) {
  std::vector<std::string> out;
  if (!m.index) out = releases_newest_first(m);
  if (m.index)
    for (const auto& r : m.index->releases)
      if (std::find(out.begin(), out.end(), release_line(r.version)) == out.end()) out.push_back(release_line(r.version));
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) { return compare_versions(a, b) > 0; });
  return out;
}

// Has the release wheels for this Python? The index's wheel tags where it lists the release, else the tables.
bool python_fits(const std::string& release, const PlanMachine& m) {
  if (m.python.empty()) return true;  // the doctor's plan for a machine whose Python is unknown
  if (m.index)
    if (auto line = index_line(*m.index, release); !line.empty()) {
      for (const auto* r : line)
        for (const auto& [variant, pythons] : r->pythons)
          if (pythons.count(m.python) || pythons.count("*")) return true;
      return false;
    }
  auto r = python_range(release);
  return !r || (compare_versions(m.python, r->min) >= 0 && compare_versions(m.python, r->max) <= 0);
}

// "cu132" -> "13.2", "cu118" -> "11.8"; none for cpu and anything else.
std::optional<std::string> cuda_of_variant(const std::string& variant) {
  if (!starts_with(variant, "cu") || variant.size() < 4) return std::nullopt;
  std::string digits = variant.substr(2);
  return digits.substr(0, digits.size() - 1) + "." + digits.substr(digits.size() - 1);
}

// The labelled variants (cu132, cpu) the index lists for a release line, each with the Pythons it
// has wheels for; empty when it lists none (PyPI alone: one unlabelled build per release).
std::map<std::string, std::set<std::string>> index_variants(const PlanMachine& m, const std::string& release) {
  std::map<std::string, std::set<std::string>> out;
  if (m.index)
    for (const auto* r : index_line(*m.index, release))
      for (const auto& [variant, pythons] : r->pythons)
        if (!variant.empty()) out[variant].insert(pythons.begin(), pythons.end());
  return out;
}

bool serves_python(const std::set<std::string>& pythons, const std::string& python) {
  return pythons.count(python) || pythons.count("*");
}

// A release the tables do not know yet, as the index serves it: its labelled variants, else the
// newest table release's PyPI build; the kernels taken from the newest table row of the same variant.
std::vector<TorchVariant> variants_from_index(const PlanMachine& m, const std::string& release) {
  const auto& table = table_of(m);
  auto served = index_variants(m, release);
  std::set<std::string> names;
  for (const auto& [variant, pythons] : served)
    if (serves_python(pythons, m.python)) names.insert(variant);
  if (served.empty())
    for (const auto& v : table)
      if (v.pypi_default) {
        names.insert(v.variant);
        break;
      }
  std::vector<TorchVariant> out;
  for (const auto& name : names) {
    if (name == "cpu") continue;
    TorchVariant v{release, name, cuda_of_variant(name).value_or(""), "", false, ""};
    for (const auto& t : table)
      if (v.arch_list.empty() && (t.variant == name || t.cuda == v.cuda)) {
        v.arch_list = t.arch_list;
        v.source = "the index; kernels as in " + t.torch + " " + t.variant;
      }
    if (v.arch_list.empty() || v.cuda.empty()) continue;
    out.push_back(v);
  }
  std::sort(out.begin(), out.end(),
            [](const TorchVariant& a, const TorchVariant& b) { return compare_versions(a.cuda, b.cuda) > 0; });
  return out;
}

// The CUDA variants of a release that can be planned, the newest first; each one the index lacks
// (where it lists the release's variants) into `missing`.
std::vector<TorchVariant> plannable_variants(const PlanMachine& m, const std::string& release,
                                             std::vector<std::string>& missing) {
  if (!in_tables(m, release)) return variants_from_index(m, release);
  auto served = index_variants(m, release);
  std::vector<TorchVariant> out;
  // A variant the index serves and the tables lack, planned as for a release they do not know.
  for (const auto& v : served.empty() ? std::vector<TorchVariant>{} : variants_from_index(m, release)) {
    bool known = false;
    for (const auto& t : table_of(m)) known |= t.torch == release && t.variant == v.variant;
    if (!known) out.push_back(v);
  }
  for (const auto& v : table_of(m)) {
    if (v.torch != release) continue;
    auto it = served.find(v.variant);
    if (!served.empty() && it == served.end())
      missing.push_back(v.variant + " is not on the index");
    else if (!served.empty() && !serves_python(it->second, m.python))
      missing.push_back(v.variant + " has no wheel for Python " + m.python + " on the index");
    else
      out.push_back(v);
  }
  return out;
}

// The oldest driver that runs a CUDA version on the machine's platform (Windows' driver versions
// differ from Linux's: 528.33 where Linux needs 525.60.13 for 12.x).
std::optional<std::string> driver_floor(const PlanMachine& m, const std::string& cuda) {
  return m.platform == "win-amd64" ? min_windows_driver_for_cuda(cuda) : min_driver_for_cuda(cuda);
}

// Why a variant cannot serve this machine; nullopt when it can.
std::optional<std::string> variant_misfit(const TorchVariant& v, const PlanMachine& m) {
  if (m.driver)
    if (auto need = driver_floor(m, v.cuda); need && compare_versions(*m.driver, *need) < 0)
      return v.variant + " needs driver >= " + *need;
  std::vector<std::string> missing;
  for (const auto& g : m.gpus)
    if (!arch_list_covers(v.arch_list, g.first, g.second)) missing.push_back(sm(g));
  if (!missing.empty()) return v.variant + " has no kernels for " + join(missing, ", ") + " (" + v.arch_list + ")";
  return std::nullopt;
}

// The one line the plan gives for a machine no single build fits: what each GPU alone would take.
std::string no_fit_error(const PlanMachine& m, const std::vector<std::string>& misfits) {
  std::string e = "no PyTorch build in dlready's tables (" + std::string(kCompatTableDate) + ") fits";
  if (m.driver) e += " driver " + *m.driver;
  std::vector<std::string> alone;
  for (const auto& g : m.gpus) {
    if (m.gpus.size() == 1) {  // the machine itself: no other plan to offer (and no recursion)
      alone.push_back(sm(g));
      break;
    }
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

// PyTorch's index (or the mirror given for it) did not answer while the index pip uses did.
bool torch_index_unanswered(const PlanMachine& m, const std::string& base) {
  if (!m.index) return false;
  for (const auto& u : m.index->unanswered)
    if (u == base) return true;
  return false;
}

void choose_pypi(const PlanMachine& m, const std::string& base, const std::string& mirror, bool unanswered,
                 InstallPlan& p);

void choose_index(const PlanMachine& m, InstallPlan& p) {
  std::string base = m.torch_index;
  if (!base.empty() && base.back() != '/') base += '/';
  p.index_url = base + p.variant;
  if (!m.extra_index_url.empty())
    p.warnings.push_back("pip also looks in " + without_credentials(m.extra_index_url) + " (PIP_EXTRA_INDEX_URL) and takes the highest "
                         "version from any index: a torch there may replace the planned " + p.variant +
                         " build; unset it for this install");
  // Unreachable, PyTorch's index is planned from only when nothing else serves the build: PyPI (or
  // the user's mirror of it), which answered, serves each release's default variant.
  const bool unanswered = torch_index_unanswered(m, base);
  if (m.index_url.empty() && !unanswered) return;
  const std::string mirror = m.index_url.empty() ? "https://pypi.org/simple/" : m.index_url;
  std::string wanted = mirror;
  while (!wanted.empty() && wanted.back() == '/') wanted.pop_back();
  if (wanted.find("download.pytorch.org") != std::string::npos || starts_with(wanted, base)) {
    if (wanted != p.index_url)
      p.warnings.push_back("the index you set (" + without_credentials(m.index_url) + ") serves another variant than " + p.variant +
                           ": the plan uses " + p.index_url);
    return;
  }
  choose_pypi(m, base, mirror, unanswered, p);
}

// PyPI or a mirror of it (the tutorial's TUNA one, a company proxy) serves what PyPI serves: each
// release's default CUDA variant only.
void choose_pypi(const PlanMachine& m, const std::string& base, const std::string& mirror, bool unanswered,
                 InstallPlan& p) {
  const std::string whose = m.index_url.empty() ? "PyPI, which answered; " + base + " did not" : "yours";
  std::string dflt;
  for (const auto& v : table_of(m))
    if (v.torch == p.release && v.pypi_default) dflt = v.variant;
  if (!dflt.empty() && dflt == p.variant) {
    p.index_url = mirror;
    p.why.push_back("index: " + without_credentials(mirror) + " (" + whose + "; " + (m.index_url.empty() ? "PyPI" : "a PyPI mirror") +
                    " serves " + p.release + "'s default variant, " + dflt + ", the one planned)");
    return;
  }
  if (p.variant == "cpu" && !dflt.empty()) {
    // A CPU-only machine behind a PyPI mirror (the tutorial's situation with TUNA): the mirror's
    // build runs on the CPU too; it only brings CUDA libraries this machine will not use.
    for (const auto& v : table_of(m))
      if (v.torch == p.release && v.variant == dflt) p.cuda = v.cuda;
    p.variant = dflt;
    p.index_url = mirror;
    for (auto& w : p.why)
      if (starts_with(w, "no NVIDIA GPU")) w = "no NVIDIA GPU: every build runs on the CPU";
    p.why.push_back("index: " + without_credentials(mirror) + " (" + whose + "; " + (m.index_url.empty() ? "PyPI" : "a PyPI mirror") +
                    " has only " + p.release + "'s default build, " + dflt + ", which runs on the CPU too; the smaller "
                    "cpu build is at " + base + "cpu)");
    return;
  }
  if (unanswered) {
    p.warnings.push_back(base + " did not answer: the " + p.variant + " build is planned from dlready's tables and "
                         "only that index serves it (" + (m.index_url.empty() ? "PyPI" : without_credentials(mirror)) + " has " + p.release +
                         "'s default build" + (dflt.empty() ? "" : ", " + dflt) + ", not " + p.variant +
                         "); install when it answers, or give --torch-index a mirror of it");
    return;
  }
  p.warnings.push_back("the index you set (" + without_credentials(m.index_url) + ") looks like a PyPI mirror: PyPI has only " + p.release +
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

// Whether the machine can be planned for at all, else why not.
Status check_plannable(const PlanMachine& m) {
  for (const auto& g : m.gpus)
    if (m.platform == "linux-aarch64" && g == std::pair<int, int>{8, 7})
      return Status::failure("sm_87 is Jetson Orin's integrated GPU, which runs only the wheels built for its JetPack: plan with "
             "--jetpack (6.1, 6.2) instead of --gpu/--driver");
  // win-amd64: PyTorch builds its Windows wheels from the same CUDA variants as linux-x86_64 (uv's
  // torch backend plans both from one list, with Windows' own driver floors).
  if (m.platform != "linux-x86_64" && m.platform != "linux-aarch64" && m.platform != "win-amd64")
    return Status::failure("unknown platform " + m.platform + " (linux-x86_64, linux-aarch64 or win-amd64)");
  // A driver older than a GPU's first branch does not know it: no wheel helps that machine.
  if (m.driver)
    for (const auto& [major, minor] : m.gpus)
      if (auto limit = first_driver_branch(major, minor))
        if (auto branch = driver_branch(*m.driver); branch && *branch < limit->first_branch)
          return Status::failure(
              "driver " + *m.driver + " does not drive " + sm({major, minor}) + " (" + limit->arch +
              "): its GPUs need an R" + std::to_string(limit->first_branch) +
              " driver or newer (install one, then plan with its version: --driver " +
              std::to_string(limit->first_branch) + " or newer)");
  // A driver newer than a GPU's last branch does not drive it: no wheel helps that machine.
  if (m.driver)
    for (const auto& [major, minor] : m.gpus)
      if (auto limit = last_driver_branch(major, minor))
        if (auto branch = driver_branch(*m.driver); branch && *branch > limit->last_branch)
          return Status::failure("driver " + *m.driver + " does not drive " + sm({major, minor}) + " (" + limit->arch + "): R" +
                 std::to_string(limit->last_branch) + " is the last driver branch for it; install a " +
                 std::to_string(limit->last_branch) + ".x driver and plan with --driver " +
                 std::to_string(limit->last_branch) + ".x");
  return {};
}

// Whether the driver runs a CUDA version as its own (or older), only through minor-version
// compatibility, or is unknown.
std::string compatibility_of(const PlanMachine& m, const std::string& cuda) {
  if (!m.driver) return "unknown";
  auto max = max_cuda_for_driver(*m.driver);
  return max && compare_versions(cuda, *max) > 0 ? "minor" : "direct";
}

// The newest variant of `release` that serves this machine, into p; each misfit of the first
// release tried is kept for the explanation. `direct_only`: a variant the driver runs only through
// minor-version compatibility is a misfit too (the first pass over the releases).
bool pick_variant(const std::string& release, const PlanMachine& m, bool first, bool direct_only,
                  InstallPlan& p, std::vector<std::string>& misfits) {
  if (m.gpus.empty()) {
    p.ok = true, p.release = release, p.variant = "cpu";
    p.why.push_back("no NVIDIA GPU: the CPU build (about 200 MB, no CUDA libraries)");
    return true;
  }
  std::vector<std::string> missing;
  auto variants = plannable_variants(m, release, missing);
  if (first) misfits.insert(misfits.end(), missing.begin(), missing.end());
  // The newest variant the driver runs natively, else (unless direct_only) the newest it runs only
  // through minor-version compatibility.
  const TorchVariant* native = nullptr;
  const TorchVariant* minor = nullptr;
  for (const auto& v : variants) {
    if (auto misfit = variant_misfit(v, m)) {
      if (first) misfits.push_back(*misfit);
    } else if (compatibility_of(m, v.cuda) != "minor") {
      if (!native) native = &v;
    } else if (!minor) {
      minor = &v;
    }
  }
  if (const TorchVariant* chosen = native ? native : direct_only ? nullptr : minor) {
    const TorchVariant& v = *chosen;
    p.ok = true, p.release = release, p.variant = v.variant, p.cuda = v.cuda;
    p.compatibility = compatibility_of(m, v.cuda);
    std::vector<std::string> gpus;
    for (const auto& g : m.gpus) gpus.push_back(sm(g));
    p.why.push_back(v.variant + ": the newest CUDA variant of " + release + " that " +
                    (!m.driver                     ? "the driver should run (driver unknown)"
                     : p.compatibility == "direct" ? "driver " + *m.driver + " runs natively"
                                                   : "driver " + *m.driver + " runs") +
                    " with kernels for every GPU (" + join(gpus, ", ") + " in " + v.arch_list +
                    ")");
    if (starts_with(v.source, "the index;")) p.why.push_back("kernels: assumed from " + v.source.substr(v.source.find("as in ") + 6) +
                                             " (the tables do not know " + release + " yet)");
    return true;
  }
  return false;
}

// The lines that say why this release and what else the plan relies on.
void explain(const PlanMachine& m, const std::vector<std::string>& skipped_python,
             const std::vector<std::string>& misfits, bool release_said, InstallPlan& p) {
  std::string newest = candidate_releases(m).front();
  std::string where = m.index ? "on the index" : "in dlready's tables (" + std::string(kCompatTableDate) + ")";
  if (release_said)
    ;  // the step back to a native build said why
  else if (!m.torch.empty())
    p.why.insert(p.why.begin(), "release " + p.release + ": the one asked for (--torch " + m.torch + ")");
  else if (p.release == newest)
    p.why.insert(p.why.begin(), "release " + p.release + ": the newest " + where);
  else
    p.why.insert(p.why.begin(), "release " + p.release + ": the newest that fits (" + newest + ": " +
                                    (misfits.empty() ? "no wheels for Python " + m.python : join(misfits, "; ")) + ")");
  if (!in_tables(m, p.release))
    p.why.push_back(p.release + " is newer than dlready's tables (" + std::string(kCompatTableDate) +
                    "): planned from what the index serves");
  if (m.index)
    p.why.push_back("index read: " + join(m.index->sources, "; "));
  else if (!m.index_note.empty())
    p.why.push_back("index not read (" + m.index_note + "): planned from dlready's tables of " + kCompatTableDate);
  if (!skipped_python.empty() && m.torch.empty() && p.release != newest && misfits.empty())
    p.why.push_back("Python " + m.python + ": releases " + join(skipped_python, ", ") + " have no wheels for it");
  if (p.compatibility == "minor") {
    auto max = max_cuda_for_driver(*m.driver).value_or("?");
    std::string native = "a driver of CUDA " + p.cuda + " or newer";
    for (const auto& b : driver_branch_max_cuda())
      if (compare_versions(b.max_cuda, p.cuda) >= 0) {
        native = "an R" + std::to_string(b.branch) + " driver or newer";
        break;
      }
    p.warnings.push_back(
        "CUDA " + p.cuda + " on a driver for CUDA " + max +
        " runs only through minor-version compatibility: no JIT of PTX newer than " + max +
        ", none of the newer driver's features; no build of " + p.release +
        " runs natively on this driver; " + native + " runs it natively");
  }
  if (!m.driver && !m.gpus.empty())
    p.warnings.push_back("the driver's version is unknown: the plan assumes it runs " + p.variant +
                         " (needs >= " + driver_floor(m, p.cuda).value_or("?") + "); give --driver to be sure");
}

// The newest release's build runs only through minor-version compatibility: the release before it,
// when it has a build the driver runs natively, is what a careful engineer installs (one release
// back, not more: CUDA's minor-version compatibility is supported, and ten releases back are not
// better than it). Not when a release was asked for.
// Whether it stepped back (its first "why" says so).
bool prefer_native_release(const PlanMachine& m, const std::vector<std::string>& releases,
                           size_t chosen, InstallPlan& p) {
  if (!p.ok || p.compatibility != "minor" || !m.torch.empty()) return false;
  for (size_t i = chosen + 1; i < releases.size(); ++i) {
    if (!python_fits(releases[i], m)) continue;
    InstallPlan native;
    std::vector<std::string> unused;
    if (!pick_variant(releases[i], m, false, true, native, unused)) return false;
    native.why.insert(native.why.begin(),
                      "release " + native.release + ": " + p.release + "'s " + p.variant +
                          " runs on driver " + *m.driver +
                          " only through minor-version compatibility (CUDA " + p.cuda +
                          " on a driver for CUDA " + max_cuda_for_driver(*m.driver).value_or("?") +
                          "); " + native.release + "'s " + native.variant + " runs natively");
    p = native;
    return true;
  }
  return false;
}

}  // namespace

// A Jetson up to JetPack 6: the wheels built for its JetPack (Jetson AI Lab's index), never PyPI's or
// the SBSA ones, which have no code for Orin or load server CUDA (shared/knowledge/aarch64.md §2).
InstallPlan plan_jetson(const PlanMachine& m) {
  InstallPlan p;
  p.index_url = jetson_index(m.jetpack);
  if (p.index_url.empty()) {
    p.error = "JetPack " + m.jetpack + ": dlready plans JetPack 6 (the Jetson AI Lab index jp6/cu126) and JetPack 7 "
              "(server wheels); for JetPack 5 install NVIDIA's wheel for it (forum thread \"PyTorch for Jetson\")";
    return p;
  }
  p.ok = true, p.release = "newest", p.variant = "jp6/cu126", p.cuda = "12.6", p.requirement = "torch";
  p.why = {"a Jetson on JetPack " + m.jetpack + ": its CUDA is JetPack's (12.6), so the wheels built for it "
           "(Jetson AI Lab's jp6/cu126 index; its newest torch)",
           "not PyPI's (a CPU build up to 2.10, a server CUDA 13 build from 2.11) nor download.pytorch.org's SBSA "
           "wheels (no sm_87 code for Orin)"};
  return p;
}

InstallPlan plan_install(const PlanMachine& m) {
  if (starts_with(m.platform, "macos-")) return plan_mac_install(m);
  if (!m.jetpack.empty() && !starts_with(m.jetpack, "7")) return plan_jetson(m);
  InstallPlan p;
  if (Status plannable = check_plannable(m); !plannable.ok()) {
    p.error = plannable.error();
    return p;
  }
  std::vector<std::string> releases;
  auto known = candidate_releases(m);
  if (known.empty()) {  // only an index can list nothing
    p.error = "the index lists no torch wheel for " + m.platform + " (" + join(m.index->sources, "; ") +
              "): check --torch-index, or plan from dlready's tables with --offline";
    return p;
  }
  for (const auto& r : known)
    if (m.torch.empty() || r == release_line(m.torch)) releases.push_back(r);
  if (releases.empty()) {
    p.error = "PyTorch " + m.torch + " is not in dlready's tables (releases " + known.back() + " to " + known.front() +
              ")" + (m.index ? " nor on the index" : "");
    return p;
  }
  std::vector<std::string> skipped_python, misfits;
  size_t chosen = 0;
  for (; chosen < releases.size(); ++chosen) {
    const auto& release = releases[chosen];
    if (!python_fits(release, m)) skipped_python.push_back(release);
    else if (pick_variant(release, m, chosen == 0, false, p, misfits))
      break;
  }
  const bool stepped_back = prefer_native_release(m, releases, chosen, p);
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
  explain(m, skipped_python, misfits, stepped_back, p);
  choose_index(m, p);
  return p;
}

namespace {

// One variant of one release graded for the machine.
Candidate grade(const PlanMachine& m, const std::string& release, const TorchVariant& v,
                bool python) {
  Candidate c{release, v.variant, v.cuda, "", "", false};
  if (!python) {
    auto r = python_range(release);
    c.status = "incompatible";
    c.reason = "no wheel for Python " + m.python + (r ? " (" + r->min + " to " + r->max + ")" : "");
  } else if (auto misfit = variant_misfit(v, m)) {
    c.status = "incompatible", c.reason = misfit->substr(v.variant.size() + 1);
  } else {
    c.status = compatibility_of(m, v.cuda);
    if (c.status == "minor")
      c.reason = "CUDA " + v.cuda + " on a driver for CUDA " +
                 max_cuda_for_driver(*m.driver).value_or("?");
  }
  return c;
}

}  // namespace

std::vector<Candidate> plan_candidates(const PlanMachine& m) {
  std::vector<Candidate> out;
  if (starts_with(m.platform, "macos-") || (!m.jetpack.empty() && !starts_with(m.jetpack, "7")))
    return out;
  auto chosen = plan_install(m);
  for (const auto& release : candidate_releases(m)) {
    const bool python = python_fits(release, m);
    if (m.gpus.empty()) {
      Candidate c{release,
                  "cpu",
                  "",
                  python ? "direct" : "incompatible",
                  python ? "" : "no wheel for Python " + m.python,
                  false};
      c.chosen = chosen.ok && chosen.release == release && chosen.variant == "cpu";
      out.push_back(c);
      continue;
    }
    std::vector<std::string> missing;
    for (const auto& v : plannable_variants(m, release, missing)) {
      Candidate c = grade(m, release, v, python);
      c.chosen = chosen.ok && chosen.release == release && chosen.variant == v.variant;
      out.push_back(c);
    }
    for (const auto& why : missing)
      out.push_back({release, why.substr(0, why.find(' ')),
                     cuda_of_variant(why.substr(0, why.find(' '))).value_or(""), "unavailable",
                     why.substr(why.find(' ') + 1), false});
  }
  return out;
}

}  // namespace dlready

namespace dlready {
namespace {

BuildCheck python_check(const PlanMachine& m, const std::string& release) {
  auto r = python_range(release);
  const std::string range = r ? " (" + r->min + " to " + r->max + ")" : "";
  if (m.python.empty()) return {"python", "not checked", "the environment's Python is not known"};
  return python_fits(release, m) ? BuildCheck{"python", "ok", "wheels for Python " + m.python + range}
                                 : BuildCheck{"python", "fails", "no wheel for Python " + m.python + range};
}

BuildCheck index_check(const PlanMachine& m, const std::string& release, const std::string& variant) {
  if (!m.index) return {"index", "not checked", m.index_note.empty() ? "not read: planned from dlready's tables" : m.index_note};
  auto served = index_variants(m, release);
  if (index_line(*m.index, release).empty()) return {"index", "fails", release + " is not on the index"};
  if (served.empty()) return {"index", "ok", release + " is on the index (its default build)"};
  auto it = served.find(variant);
  if (it == served.end()) return {"index", "fails", variant + " of " + release + " is not on the index"};
  return {"index", "ok", variant + " of " + release + " is on the index"};
}

BuildCheck kernels_check(const PlanMachine& m, const TorchVariant& v) {
  if (m.gpus.empty()) return {"kernels", "ok", "no NVIDIA GPU: any build runs on the CPU"};
  std::vector<std::string> ok, missing;
  for (const auto& g : m.gpus) (arch_list_covers(v.arch_list, g.first, g.second) ? ok : missing).push_back(sm(g));
  if (!missing.empty()) return {"kernels", "fails", "no kernels for " + join(missing, ", ") + " (" + v.arch_list + ")"};
  return {"kernels", "ok", "kernels for " + join(ok, ", ") + " (" + v.arch_list + ")"};
}

BuildCheck driver_check(const PlanMachine& m, const TorchVariant& v) {
  if (!m.driver) return {"driver", "not checked", "the driver is not known (--driver gives it)"};
  auto floor = driver_floor(m, v.cuda);
  if (floor && compare_versions(*m.driver, *floor) < 0)
    return {"driver", "fails", "CUDA " + v.cuda + " needs driver >= " + *floor + "; this one is " + *m.driver};
  const std::string max = max_cuda_for_driver(*m.driver).value_or("?");
  if (compatibility_of(m, v.cuda) == "minor")
    return {"driver", "minor", "driver " + *m.driver + " is for CUDA " + max + ": CUDA " + v.cuda +
                                   " runs only through minor-version compatibility (no JIT of newer PTX)"};
  return {"driver", "ok", "driver " + *m.driver + " runs CUDA " + v.cuda + " natively (up to " + max + ")"};
}

// The row of a build: the tables' (or the index's) for a CUDA variant; the CPU build has none.
std::vector<TorchVariant> variants_asked(const PlanMachine& m, const std::string& release, const std::string& variant) {
  std::vector<TorchVariant> out;
  for (const auto& v : table_of(m))
    if (v.torch == release && (variant.empty() || v.variant == variant)) out.push_back(v);
  if (out.empty() && m.index && !index_line(*m.index, release).empty())  // a release only the index knows
    for (const auto& v : variants_from_index(m, release))
      if (variant.empty() || v.variant == variant) out.push_back(v);
  const bool known = !out.empty() || in_tables(m, release);
  if (known && (variant == "cpu" || (variant.empty() && m.gpus.empty()))) out.insert(out.begin(), TorchVariant{release, "cpu", "", "", false, ""});
  return out;
}

}  // namespace

std::vector<BuildWhy> explain_build(const PlanMachine& m, const std::string& version, const std::string& variant) {
  const std::string release = release_line(version);
  const InstallPlan plan = plan_install(m);
  std::vector<BuildWhy> out;
  const auto variants = variants_asked(m, release, variant);
  if (variants.empty()) {
    BuildWhy w{release, variant.empty() ? "?" : variant, {}, "unavailable", false};
    w.checks.push_back({"release", "fails", (variant.empty() ? release : release + " " + variant) +
                                                " is in neither dlready's tables (" + kCompatTableDate + ") nor the index read"});
    return {w};
  }
  for (const auto& v : variants) {
    BuildWhy w{release, v.variant, {}, "", plan.ok && plan.release == release && plan.variant == v.variant};
    w.checks.push_back(index_check(m, release, v.variant));
    w.checks.push_back(python_check(m, release));
    if (v.variant == "cpu") {
      w.checks.push_back(m.gpus.empty() ? BuildCheck{"kernels", "ok", "no NVIDIA GPU: the CPU build"}
                                        : BuildCheck{"kernels", "fails", "the CPU build cannot use the NVIDIA GPUs here"});
    } else {
      w.checks.push_back(kernels_check(m, v));
      w.checks.push_back(driver_check(m, v));
    }
    bool fails = false, minor = false, unknown = false;
    for (const auto& c : w.checks) {
      fails |= c.verdict == "fails";
      minor |= c.verdict == "minor";
      unknown |= c.verdict == "not checked" && c.name == "driver";
    }
    w.status = fails ? "incompatible" : minor ? "minor" : unknown ? "unknown" : "direct";
    out.push_back(w);
  }
  return out;
}

}  // namespace dlready
