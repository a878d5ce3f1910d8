// `dlready snapshot` (lock the machine's stack into JSON), `dlready diff A B` (what differs
// between two snapshots, and why it matters) and `dlready export` (rebuild the PyTorch stack).
#pragma once
#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>
#include <optional>

#include "snapshot/export.hpp"
#include <string>

#include "cli/front_end.hpp"
#include "core/exit_code.hpp"
#include "core/status.hpp"

namespace dlready {

struct SnapshotArgs {
  std::string root = "/";
  std::string out;  // "" = standard output
  bool no_driver_probe = false;
  bool load_root_drivers = false;
  bool redact = false;  // as doctor --redact
  int timeout_ms = 10000;
};
struct ExportArgs {
  std::string snapshot, format = "requirements", out;
  bool hashes = false;  // --hashes: each pin's sha256 from the index, for pip --require-hashes
  // "": PIP_INDEX_URL, UV_INDEX_URL, else PyPI; DLREADY_TORCH_INDEX, else PyTorch's (setup's defaults)
  std::string index_url, torch_index;
};
// The platform's reader of an index for `export --hashes` (setup/lock_hashes.hpp): pins, the PyPI
// index, PyTorch's. Without one the option is not offered.
using IndexHashReader = LockHashes (*)(const std::vector<LockPin>&, const std::string&, const std::string&);
struct DiffArgs {
  std::string before, after;
  bool json = false;
};

void add_snapshot_commands(CLI::App& app, SnapshotArgs& snapshot, DiffArgs& diff, ExportArgs& exp);
ExitCode run_snapshot(const SnapshotArgs& args);
// This machine's snapshot (dlready.snapshot/1) as `dlready snapshot` takes it (--redact aside).
// A failure is one line (an unreadable --root).
Status take_snapshot(const SnapshotArgs& args, nlohmann::json& out);
// The GPUs CUDA would show a program here (cuDeviceGetCount under CUDA_VISIBLE_DEVICES): 0 with no
// driver or no device, nullopt when the probe could not tell (off, timed out, crashed).
std::optional<int> cuda_device_count(const SnapshotArgs& args);
ExitCode run_diff(const DiffArgs& args);
ExitCode run_export(const ExportArgs& args);
// snapshot, diff and export as every platform's front end wires them.
CommandGroup snapshot_command_group(IndexHashReader read_hashes = nullptr);

}  // namespace dlready
