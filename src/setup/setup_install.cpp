#include "setup/setup_install.hpp"
#include "setup/plan_commands.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/json_text.hpp"
#include "os/atomic_file.hpp"
#include "os/process_runner.hpp"
#include "os/stop_signal.hpp"
#include "os/bounded_file.hpp"
#include "os/tcp_connect.hpp"
#include "core/redact.hpp"
#include "core/text.hpp"
#include "setup/logged_run.hpp"
#include "compat/compat.hpp"
#include "doctor/examine.hpp"

namespace dlready {
namespace {

namespace fs = std::filesystem;

void say(const std::string& line) { std::printf("  %s\n", line.c_str()); }

// Whether a TCP connection to the URL's host can be made (ok too when the URL is no http(s) one),
// else the resolver's or connect's words; 5 s at most for the connect.
Status connect_to_index(const std::string& url) {
  auto scheme = url.find("://");
  if (scheme == std::string::npos) return {};
  std::string proto = url.substr(0, scheme), rest = url.substr(scheme + 3);
  if (proto != "http" && proto != "https") return {};
  std::string hostport = rest.substr(0, rest.find('/'));
  if (auto at = hostport.rfind('@'); at != std::string::npos) hostport = hostport.substr(at + 1);
  std::string host = hostport, port = proto == "https" ? "443" : "80";
  if (auto colon = hostport.rfind(':'); colon != std::string::npos && hostport.find(']') == std::string::npos)
    host = hostport.substr(0, colon), port = hostport.substr(colon + 1);
  auto attempt = tcp_connect(host, port, 5000);
  if (attempt.fd < 0) return Status::failure(attempt.error);
  ::close(attempt.fd);
  return {};
}

// The index could not be reached (pip's and uv's words for it, or a connection of our own that
// fails): which one, and the flags that point the install at a mirror. "" when the failure is
// something else.
std::optional<std::string> unreachable_index_hint(const InstallPlan& plan,
                                                  const std::string& tail) {
  static const char* kNetwork[] = {"Failed to establish a new connection", "Name or service not known",
                                   "Temporary failure in name resolution", "Network is unreachable", "No route to host",
                                   "Connection refused", "timed out", "Could not fetch URL", "SSLError",
                                   "error sending request", "dns error", "failed to lookup address", "tcp connect error"};
  std::string why;
  for (const char* k : kNetwork)
    if (tail.find(k) != std::string::npos) {
      why = k;
      break;
    }
  if (why.empty())
    why = connect_to_index(plan.index_url).error();  // pip without retries says nothing about it
  if (why.empty()) return std::nullopt;
  std::string pypi_default;
  for (const auto& v : torch_variants())
    if (v.torch == plan.release && v.pypi_default) pypi_default = v.variant;
  std::string hint = "could not reach " + without_credentials(plan.index_url) + " (" + why + "): no network to it from here? ";
  bool on_pypi = plan.index_url.find("pypi.org") != std::string::npos;
  if (pypi_default == plan.variant && !on_pypi)
    hint += "PyPI serves " + plan.release + "'s " + plan.variant + " build: --index-url https://pypi.org/simple (or a "
            "PyPI mirror's URL); ";
  else if (plan.variant == "cpu" && !pypi_default.empty())
    hint += "PyPI's default build (" + pypi_default + ") runs on the CPU too: --index-url https://pypi.org/simple (or a "
            "PyPI mirror's URL); ";
  hint += "a mirror: ";
  return hint + "--torch-index URL (a mirror of https://download.pytorch.org/whl/, with " + plan.variant +
         "/ under it); a proxy: set HTTPS_PROXY";
}

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  return find_on_path(program, path ? path : "").has_value();
}

}  // namespace

Status check_target(const std::string& dir, const std::string& python) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return {};
  if (!fs::is_directory(dir, ec)) return Status::failure(dir + " is not a folder");
  if (std::string cfg_path = (fs::path(dir) / "pyvenv.cfg").string(); fs::exists(cfg_path, ec)) {
    auto cfg = read_regular_file(cfg_path, 64 << 10, "a pyvenv.cfg");  // a FIFO or /dev/zero is refused
    if (!cfg.bytes) return Status::failure(cfg.error);
    for (const char* key : {"version", "version_info"})  // python -m venv's, uv's
      if (auto v = find_assignment(*cfg.bytes, key); v && !starts_with(*v + ".", python + "."))
        return Status::failure(dir + " is a virtual environment of Python " + *v + ", not " + python +
               ": give --python " + v->substr(0, v->rfind('.')) + ", or another folder");
    return {};
  }
  if (fs::is_empty(dir, ec)) return {};
  return Status::failure(dir + " is not a virtual environment (no pyvenv.cfg) and not empty: dlready setup never installs into a "
               "system Python or its global site-packages (pip would change what the system's own tools use); "
               "give a new folder, e.g. dlready setup ~/venvs/torch");
}

namespace {

const char* kProof = R"PY(
import json, sys
out = {"python": sys.version.split()[0]}
try:
    import torch
except Exception as e:
    out["error"] = "import torch: %s: %s" % (type(e).__name__, e); print(json.dumps(out)); sys.exit(0)
out.update(version=torch.__version__, cuda=torch.version.cuda, available=bool(torch.cuda.is_available()),
           cudnn=torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None, devices=[])
for i in range(torch.cuda.device_count() if out["available"] else 0):
    out["devices"].append({"name": torch.cuda.get_device_name(i), "cc": "%d.%d" % torch.cuda.get_device_capability(i)})
try:
    dev = "cuda" if out["available"] else "cpu"
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(2000, 2000, generator=g), torch.randn(2000, 2000, generator=g)
    ref = (a.double() @ b.double())
    got = (a.to(dev) @ b.to(dev)).cpu().double()
    out["matmul_device"] = dev
    out["matmul_max_rel_error"] = float(((got - ref).abs().max() / ref.abs().max()).item())
except Exception as e:
    out["error"] = "matmul: %s: %s" % (type(e).__name__, e)
print(json.dumps(out))
)PY";

// The tutorials' check, in the environment's own Python; then the doctor's verdict for it.
bool prove(const InstallRequest& req, const std::vector<std::string>& python, const std::string& log) {
  std::string py = join(python, " ");
  std::vector<std::string> argv = python;
  argv.insert(argv.end(), {"-c", kProof});
  auto r = run_logged(argv, log, 600);
  std::ifstream in(log);
  std::string last;
  for (std::string l; std::getline(in, l);)
    if (starts_with(l, "{")) last = l;
  auto j = parse_json_bounded(last);
  if (r.status != 0 || j.is_discarded() || !j.is_object()) {
    say("proof: " + py + " did not run the check (exit " + std::to_string(r.status) + "):\n" + r.tail);
    return false;
  }
  if (j.contains("error")) {
    say("proof: FAILED: " + j["error"].get<std::string>());
    return false;
  }
  say("proof: torch " + j.value("version", "?") + ", torch.version.cuda " +
      (j["cuda"].is_string() ? j["cuda"].get<std::string>() : "None") + ", cuda.is_available() " +
      (j.value("available", false) ? "True" : "False") + ", cuDNN " + (j["cudnn"].is_null() ? "none" : j["cudnn"].dump()));
  for (const auto& d : j["devices"]) say("proof: " + d.value("name", "?") + ", compute capability " + d.value("cc", "?"));
  double err = j.value("matmul_max_rel_error", 1.0);
  bool matmul_ok = err < 1e-3;
  char line[160];
  std::snprintf(line, sizeof line, "proof: 2000x2000 matmul on %s vs float64 on the CPU: max rel. error %.1e (%s)",
                j.value("matmul_device", "?").c_str(), err, matmul_ok ? "ok" : "WRONG");
  say(line);
  bool cuda_ok = !req.expect_gpu || j.value("available", false);
  if (!cuda_ok) say("proof: FAILED: the plan is a CUDA build for the GPUs here, but torch.cuda.is_available() is False");
  if (req.conda_name.empty()) {
    GatherOptions opt;
    opt.env = process_environment();
    opt.env["VIRTUAL_ENV"] = fs::absolute(req.env_dir).string();
    auto e = examine(opt);
    say("doctor: " + (e.error.empty() ? e.report.verdict.summary : e.error));
  }
  return matmul_ok && cuda_ok;
}

std::vector<std::string> install_command(const std::string& tool, const InstallPlan& p, const InstallRequest& req,
                                         bool resolve_only) {
  std::string py = req.env_dir + "/bin/python";
  std::vector<std::string> argv = tool == "uv" ? std::vector<std::string>{"uv", "pip", "install", "--python", py}
                                               : std::vector<std::string>{py, "-m", "pip", "install",
                                                                          "--disable-pip-version-check", "--no-input"};
  argv.push_back(p.requirement);
  for (const auto& w : req.with) argv.push_back(w);
  argv.insert(argv.end(), {"--index-url", p.index_url});
  if (resolve_only) argv.push_back("--dry-run");
  return argv;
}

}  // namespace

ExitCode carry_out_conda(const InstallPlan& plan, const InstallRequest& req) {
  bool ok_name = !req.conda_name.empty() && req.conda_name.find_first_not_of(
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == std::string::npos;
  if (!ok_name) {
    std::fprintf(stderr, "dlready setup: --conda %s: a conda environment name is letters, digits, '.', '_' and '-'\n",
                 req.conda_name.c_str());
    return ExitCode::usage;
  }
  std::string yaml = environment_yml(plan, req.conda_name, req.python, req.with);
  std::error_code ec;
  if (fs::exists("environment.yml", ec)) {
    auto old = read_regular_file("environment.yml", 1 << 20, "an environment.yml");
    if (!old.bytes || (*old.bytes != yaml && old.bytes->find("# dlready setup --conda") != 0)) {
      std::fprintf(stderr, "dlready setup: ./environment.yml exists and is not dlready's: move it, or run from "
                           "another folder\n");
      return ExitCode::usage;
    }
  }
  if (auto st = write_file_atomically("environment.yml", yaml); !st) {
    std::fprintf(stderr, "dlready setup: %s\n", st.error().c_str());
    return ExitCode::failed;
  }
  std::printf("dlready setup: wrote ./environment.yml (conda environment %s)\n", req.conda_name.c_str());
  std::string conda = on_path("mamba") ? "mamba" : on_path("conda") ? "conda" : "";
  if (conda.empty()) {
    say("no conda or mamba on PATH: conda env create -f environment.yml && conda activate " + req.conda_name);
    return ExitCode::ok;
  }
  fs::path logs = fs::temp_directory_path() / ("dlready-setup-" + std::to_string(::getpid()));
  fs::create_directories(logs, ec);
  std::vector<std::string> update{conda, "env", "update", "--name", req.conda_name, "--file", "environment.yml"};
  say("install: " + shell_join(update));
  if (auto r = run_logged(update, (logs / "conda.log").string(), 3600, true); r.status != 0) {
    say(conda + " env update failed (exit " + std::to_string(r.status) + ")");
    if (auto hint = unreachable_index_hint(plan, r.tail)) say(*hint);
    fs::remove_all(logs, ec);
    return ExitCode::failed;
  }
  bool proven = !req.verify || prove(req, {conda, "run", "--name", req.conda_name, "python"}, (logs / "proof.log").string());
  fs::remove_all(logs, ec);
  if (!req.verify) say("proof skipped (--no-verify)");
  std::printf("dlready setup: %s\n", proven ? ("ready: conda activate " + req.conda_name).c_str()
                                            : "NOT READY: see the proof above");
  return proven ? ExitCode::ok : ExitCode::failed;
}

std::optional<std::string> installed_torch(const std::string& env_dir) {
  std::error_code ec;
  for (const auto& lib : {"lib", "lib64"}) {
    fs::path base = fs::path(env_dir) / lib;
    if (!fs::is_directory(base, ec)) continue;
    for (const auto& py : fs::directory_iterator(base, ec)) {
      fs::path site = py.path() / "site-packages";
      if (!fs::is_directory(site, ec)) continue;
      for (const auto& e : fs::directory_iterator(site, ec)) {
        std::string name = e.path().filename().string();
        if (starts_with(name, "torch-") && ends_with(name, ".dist-info")) return name.substr(6, name.size() - 16);
      }
    }
  }
  return std::nullopt;
}

bool satisfies(const std::string& installed, const InstallPlan& plan) {
  if (!starts_with(installed, plan.release + ".")) return false;
  auto plus = installed.find('+');
  if (plus != std::string::npos) return installed.substr(plus + 1) == plan.variant;
  // No local label: PyPI's build of the release, its default variant.
  for (const auto& v : torch_variants())
    if (v.torch == plan.release && v.pypi_default) return v.variant == plan.variant;
  return false;
}

ExitCode carry_out(const InstallPlan& plan, const InstallRequest& req) {
  if (Status target = check_target(req.env_dir, req.python); !target.ok()) {
    std::fprintf(stderr, "dlready setup: %s\n", target.error().c_str());
    return ExitCode::usage;
  }
  std::string tool = req.tool == "auto" ? (on_path("uv") ? "uv" : "pip") : req.tool;
  if (tool == "uv" && !on_path("uv")) {
    std::fprintf(stderr, "dlready setup: --tool uv, but uv is not on PATH (pip install uv, or --tool pip)\n");
    return ExitCode::usage;
  }
  std::error_code ec;
  bool existed = fs::exists(fs::path(req.env_dir) / "pyvenv.cfg", ec);
  bool folder_existed = fs::exists(req.env_dir, ec);  // an empty folder the user made is theirs to keep
  const std::optional<std::string> have = existed ? installed_torch(req.env_dir) : std::nullopt;
  std::printf("dlready setup: %s\n", (req.env_dir + (existed ? " (existing)" : " (new)") + ", tool " + tool).c_str());
  fs::path logs = fs::temp_directory_path() / ("dlready-setup-" + std::to_string(::getpid()));
  fs::create_directories(logs, ec);
  // Ctrl-C ends the installer with what it started (os/process_runner.hpp) and comes here as a
  // failed step: the same clean-up, one line, exit 130.
  StopOnSignal stop;
  auto fail = [&](const std::string& step, const Ran& r) {
    if (r.interrupted || stop.requested())
      say("interrupted during " + step + ": stopped it and everything it started");
    else
      say(step + " failed (exit " + std::to_string(r.status) + ")" + (r.streamed ? "" : "; its last lines:\n" + r.tail));
    if (auto hint = unreachable_index_hint(plan, r.tail); hint && !stop.requested()) say(*hint);
    if (!existed && !folder_existed) {
      fs::remove_all(req.env_dir, ec);  // this run created it: leave nothing half-made
      say("removed " + req.env_dir + " (this run created it)");
    } else if (!existed) {
      // The folder was there (empty) before: only what this run put in it goes.
      for (const auto& entry : fs::directory_iterator(req.env_dir, ec)) fs::remove_all(entry.path(), ec);
      say("emptied " + req.env_dir + " again (the folder was there before this run; what it put there is removed)");
    } else {
      say(req.env_dir + " left as it was");
    }
    fs::remove_all(logs, ec);
    return stop.requested() ? ExitCode::interrupted : ExitCode::failed;
  };
  if (have && satisfies(*have, plan) && req.with.empty()) {
    say("already holds torch " + *have + ": nothing to install");
  } else {
    if (!existed) {
      std::vector<std::string> make = tool == "uv" ? std::vector<std::string>{"uv", "venv", "--python", req.python, req.env_dir}
                                                   : std::vector<std::string>{"python" + req.python, "-m", "venv", req.env_dir};
      say("create: " + shell_join(make));
      if (auto r = run_logged(make, (logs / "venv.log").string(), 300); r.status != 0 || stop.requested())
        return fail("create", r);
    }
    if (existed) {  // resolve first: a broken index or a conflict is found before anything changes
      say("resolve: " + shell_join(install_command(tool, plan, req, true)));
      if (auto r = run_logged(install_command(tool, plan, req, true), (logs / "resolve.log").string(), 1800, true);
          r.status != 0 || stop.requested())
        return fail("resolve (" + tool + ")", r);
    }
    say("install: " + shell_join(install_command(tool, plan, req, false)));
    if (auto r = run_logged(install_command(tool, plan, req, false), (logs / "install.log").string(), 3600, true);
        r.status != 0 || stop.requested())
      return fail("install (" + tool + ")", r);
    say("installed torch " + installed_torch(req.env_dir).value_or("(no torch dist-info found in " + req.env_dir + ")"));
  }
  bool proven = !req.verify || prove(req, {req.env_dir + "/bin/python"}, (logs / "proof.log").string());
  fs::remove_all(logs, ec);
  if (stop.requested()) {
    say("interrupted during the proof: " + req.env_dir + " holds the installed torch, not proven (dlready verify proves it)");
    return ExitCode::interrupted;
  }
  if (!req.verify) say("proof skipped (--no-verify)");
  std::printf("dlready setup: %s\n", proven ? ("ready: " + req.env_dir + "/bin/python").c_str()
                                            : "NOT READY: see the proof above");
  return proven ? ExitCode::ok : ExitCode::failed;
}

Installer venv_installer() {
  Installer i;
  i.check = [](const SetupRequest& a, const PlanMachine& m) { return check_target(a.env_dir, m.python); };
  i.install = [](const SetupPlan& s, const SetupRequest& a) {
    InstallRequest req;
    req.env_dir = a.env_dir, req.python = s.machine.python, req.with = a.with, req.tool = a.tool, req.verify = !a.no_verify;
    req.expect_gpu = !s.machine.gpus.empty();
    req.conda_name = a.conda;
    return a.conda.empty() ? carry_out(s.plan, req) : carry_out_conda(s.plan, req);
  };
  return i;
}

}  // namespace dlready
