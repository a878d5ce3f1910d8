#include "snapshot/stack.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "os/atomic_file.hpp"
#include "core/json_text.hpp"
#include "facts/fact_json.hpp"
#include "facts/facts.hpp"
#include "os/bounded_file.hpp"
#include "snapshot/json_fields.hpp"

namespace dlready {
namespace {

using nlohmann::json;

std::string gib(const json& bytes) {
  if (!bytes.is_number()) return "";
  char b[32];
  std::snprintf(b, sizeof b, "%.1f GiB", bytes.get<double>() / (1024.0 * 1024 * 1024));
  return b;
}

// cuDriverGetVersion's integer (13000) as the CUDA version it means ("13.0").
std::string cuda_version(const json& v) {
  if (!v.is_number_integer()) return "";
  int x = v.get<int>();
  return std::to_string(x / 1000) + "." + std::to_string((x % 1000) / 10);
}

void add(Stack& s, const std::string& area, const std::string& key, const std::string& value) {
  if (!value.empty()) s.items.push_back({area, key, value});
}

// An environment as another machine would name it too: one under the home directory from there
// (~/venv for /home/alice/venv and /home/bob/venv), others by path. Not by whether it is active:
// activating it changes the session, not the machine.
// Every path-keyed row goes through it (a LibTorch, a toolkit), so a redacted snapshot, whose home
// is <home-1>, names the same rows as the machine's own.
std::string home_label(const std::string& path, const std::string& home) {
  if (home.size() > 1 && path.rfind(home + "/", 0) == 0) return "~" + path.substr(home.size());
  return path;
}

std::string environment_label(const json& env, const std::string& home) {
  return home_label(text(field(env, "prefix")), home);
}

void python_envs(const json& f, Stack& s) {
  if (!field(f, "python_envs").is_array()) return;
  const std::string home = text(field(field(f, "environment"), "HOME"));
  for (const auto& e : f.at("python_envs")) {
    std::string label = environment_label(e, home);
    add(s, "python", "python " + label, text(field(e, "python_version")));
    if (!field(e, "torch").is_array()) continue;
    size_t n = 0;
    for (const auto& t : e.at("torch")) {
      StackTorch st{text(field(t, "version")), text(field(t, "version")), text(field(t, "cuda"))};
      if (!st.cuda.empty()) st.shown += " (CUDA " + st.cuda + ")";
      // A second torch in one environment (a user site beside the venv's) is told apart by its folder.
      add(s, "python", "torch " + label + (n++ ? " " + text(field(t, "site_packages")) : ""), st.shown);
      if (!st.version.empty()) s.torch.push_back(st);
    }
  }
}

void environment_findings(const json& doc, Stack& s) {
  if (!field(doc, "findings").is_array()) return;
  for (const auto& x : doc.at("findings")) {
    std::string severity = text(field(x, "severity"));
    if (text(field(x, "check")) != "environment" || (severity != "error" && severity != "warning")) continue;
    const json& evidence = field(x, "evidence");
    s.environment_findings.push_back({text(field(x, "id")), severity, text(field(x, "title")),
                                      evidence.is_array() && !evidence.empty() ? text(evidence.at(0)) : ""});
  }
}

void gpus(const json& f, Stack& s) {
  // The driver API knows compute capability and memory; NVML's list stands in when it did not run.
  const json& drv = field(field(f, "driver_api"), "devices");
  const json& nvml = field(field(f, "nvml"), "devices");
  const json& list = drv.is_array() && !drv.empty() ? drv : nvml;
  if (!list.is_array()) return;
  for (const auto& d : list) {
    StackGpu g{"gpu " + text(field(d, "index")), text(field(d, "name"))};
    std::string v = g.name;
    if (field(d, "cc_major").is_number_integer() && field(d, "cc_minor").is_number_integer()) {
      g.cc_major = field(d, "cc_major").get<int>(), g.cc_minor = field(d, "cc_minor").get<int>();
      v += ", compute capability " + std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor);
    }
    std::string mem = gib(field(d, "memory_bytes").is_number() ? field(d, "memory_bytes") : field(d, "memory_total"));
    if (!mem.empty()) v += ", " + mem;
    add(s, "gpus", g.key, v);
    s.gpus.push_back(g);
  }
  add(s, "gpus", "GPU count", std::to_string(list.size()));
}

// "2.11.0+cu130" -> "13.0"; none for a CPU build or a version without a CUDA suffix.
std::optional<std::string> cuda_of_local_version(const std::string& version) {
  auto plus = version.find("+cu");
  if (plus == std::string::npos) return std::nullopt;
  std::string digits = version.substr(plus + 3);
  if (digits.size() < 3 || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return digits.substr(0, digits.size() - 1) + "." + digits.substr(digits.size() - 1);
}

std::optional<std::string> nccl_wheel_version(const json& torch_entry) {
  const json& installed = field(torch_entry, "nvidia_installed");
  if (installed.is_object())
    for (const auto& [name, version] : installed.items())
      if (name.rfind("nvidia-nccl", 0) == 0) return text(version);
  return std::nullopt;
}

// The job's PyTorch (dlready's own module) and the NCCL it would load: the nvidia-nccl wheel beside
// that torch (read with the module, whether or not a Python environment is active), else beside the
// first torch found, else the loader's libnccl.so.2 when its file name carries a version — never
// the soname's major alone ("2"), which two snapshots of one machine would show as a change.
void job_torch_and_nccl(const json& f, Stack& s) {
  const json& own = field(f, "own_module");
  std::string version = text(field(own, "torch_version"));
  std::string lib_dir = text(field(own, "libtorch_dir"));
  if (!version.empty()) {
    StackTorch t{version, version, cuda_of_local_version(version).value_or("")};
    if (!t.cuda.empty()) t.shown += " (CUDA " + t.cuda + ")";
    add(s, "python", "dlready's LibTorch", t.shown);
    s.job_torch = t;
  }
  s.nccl = text(field(own, "nccl_version"));
  std::string first_wheel;
  if (s.nccl.empty() && field(f, "python_envs").is_array())
    for (const auto& e : f.at("python_envs"))
      if (field(e, "torch").is_array())
        for (const auto& t : e.at("torch")) {
          std::string sp = text(field(t, "site_packages"));
          auto nccl = nccl_wheel_version(t);
          if (!lib_dir.empty() && !sp.empty() && lib_dir.rfind(sp + "/", 0) == 0 && nccl)
            s.nccl = *nccl;
          if (first_wheel.empty()) first_wheel = nccl.value_or("");
        }
  if (s.nccl.empty()) s.nccl = first_wheel;
  if (s.nccl.empty() && field(f, "cuda_libraries").is_array())
    for (const auto& l : f.at("cuda_libraries"))
      if (std::string v = text(field(l, "version")); text(field(l, "soname")) == "libnccl.so.2" && v.find('.') != std::string::npos)
        s.nccl = v;
  add(s, "cuda", "NCCL", s.nccl);
}

// The rows of a fact group's table that the snapshot compares, read from the group's JSON.
template <class Group>
void add_compared(Stack& s, const std::string& area, const json& group, const FactTable<Group>& rows) {
  for (const auto& row : rows) {
    if (row.snapshot == SnapshotAs::no) continue;
    const json& value = field(group, row.key);
    add(s, area, row.snapshot_label ? row.snapshot_label : row.key,
        row.snapshot == SnapshotAs::gib            ? gib(value)
        : row.snapshot == SnapshotAs::cuda_version ? cuda_version(value)
                                                   : text(value));
  }
}

}  // namespace

Stack stack_from_json(const json& doc) {
  Stack s;
  if (!doc.is_object() || !doc.contains("facts") || !doc.at("facts").is_object()) {
    s.error = "not a dlready snapshot or doctor report (no \"facts\" object)";
    return s;
  }
  const json& meta = field(doc, "snapshot");
  s.host = text(field(meta, "host"));
  s.created = text(field(meta, "created"));
  const json& f = doc.at("facts");
  const json& os = field(f, "os");
  add_compared(s, "system", os, os_fields());

  add_compared(s, "driver", field(f, "kernel_driver"), kernel_driver_fields());
  add_compared(s, "driver", field(f, "nvml"), nvml_fields());
  add_compared(s, "driver", field(f, "driver_api"), driver_api_fields());
  add(s, "driver", "libcuda", text(field(field(f, "libcuda"), "version")));  // of the libraries, only libcuda's
  s.driver = text(field(field(f, "kernel_driver"), "loaded_version"));
  if (s.driver.empty()) s.driver = text(field(field(f, "nvml"), "driver_version"));
  gpus(f, s);

  const std::string home = text(field(field(f, "environment"), "HOME"));
  if (field(f, "cuda_toolkits").is_array())
    for (const auto& t : f.at("cuda_toolkits"))
      add(s, "cuda", "toolkit " + home_label(text(field(t, "path")), home), text(field(t, "version")));
  if (field(f, "cuda_libraries").is_array())
    for (const auto& l : f.at("cuda_libraries")) add(s, "cuda", text(field(l, "soname")), text(field(l, "version")));

  python_envs(f, s);
  if (field(f, "libtorch").is_array())
    for (const auto& l : f.at("libtorch"))
      add(s, "python", "libtorch " + home_label(text(field(l, "path")), home), text(field(l, "build_version")));
  job_torch_and_nccl(f, s);
  environment_findings(doc, s);
  add(s, "blas", "BLAS", text(field(field(f, "blas"), "implementation")));
  if (field(f, "environment").is_object())
    for (const auto& [k, v] : f.at("environment").items())
      // Who ran it and which environment their shell had activated describe the session, not the
      // machine: the environments themselves are compared under python.
      if (k != "HOME" && k != "USER" && k != "VIRTUAL_ENV" && k != "CONDA_PREFIX" && k != "CONDA_DEFAULT_ENV")
        add(s, "environment", k, text(v));
  return s;
}

SnapshotFile load_snapshot_file(const std::string& path) {
  SnapshotFile out;
  constexpr uint64_t kMaxSnapshotBytes = 64 << 20;  // a snapshot is tens of KiB
  auto file = read_regular_file(path, kMaxSnapshotBytes, "a snapshot");
  if (!file.bytes) {
    out.error = file.error + "; make one with: dlready snapshot --out FILE";
    return out;
  }
  std::string why;
  out.doc = parse_json_bounded(*file.bytes, &why);
  if (out.doc.is_discarded())
    out.error = path + ": " + (why == "not JSON" ? std::string("not valid JSON") : why + ", not a snapshot") +
                " (truncated or edited?); make a new one with: dlready snapshot --out FILE";
  return out;
}

Stack read_stack(const std::string& path) {
  auto file = load_snapshot_file(path);
  if (!file.error.empty()) {
    Stack s;
    s.error = file.error;
    return s;
  }
  Stack s = stack_from_json(file.doc);
  if (!s.error.empty()) s.error = path + ": " + s.error;
  return s;
}

json make_snapshot(json doctor_report, const std::string& host, const std::string& created) {
  doctor_report["schema"] = "dlready.snapshot/1";
  doctor_report["snapshot"] = {{"host", host}, {"created", created}, {"report_schema", "dlready.doctor/1"}};
  return doctor_report;
}

ExitCode write_snapshot(const nlohmann::json& snapshot, const std::string& out) {
  std::string text = json_text(snapshot, 2) + "\n";
  if (out.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return ExitCode::ok;
  }
  if (auto st = write_file_atomically(out, text); !st) {
    std::fprintf(stderr, "dlready snapshot: %s\n", st.error().c_str());
    return unusable_output_path(out) ? ExitCode::usage : ExitCode::failed;
  }
  std::fprintf(stderr, "dlready snapshot: wrote %s (compare two with: dlready diff A B)\n", out.c_str());
  return ExitCode::ok;
}

}  // namespace dlready
