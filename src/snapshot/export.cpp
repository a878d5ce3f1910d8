#include "snapshot/export.hpp"

#include <cctype>
#include <cstdio>
#include <map>
#include <optional>

#include "os/atomic_file.hpp"
#include "core/json_text.hpp"
#include "core/text.hpp"
#include "compat/compat.hpp"
#include "snapshot/json_fields.hpp"
#include "snapshot/stack.hpp"

namespace dlready {
namespace {

using nlohmann::json;

std::string text_of(const json& j, const char* key) { return text(field(j, key)); }

// The torch install Python would import: the active environment's first, else the first found.
// `version` is what pip installed (the dist-info's Version: "2.11.0" for PyPI's wheel, whose
// version.py still says "2.11.0+cu130"); version.py's only when there is no dist-info.
struct Primary {
  std::string prefix, python, python_full, version, cuda;
  std::map<std::string, std::string> distributions;  // every other distribution of the environment
};
std::optional<Primary> primary_torch(const json& facts) {
  const json& envs = field(facts, "python_envs");
  if (!envs.is_array()) return std::nullopt;
  std::optional<Primary> first;
  for (const auto& e : envs) {
    if (!field(e, "torch").is_array()) continue;
    for (const auto& t : field(e, "torch")) {
      if (text_of(t, "version").empty()) continue;
      std::string installed = text_of(t, "dist_version").empty() ? text_of(t, "version") : text_of(t, "dist_version");
      Primary p{text_of(e, "prefix"), text_of(e, "python_version"), text_of(e, "python_full_version"),
                installed, text_of(t, "cuda"), {}};
      if (field(e, "distributions").is_object())
        for (const auto& [name, version] : field(e, "distributions").items())
          if (name != "torch" && name != "pip") p.distributions[name] = text(version);
      if (field(e, "active") == true) return p;
      if (!first) first = p;
      break;
    }
  }
  return first;
}

// PyTorch's own wheel index for a local version ("2.11.0+cu130" -> .../whl/cu130); none for a
// PyPI wheel, which never has a local part (PyPI refuses uploads with one).
std::optional<std::string> wheel_index(const std::string& version) {
  auto plus = version.find('+');
  if (plus == std::string::npos) return std::nullopt;
  return "https://download.pytorch.org/whl/" + version.substr(plus + 1);
}

// "3.11.4" -> "3.11"
std::string major_minor(const std::string& v) {
  auto first = v.find('.');
  if (first == std::string::npos) return v;
  auto second = v.find('.', first + 1);
  return second == std::string::npos ? v : v.substr(0, second);
}

// Whether every character of `s` is in `allowed` (and s is not empty): a field that lands on a
// requirements/conda/Dockerfile line must not carry a newline, a space or a shell character.
bool only(const std::string& s, const std::string& allowed) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && allowed.find(c) == std::string::npos) return false;
  return true;
}

// The fields a snapshot gives that become lines of the exported file, each checked for its format.
Status invalid_field(const Primary& p) {
  if (!only(p.version, ".+!_-") || !std::isdigit(static_cast<unsigned char>(p.version[0])))
    return Status::failure("torch version '" + p.version + "'");
  if (!p.python.empty() && !only(p.python, "."))
    return Status::failure("Python version '" + p.python + "'");
  if (!p.python_full.empty() && !only(p.python_full, "."))
    return Status::failure("Python version '" + p.python_full + "'");
  for (const auto& [name, version] : p.distributions) {
    if (!only(name, "._-")) return Status::failure("distribution name '" + name + "'");
    if (!only(version, ".+!_-")) return Status::failure("version '" + version + "' of " + name);
  }
  if (!p.cuda.empty() && !only(p.cuda, "."))
    return Status::failure("CUDA version '" + p.cuda + "'");
  return {};
}

// Free text (a path, a host name) in a comment line: control characters could end the comment.
std::string comment_text(std::string s) {
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return s;
}

// The environment variables the doctor found invalid (its findings travel in the snapshot): a
// lock must not carry them into the new machine without a word.
std::vector<std::string> invalid_environment(const json& snapshot) {
  std::vector<std::string> out;
  const json& findings = field(snapshot, "findings");
  if (!findings.is_array()) return out;
  for (const auto& x : findings) {
    std::string id = text_of(x, "id");
    if (id != "alloc-conf-invalid" && id != "cuda-visible-devices-invalid") continue;
    const json& ev = field(x, "evidence");
    std::string what = ev.is_array() && !ev.empty() ? text(ev.at(0)) : id;
    out.push_back(what + " is invalid (" + id + ", see dlready doctor); not exported");
  }
  return out;
}

bool names_invalid(const std::vector<std::string>& warnings, const std::string& var) {
  for (const auto& w : warnings)
    if (w.rfind(var + "=", 0) == 0) return true;
  return false;
}

// Where torch's own METADATA installs a distribution only on Linux (torch 2.11.0: Requires-Dist
// cuda-toolkit, cuda-bindings, nvidia-* and triton, each "; platform_system == \"Linux\""), the
// lock says so too: on a Mac or Windows the same file installs torch without them.
std::optional<std::string> platform_marker(const std::string& name) {
  std::string n = to_lower(name);
  if (n.rfind("nvidia-", 0) == 0 || n.rfind("nvidia_", 0) == 0 || n.rfind("cuda-", 0) == 0 || n.rfind("cuda_", 0) == 0 ||
      n == "triton")
    return "platform_system == \"Linux\"";
  return std::nullopt;
}

std::vector<LockPin> pins_of(const Primary& p) {
  std::vector<LockPin> pins = {{"torch", p.version}};
  for (const auto& [name, version] : p.distributions) pins.push_back({name, version});
  return pins;
}

// requirements.txt's lines: a marker where the distribution is Linux-only, and with `hashes` each
// file's --hash (pip's continuation lines, as pip-compile writes them).
std::string requirement_lines(const std::vector<LockPin>& pins, const LockHashes* hashes) {
  std::string out;
  for (const auto& pin : pins) {
    const std::string key = pin.name + "==" + pin.version;
    std::string line = key;
    if (auto m = platform_marker(pin.name)) line += " ; " + *m;
    if (hashes)
      if (auto it = hashes->by_pin.find(key); it != hashes->by_pin.end())
        for (const auto& h : it->second) line += " \\\n    --hash=sha256:" + h;
    out += line + "\n";
  }
  return out;
}

// What no lock of pip's can carry, said in every format.
std::string unpinned_note(const std::string& python, const std::string& cuda) {
  return "# not pinned here: the Python interpreter (" + python + "), " +
         (cuda.empty() ? std::string("") : "the NVIDIA driver, ") +
         "system libraries, and anything installed without pip (conda packages, files copied in)\n";
}

// Whether pip --require-hashes can install the file, and why not.
std::string hashes_note(const LockHashes& h, size_t pins) {
  if (h.missing.empty())
    return "# pip install --require-hashes -r FILE: every one of the " + std::to_string(pins) +
           " pins has its files' sha256 from " + comment_text(join(h.sources, ", ")) + "\n";
  std::string s = "# NOT installable with --require-hashes: no hash for " + std::to_string(h.missing.size()) + " of " +
                  std::to_string(pins) + " pins (pip refuses the whole file):\n";
  for (const auto& m : h.missing) s += "#   " + comment_text(m) + "\n";
  return s;
}

}  // namespace

std::vector<LockPin> export_pins(const json& snapshot) {
  auto p = primary_torch(field(snapshot, "facts"));
  if (!p || !invalid_field(*p).ok()) return {};
  return pins_of(*p);
}

Exported export_stack(const json& snapshot, const std::string& format, const LockHashes* hashes) {
  Exported out;
  const json& facts = field(snapshot, "facts");
  if (!facts.is_object()) {
    out.error = "not a dlready snapshot or doctor report (no \"facts\" object)";
    out.usage_error = true;
    return out;
  }
  auto p = primary_torch(facts);
  if (!p) {
    out.error = "the snapshot has no PyTorch install to export (install torch, then run dlready snapshot again)";
    return out;
  }
  if (Status bad = invalid_field(*p); !bad.ok()) {
    out.error = "the snapshot's " + comment_text(bad.error()) +
                " is not a valid value (an edited or damaged snapshot?); nothing exported";
    return out;
  }
  const json& meta = field(snapshot, "snapshot");
  std::string origin = "# dlready export of the PyTorch stack in " + comment_text(p->prefix);
  if (!text_of(meta, "host").empty())
    origin += " on " + comment_text(text_of(meta, "host")) + " (" + comment_text(text_of(meta, "created")) + ")";
  const std::optional<std::string> index = wheel_index(p->version);
  const std::string extra_index = index ? "--extra-index-url " + *index : "";
  // The whole environment, exactly as pip recorded it: torch as its dist-info names it (a local
  // "+cu130" means PyTorch's index, none means PyPI), every other distribution likewise
  // (torchvision must match torch; numpy, triton, nvidia-* come along).
  const auto pins = pins_of(*p);
  std::string python = p->python_full.empty() ? major_minor(p->python.empty() ? "3.11" : p->python) : p->python_full;
  std::string driver_note;
  if (!p->cuda.empty()) {
    auto min = min_driver_for_cuda(p->cuda);
    driver_note = "# CUDA " + p->cuda + " build: the GPU machine needs an NVIDIA driver" +
                  (min ? " >= " + *min : std::string(" new enough for CUDA ") + p->cuda) + "\n";
  }
  std::string index_note = !index ? "# torch " + p->version + " came from PyPI, as everything else does\n"
                                  : "# " + p->version + " and the other +" + index->substr(index->rfind('/') + 1) +
                                        " builds come from PyTorch's index, the rest from PyPI\n";
  auto invalid = invalid_environment(snapshot);
  for (const auto& w : invalid) out.warnings.push_back(w);
  std::string warn_lines;
  for (const auto& w : invalid) warn_lines += "# warning: " + comment_text(w) + "\n";
  warn_lines += unpinned_note(python, p->cuda);
  if (hashes && format != "requirements") {
    out.error = "--hashes writes a requirements file (pip install --require-hashes -r FILE): use --format requirements";
    out.usage_error = true;
    return out;
  }
  if (hashes) {
    warn_lines += hashes_note(*hashes, pins.size());
    for (const auto& m : hashes->missing) out.warnings.push_back("no hash for " + m);
  }
  if (format == "requirements") {
    out.text = origin + "\n" + driver_note + index_note + warn_lines + "# Python " + python + "\n" +
               (index ? extra_index + "\n" : "") + requirement_lines(pins, hashes);
  } else if (format == "conda") {
    out.text = origin + "\n" + driver_note + index_note + warn_lines +
               "name: dlready-torch\nchannels:\n  - conda-forge\ndependencies:\n  - python=" + python +
               "\n  - pip\n  - pip:\n" + (index ? "    - " + extra_index + "\n" : "");
    for (const auto& pin : pins) {
      auto m = platform_marker(pin.name);
      out.text += "    - " + pin.name + "==" + pin.version + (m ? "; " + *m : "") + "\n";
    }
  } else if (format == "dockerfile") {
    // The image is Linux: no markers, and no shell quoting needed for a pin.
    std::vector<std::string> words;
    for (const auto& pin : pins) words.push_back(pin.name + "==" + pin.version);
    out.text = origin + "\n" + driver_note + index_note + warn_lines +
               "# The driver comes from the host: run with the NVIDIA Container Toolkit, docker run --gpus all ...\n"
               "FROM python:" + python + "-slim\n"
               "RUN pip install --no-cache-dir " + (index ? extra_index + " " : "") + join(words, " ") + "\n";
    for (const char* k : {"PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF", "OMP_NUM_THREADS", "NCCL_P2P_DISABLE",
                          "NCCL_IB_DISABLE", "NCCL_SOCKET_IFNAME", "CUDA_MODULE_LOADING"})
      if (auto v = text_of(field(facts, "environment"), k); !v.empty() && !names_invalid(invalid, k))
        out.text += "ENV " + std::string(k) + "=" + json_text(json(v)) + "\n";
  } else {
    out.error = "unknown format '" + format + "' (requirements, conda or dockerfile)";
  }
  return out;
}

ExitCode run_export_command(const std::string& snapshot_path, const std::string& format, const std::string& out,
                            const HashFinder& find_hashes) {
  auto file = load_snapshot_file(snapshot_path);
  if (!file.error.empty()) {
    std::fprintf(stderr, "dlready export: %s\n", file.error.c_str());
    return ExitCode::usage;
  }
  std::optional<LockHashes> hashes;
  if (find_hashes && format == "requirements")
    if (auto pins = export_pins(file.doc); !pins.empty()) hashes = find_hashes(pins);
  if (find_hashes && !hashes) hashes.emplace();  // refused below, with the reason
  auto e = export_stack(file.doc, format, hashes ? &*hashes : nullptr);
  if (!e.error.empty()) {
    std::fprintf(stderr, "dlready export: %s: %s\n", snapshot_path.c_str(), e.error.c_str());
    return e.usage_error ? ExitCode::usage : ExitCode::failed;
  }
  for (const auto& w : e.warnings) std::fprintf(stderr, "dlready export: warning: %s\n", w.c_str());
  // Written either way (the pins are right); a lock pip --require-hashes refuses is not a success.
  const ExitCode done = hashes && !hashes->missing.empty() ? ExitCode::failed : ExitCode::ok;
  if (done != ExitCode::ok)
    std::fprintf(stderr, "dlready export: pip install --require-hashes will refuse this file: %zu pin(s) have no hash\n",
                 hashes->missing.size());
  if (out.empty()) {
    std::fwrite(e.text.data(), 1, e.text.size(), stdout);
    return done;
  }
  if (auto st = write_file_atomically(out, e.text); !st) {
    std::fprintf(stderr, "dlready export: %s\n", st.error().c_str());
    return ExitCode::failed;
  }
  return done;
}

}  // namespace dlready
