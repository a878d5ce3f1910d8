// The stack of a machine as `dlready diff` compares it: the items of a snapshot (or of any
// `dlready doctor --json` output) that change what a training job does — OS and C library,
// driver, GPUs, CUDA toolkit and libraries, Python and PyTorch installs, BLAS, environment.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/exit_code.hpp"

namespace dlready {

struct StackItem {
  std::string area;   // system, driver, gpus, cuda, python, blas, environment
  std::string key;    // stable within an area: what is compared with what ("gpu 0", "libcudnn.so.9")
  std::string value;  // as shown
};

// The facts the cross-machine checks reason with, kept typed beside their display items.
struct StackTorch {
  std::string shown;  // the item's value: "2.11.0+cu130 (CUDA 13.0)"
  std::string version, cuda;  // cuda "" = CPU build
};
struct StackGpu {
  std::string key, name;  // key as in the items ("gpu 0")
  int cc_major = -1, cc_minor = -1;  // -1: unknown (NVML only)
};

// A doctor finding about the environment (an invalid PYTORCH_CUDA_ALLOC_CONF, ...), from the report.
struct StackFinding {
  std::string id, severity, title, evidence;
};

struct Stack {
  std::string error;            // why the file is not a snapshot ("" = fine)
  std::string host, created;    // from a snapshot's metadata; empty for plain doctor output
  std::vector<StackItem> items;
  std::string driver;           // the driver version (loaded module, else NVML); "" unknown
  std::vector<StackTorch> torch;  // every PyTorch install found in a Python environment
  // The LibTorch `dlready train` loads (libdlready_train.so's), when it was probed: the build a
  // job launched with `dlready launch -- dlready train` runs.
  std::optional<StackTorch> job_torch;
  std::string nccl;  // NCCL of the job's PyTorch (its nvidia-nccl wheel), else the loader's libnccl.so.2
  std::vector<StackGpu> gpus;
  std::vector<StackFinding> environment_findings;  // warnings and errors the report gave
};

// A snapshot file parsed; `error` names the file and what is wrong with it.
struct SnapshotFile {
  nlohmann::json doc;
  std::string error;
};
SnapshotFile load_snapshot_file(const std::string& path);

Stack stack_from_json(const nlohmann::json& doc);
Stack read_stack(const std::string& path);  // errors name the file and what is wrong with it

// The snapshot document: the doctor's JSON report plus who/when, schema dlready.snapshot/1.
nlohmann::json make_snapshot(nlohmann::json doctor_report, const std::string& host, const std::string& created);
// The snapshot to `out` (atomically; a line on stderr says where) or to standard output when empty;
// a write that fails is one line and exit 1, never reported as written.
ExitCode write_snapshot(const nlohmann::json& snapshot, const std::string& out);

}  // namespace dlready
