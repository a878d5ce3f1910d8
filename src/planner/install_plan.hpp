// Which PyTorch build to install on a machine: the release, its CUDA variant (or the CPU build),
// the index that serves it and why, from the driver, the compute capability of every GPU, the
// Python version and the index the user's tools point at. The tutorials' installation guide as a
// query: "pick the CUDA variant the driver supports", made exact with the arch lists of the wheels
// (a variant the driver runs can still have no kernels for an old or a new GPU). Pure: the facts
// come in, the plan goes out.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/status.hpp"
#include "facts/facts.hpp"

namespace dlready {

struct PlanMachine {
  std::optional<std::string> driver;     // "550.54.15"; nullopt: unknown (no GPU, or not probed)
  std::vector<std::pair<int, int>> gpus;  // compute capability of every GPU; empty: a CPU-only machine
  std::string python = "3.11";           // the environment's Python, major.minor
  std::string platform = "linux-x86_64";  // or linux-aarch64, win-amd64, macos-arm64, macos-x86_64
  std::string macos;                      // a Mac's macOS version ("14.5"); macos-* platforms only
  std::string jetpack;                    // a Jetson's JetPack ("6.1"); linux-aarch64 only
  std::string torch;                      // a requested release ("2.5" or "2.5.1"); "" = the newest that fits
  // The index the user's tools are set to (--index-url, PIP_INDEX_URL, UV_INDEX_URL); "" = none.
  std::string index_url;
  std::string extra_index_url;  // PIP_EXTRA_INDEX_URL: pip looks there too
  // Where PyTorch's per-variant indexes are (<torch_index><variant>): PyTorch's own, or a mirror of it.
  std::string torch_index = "https://download.pytorch.org/whl/";
  // What the indexes serve of torch (cli/setup_index reads them): releases newer than the tables
  // are planned from it, variants and Pythons it lacks are not. nullopt: not read, `index_note` says why.
  std::optional<IndexReleases> index;
  std::string index_note;
};

struct InstallPlan {
  bool ok = false;
  std::string error;          // when !ok: why no build fits, and what would
  std::string release;        // "2.11"
  std::string variant;        // "cu130" or "cpu"
  std::string cuda;           // "13.0"; "" for the CPU build
  std::string requirement;    // "torch==2.11.*"
  // How the driver runs the variant's CUDA: "direct" (the driver's own CUDA or older), "minor"
  // (only through CUDA's minor-version compatibility: no JIT of newer PTX, none of the newer
  // driver's features), "unknown" (no driver given); "" for the CPU build and a Mac's.
  std::string compatibility;
  std::string index_url;      // where that variant is served
  std::vector<std::string> why;       // one line per decision
  std::vector<std::string> warnings;  // e.g. a PyPI mirror that cannot serve the variant
};

InstallPlan plan_install(const PlanMachine& m);

// One (release, variant) graded for a machine, as torch-check grades them: "direct" (the driver
// runs its CUDA natively), "minor" (only through minor-version compatibility), "unknown" (no driver
// given), "incompatible" (with the reason: the driver, the GPUs' kernels, the Python),
// "unavailable" (the index lacks it). `chosen`: the one plan_install picks.
struct Candidate {
  std::string release, variant, cuda, status, reason;
  bool chosen = false;
};
// Every CUDA variant of every release the machine's platform has (the CPU build on a machine
// without an NVIDIA GPU), the newest first; incompatible and unavailable ones included.
std::vector<Candidate> plan_candidates(const PlanMachine& m);
// `setup --why`: one check of a build against the machine: "ok", "fails", "minor" (the driver runs
// it only through minor-version compatibility) or "not checked" (the machine does not say).
struct BuildCheck {
  std::string name;  // index, python, kernels, driver, release
  std::string verdict, detail;
};
struct BuildWhy {
  std::string release, variant;
  std::vector<BuildCheck> checks;
  std::string status;  // direct, minor, unknown, incompatible, unavailable (as plan_candidates grades)
  bool planned = false;  // the build plan_install chooses
};
// Why a build fits the machine or not, check by check: `version` "2.12" or "2.12.1"; `variant`
// "cu130", "cpu", or "" for every variant of the release.
std::vector<BuildWhy> explain_build(const PlanMachine& m, const std::string& version, const std::string& variant);

// A Mac's plan (install_plan_macos.cpp; plan_install hands macos-* platforms to it): the variant is
// "mps" or "cpu", the index PyPI.
InstallPlan plan_mac_install(const PlanMachine& m);
// "sm_61" / "6.1" / "61" -> {6, 1}; nullopt when it is none of these.
std::optional<std::pair<int, int>> parse_compute_capability(const std::string& text);

}  // namespace dlready
