#include "snapshot/stack.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace dlready {
namespace {

using nlohmann::json;

// A JSON value as text: strings bare, null as "", numbers and booleans as JSON writes them.
std::string text(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

const json& at(const json& j, const char* key) {
  static const json null_value;
  return j.is_object() && j.contains(key) ? j.at(key) : null_value;
}

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

void gpus(const json& f, Stack& s) {
  // The driver API knows compute capability and memory; NVML's list stands in when it did not run.
  const json& drv = at(at(f, "driver_api"), "devices");
  const json& nvml = at(at(f, "nvml"), "devices");
  const json& list = drv.is_array() && !drv.empty() ? drv : nvml;
  if (!list.is_array()) return;
  for (const auto& d : list) {
    std::string v = text(at(d, "name"));
    if (at(d, "cc_major").is_number())
      v += ", compute capability " + text(at(d, "cc_major")) + "." + text(at(d, "cc_minor"));
    std::string mem = gib(at(d, "memory_bytes").is_number() ? at(d, "memory_bytes") : at(d, "memory_total"));
    if (!mem.empty()) v += ", " + mem;
    add(s, "gpus", "gpu " + text(at(d, "index")), v);
  }
  add(s, "gpus", "GPU count", std::to_string(list.size()));
}

}  // namespace

Stack stack_from_json(const json& doc) {
  Stack s;
  if (!doc.is_object() || !doc.contains("facts") || !doc.at("facts").is_object()) {
    s.error = "not a dlready snapshot or doctor report (no \"facts\" object)";
    return s;
  }
  const json& meta = at(doc, "snapshot");
  s.host = text(at(meta, "host"));
  s.created = text(at(meta, "created"));
  const json& f = doc.at("facts");
  const json& os = at(f, "os");
  for (const char* k : {"pretty_name", "kernel", "arch", "glibc", "libstdcxx", "cpu_model", "cpu_count", "container"})
    add(s, "system", k, text(at(os, k)));
  add(s, "system", "memory", gib(at(os, "memory_bytes")));
  add(s, "system", "/dev/shm", gib(at(os, "shm_bytes")));

  add(s, "driver", "kernel module", text(at(at(f, "kernel_driver"), "loaded_version")));
  add(s, "driver", "NVML driver version", text(at(at(f, "nvml"), "driver_version")));
  add(s, "driver", "CUDA version of the driver", cuda_version(at(at(f, "driver_api"), "driver_version")));
  add(s, "driver", "libcuda", text(at(at(f, "libcuda"), "version")));
  gpus(f, s);

  if (at(f, "cuda_toolkits").is_array())
    for (const auto& t : f.at("cuda_toolkits")) add(s, "cuda", "toolkit " + text(at(t, "path")), text(at(t, "version")));
  if (at(f, "cuda_libraries").is_array())
    for (const auto& l : f.at("cuda_libraries")) add(s, "cuda", text(at(l, "soname")), text(at(l, "version")));

  if (at(f, "python_envs").is_array()) {
    for (const auto& e : f.at("python_envs")) {
      std::string prefix = text(at(e, "prefix"));
      add(s, "python", "python " + prefix, text(at(e, "python_version")));
      if (!at(e, "torch").is_array()) continue;
      for (const auto& t : e.at("torch")) {
        std::string v = text(at(t, "version"));
        if (!text(at(t, "cuda")).empty()) v += " (CUDA " + text(at(t, "cuda")) + ")";
        add(s, "python", "torch " + text(at(t, "site_packages")), v);
      }
    }
  }
  if (at(f, "libtorch").is_array())
    for (const auto& l : f.at("libtorch")) add(s, "python", "libtorch " + text(at(l, "path")), text(at(l, "build_version")));
  add(s, "blas", "BLAS", text(at(at(f, "blas"), "implementation")));
  if (at(f, "environment").is_object())
    for (const auto& [k, v] : f.at("environment").items())
      if (k != "HOME" && k != "USER") add(s, "environment", k, text(v));
  return s;
}

SnapshotFile load_snapshot_file(const std::string& path) {
  SnapshotFile out;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    out.error = path + ": cannot read it (does it exist? make one with: dlready snapshot --out " + path + ")";
    return out;
  }
  std::stringstream buf;
  buf << in.rdbuf();
  out.doc = json::parse(buf.str(), nullptr, /*allow_exceptions=*/false);
  if (out.doc.is_discarded())
    out.error = path + ": not valid JSON (truncated or edited?); make a new one with: dlready snapshot --out FILE";
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

}  // namespace dlready
