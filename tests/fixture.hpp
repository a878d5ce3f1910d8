// Fixture roots: a fake machine in a temp directory, read by the doctor through --root.
// Building blocks add one part each (a GPU on the PCI bus, a loaded driver, a Python env, ...);
// `healthy_gpu_machine` assembles a working machine that scenarios then break in one place.
#pragma once
#include <sys/types.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "facts/findings.hpp"
#include "probe/gather.hpp"

namespace dlready::test {

class Fixture {
 public:
  Fixture();
  ~Fixture();
  Fixture(const Fixture&) = delete;
  Fixture& operator=(const Fixture&) = delete;

  std::string root;
  std::map<std::string, std::string> env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"HOME", "/home/alice"}};
  std::string user = "alice";
  int timeout_ms = 3000;

  std::string host(const std::string& path) const { return root + path; }
  void write(const std::string& path, const std::string& content, mode_t mode = 0644);
  void link(const std::string& path, const std::string& target);
  void mkdir(const std::string& path);
  void remove(const std::string& path);  // recursive
  void copy(const std::string& host_src, const std::string& path);

  GatherOptions options() const;
  Facts facts() const;
  Report report() const;
  // "env -i K='V' ...": a command line prefix that runs the binary in the fixture user's environment
  // (their venv, their home) and nothing of the test's own.
  std::string env_command() const;
};

// What a shell command prints on stdout (popen), for comparing with real tools.
std::string command_output(const std::string& cmd);
// The same with its exit status (-1 when a signal ended it).
struct CommandRun {
  int status;
  std::string out;
};
CommandRun run_command(const std::string& cmd);
// Starts `sh -c "exec cmd"` in a child (so its pid is cmd's); the caller signals and reaps it.
pid_t start_shell(const std::string& cmd);
// A shell command started in the background, both output streams into `log`; its pid.
pid_t start_in_background(const std::string& cmd, const std::string& log);
// Its exit status (128 + signal when killed), or -1 after `seconds` (it is killed then).
int wait_exit(pid_t pid, int seconds);
// A whole file ("" when it cannot be read).
std::string read_text(const std::string& path);

// Exit status dlready doctor would return for a report (1 on an error finding).
int exit_status(const Report& r, Severity threshold = Severity::error);
bool has_finding(const Report& r, const std::string& id);
std::string finding_ids(const Report& r);

// Building blocks.
void add_base_system(Fixture& f, const std::string& os_id = "debian");
void add_nvidia_gpu(Fixture& f, const std::string& address, const std::string& device_id,
                    const std::string& driver = "nvidia");
void add_pci_function(Fixture& f, const std::string& address, const std::string& vendor,
                      const std::string& device, const std::string& cls, const std::string& driver);
void add_loaded_driver(Fixture& f, const std::string& version, bool uvm = true);
void add_device_nodes(Fixture& f, int gpus, mode_t mode = 0666);
// Fake libcuda.so.1 / libnvidia-ml.so.1 of `version` in `dir`, behaviour from `conf` lines.
void add_user_driver(Fixture& f, const std::string& version, const std::string& conf,
                     const std::string& dir = "/usr/lib/x86_64-linux-gnu");
// Swaps the whole driver (loaded module, installed module, user-space libraries) for `version`.
void replace_driver(Fixture& f, const std::string& version, const std::string& conf);
void write_driver_conf(Fixture& f, const std::string& conf, const std::string& dir = "/usr/lib/x86_64-linux-gnu");
struct TorchSpec {
  std::string version = "2.11.0+cu130";
  std::string cuda = "13.0";  // "" = CPU build (cuda = None)
  std::map<std::string, std::string> pins = {{"nvidia-cudnn-cu13", "9.19.0.56"}, {"nvidia-nccl-cu13", "2.28.9"}};
  std::map<std::string, std::string> installed = {{"nvidia-cudnn-cu13", "9.19.0.56"}, {"nvidia-nccl-cu13", "2.28.9"}};
  // PyPI's wheel records "Version: 2.11.0" (no local label) while version.py says "+cu130";
  // download.pytorch.org's records the whole "2.11.0+cu130" in its dist-info.
  bool from_pytorch_index = false;
};
// A venv at `prefix` with torch; `active` sets VIRTUAL_ENV.
void add_torch_venv(Fixture& f, const std::string& prefix, const TorchSpec& spec, bool active = true);
void add_torch_to_site_packages(Fixture& f, const std::string& site_packages, const TorchSpec& spec);
// A minimal ELF kernel module with a .modinfo section carrying `version`.
void write_kernel_module(Fixture& f, const std::string& path, const std::string& version);
// An /etc/ld.so.cache in glibc's new format listing (soname, path) in order.
void write_ld_cache(Fixture& f, const std::vector<std::pair<std::string, std::string>>& entries);
std::string make_ld_cache(const std::vector<std::pair<std::string, std::string>>& entries);

// A working single-GPU H100 machine: driver 580.65.06 loaded, nodes, fake libraries, torch cu130.
void healthy_gpu_machine(Fixture& f);

}  // namespace dlready::test
