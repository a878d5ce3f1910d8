// Issue 35, item 1: the lock `dlready export` writes reinstalls exactly what the environment has.
// Proof by pip's own resolver (`pip install --dry-run --report`), through the binary, against a
// local PEP 503 index that serves what the environment holds: its PyPI distributions on "pypi",
// a "+cu130" build only on PyTorch's cu130 index (as download.pytorch.org and PyPI do).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fixture.hpp"
#include "package_index.hpp"

namespace dlready::test {
namespace {

const std::string kBin = DLREADY_BINARY;
const std::string kPytorchIndex = "https://download.pytorch.org/whl/";

bool host_pip() { return command_output("python3 -m pip --version >/dev/null 2>&1 && echo yes") == "yes\n"; }

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

struct Resolved {
  bool ok = false;
  std::string log;
  std::map<std::string, std::string> install;  // name -> version, as pip's report says
};

// pip's resolver on `args` (requirements or pins), every index redirected to the local one.
Resolved resolve(const Fixture& work, const PackageIndex& index, const std::string& args) {
  std::string report = work.root + "/report.json";
  ::unlink(report.c_str());
  std::string cmd = "env PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_RETRIES=0 PIP_NO_CACHE_DIR=1 "
                    "python3 -m pip install --dry-run --ignore-installed --quiet --report " + report +
                    " --index-url " + index.url() + "pypi/ " + replace_all(args, kPytorchIndex, index.url()) +
                    " 2>&1; echo rc=$?";
  Resolved r;
  r.log = command_output(cmd);
  r.ok = r.log.find("rc=0") != std::string::npos;
  if (!r.ok) return r;
  auto j = nlohmann::json::parse(read_text(report), nullptr, false);
  if (j.is_discarded()) return r;
  for (const auto& item : j["install"])
    r.install[item["metadata"]["name"].get<std::string>()] = item["metadata"]["version"].get<std::string>();
  return r;
}

// The pins of a conda environment.yml's pip section, as a requirements file.
std::string pip_section(const std::string& yml) {
  std::istringstream in(yml);
  std::string line, out;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line == "  - pip:") inside = true;
    else if (inside && line.rfind("    - ", 0) == 0) out += line.substr(6) + "\n";
    else inside = false;
  }
  return out;
}

// The arguments of the Dockerfile's `RUN pip install` line.
std::string run_pip_args(const std::string& dockerfile) {
  const std::string lead = "RUN pip install --no-cache-dir ";
  auto at = dockerfile.find(lead);
  if (at == std::string::npos) return "";
  auto end = dockerfile.find('\n', at);
  return dockerfile.substr(at + lead.size(), end - at - lead.size());
}

// Each exported format, through the binary, resolved by pip to exactly `expected`.
void expect_every_format_reinstalls(Fixture& machine, const std::vector<std::string>& served,
                                    const std::map<std::string, std::string>& expected) {
  Fixture work;
  PackageIndex index(work.root, served);
  std::string snap = work.root + "/snap.json";
  ASSERT_EQ(std::system(("env VIRTUAL_ENV=/home/alice/venv " + kBin + " snapshot --root " + machine.root +
                         " --no-driver-probe --out " + snap + " >/dev/null").c_str()), 0);
  for (const char* format : {"requirements", "conda", "dockerfile"}) {
    std::string file = work.root + "/lock." + format;
    ASSERT_EQ(std::system((kBin + " export " + snap + " --format " + format + " --out " + file).c_str()), 0) << format;
    std::string text = read_text(file), args;
    if (std::string(format) == "dockerfile") {
      args = run_pip_args(text);
    } else {
      // The file as pip reads it, its PyTorch index redirected to the local one.
      std::string req = work.root + "/from." + format + ".txt";
      std::ofstream(req) << replace_all(std::string(format) == "conda" ? pip_section(text) : text, kPytorchIndex,
                                        index.url());
      args = "-r " + req;
    }
    auto r = resolve(work, index, args);
    ASSERT_TRUE(r.ok) << format << ": pip refused the lock\n" << text << "\n" << r.log;
    EXPECT_EQ(r.install, expected) << format << "\n" << text;
  }
}

// The healthy machine with torch 2.11.0+cu130 from PyTorch's own index (its dist-info says so);
// the venv's site-packages.
std::string pytorch_index_torch_machine(Fixture& machine) {
  healthy_gpu_machine(machine);
  const std::string sp = "/home/alice/venv/lib/python3.11/site-packages";
  machine.remove(sp + "/torch-2.11.0.dist-info");
  TorchSpec spec;
  spec.from_pytorch_index = true;
  add_torch_venv(machine, "/home/alice/venv", spec);
  return sp;
}

TEST(ExportResolves, APyPITorchIsPinnedAsPipRecordedIt) {
  if (!host_pip()) GTEST_SKIP() << "no python3 -m pip here";
  Fixture machine;
  healthy_gpu_machine(machine);  // torch 2.11.0 from PyPI: version.py "2.11.0+cu130", dist-info "2.11.0"
  const std::string sp = "/home/alice/venv/lib/python3.11/site-packages";
  machine.mkdir(sp + "/torchvision-0.26.0.dist-info");
  machine.mkdir(sp + "/numpy-2.4.6.dist-info");
  machine.mkdir(sp + "/typing_extensions-4.16.0.dist-info");
  expect_every_format_reinstalls(
      machine,
      {"pypi/torch==2.11.0", "pypi/torchvision==0.26.0", "pypi/numpy==2.4.6", "pypi/typing_extensions==4.16.0",
       "pypi/nvidia-cudnn-cu13==9.19.0.56", "pypi/nvidia-nccl-cu13==2.28.9",
       // PyTorch's index also has its own build: a lock that names it would reinstall another wheel.
       "2.11.0+cu130"},
      {{"torch", "2.11.0"}, {"torchvision", "0.26.0"}, {"numpy", "2.4.6"}, {"typing_extensions", "4.16.0"},
       {"nvidia-cudnn-cu13", "9.19.0.56"}, {"nvidia-nccl-cu13", "2.28.9"}});
}

TEST(ExportResolves, AWheelFromPytorchsIndexComesFromThere) {
  if (!host_pip()) GTEST_SKIP() << "no python3 -m pip here";
  Fixture machine;
  const std::string sp = pytorch_index_torch_machine(machine);
  machine.mkdir(sp + "/torchvision-0.26.0+cu130.dist-info");
  machine.mkdir(sp + "/numpy-2.4.6.dist-info");
  expect_every_format_reinstalls(
      machine,
      {"2.11.0+cu130", "cu130/torchvision==0.26.0+cu130", "pypi/numpy==2.4.6", "pypi/nvidia-cudnn-cu13==9.19.0.56",
       "pypi/nvidia-nccl-cu13==2.28.9"},
      {{"torch", "2.11.0+cu130"}, {"torchvision", "0.26.0+cu130"}, {"numpy", "2.4.6"},
       {"nvidia-cudnn-cu13", "9.19.0.56"}, {"nvidia-nccl-cu13", "2.28.9"}});
}

// Issue 50 item 13: `export --hashes` gives every pin the sha256 of its files on the index it comes
// from, so pip installs the lock with --require-hashes; Linux-only distributions carry torch's own
// marker; a pin the index does not have is named, in the file and on stderr, and the export fails.
struct HashedExport {
  int status = -1;
  std::string lock, log;
};
// `pip_env`: the PyPI mirror as PIP_INDEX_URL names it for pip, instead of --index-url.
HashedExport export_hashed(const Fixture& machine, const Fixture& work, const PackageIndex& index, bool pip_env = false) {
  std::string snap = work.root + "/snap.json", lock = work.root + "/lock.txt";
  EXPECT_EQ(std::system(("env VIRTUAL_ENV=/home/alice/venv " + kBin + " snapshot --root " + machine.root +
                         " --no-driver-probe --out " + snap + " >/dev/null 2>&1").c_str()), 0);
  std::string pypi = index.url() + "pypi/";
  auto r = run_command("env -u DLREADY_OFFLINE XDG_CACHE_HOME=" + work.root + "/cache " +
                       (pip_env ? "PIP_INDEX_URL=" + pypi + " " : "") + kBin + " export " + snap + " --hashes " +
                       (pip_env ? "" : "--index-url " + pypi + " ") + "--torch-index " + index.url() + " --out " + lock +
                       " 2>&1");
  return {r.status, read_text(lock), r.out};
}

TEST(ExportResolves, AHashedLockInstallsWithRequireHashes) {
  if (!host_pip()) GTEST_SKIP() << "no python3 -m pip here";
  Fixture machine, work;
  const std::string sp = pytorch_index_torch_machine(machine);
  machine.mkdir(sp + "/numpy-2.4.6.dist-info");
  PackageIndex index(work.root, {"2.11.0+cu130", "pypi/numpy==2.4.6", "pypi/nvidia-cudnn-cu13==9.19.0.56",
                                 "pypi/nvidia-nccl-cu13==2.28.9"});
  auto e = export_hashed(machine, work, index);
  ASSERT_EQ(e.status, 0) << e.log << e.lock;
  EXPECT_NE(e.lock.find("torch==2.11.0+cu130 \\\n    --hash=sha256:"), std::string::npos) << e.lock;
  EXPECT_NE(e.lock.find("nvidia-cudnn-cu13==9.19.0.56 ; platform_system == \"Linux\" \\\n    --hash=sha256:"),
            std::string::npos) << e.lock;
  EXPECT_NE(e.lock.find("pip install --require-hashes -r FILE: every one of the 4 pins"), std::string::npos) << e.lock;
  EXPECT_NE(e.lock.find("# not pinned here: the Python interpreter"), std::string::npos) << e.lock;
  std::string req = work.root + "/from-lock.txt";
  std::ofstream(req) << replace_all(e.lock, kPytorchIndex, index.url());
  auto r = resolve(work, index, "--require-hashes -r " + req);
  ASSERT_TRUE(r.ok) << "pip refused the hashed lock\n" << e.lock << "\n" << r.log;
  EXPECT_EQ(r.install, (std::map<std::string, std::string>{{"torch", "2.11.0+cu130"}, {"numpy", "2.4.6"},
                                                           {"nvidia-cudnn-cu13", "9.19.0.56"},
                                                           {"nvidia-nccl-cu13", "2.28.9"}}));
  // A wrong hash is caught by pip: the hashes are the files', not decoration.
  std::string forged = e.lock;
  auto at = forged.find("--hash=sha256:") + 14;
  forged[at] = forged[at] == '0' ? '1' : '0';
  std::ofstream(req) << replace_all(forged, kPytorchIndex, index.url());
  EXPECT_FALSE(resolve(work, index, "--require-hashes -r " + req).ok) << forged;
}

TEST(ExportResolves, APinTheIndexDoesNotHaveIsNamedAndTheExportFails) {
  Fixture machine, work;
  healthy_gpu_machine(machine);
  machine.mkdir("/home/alice/venv/lib/python3.11/site-packages/in_house_tool-0.3.dist-info");
  PackageIndex index(work.root, {"pypi/torch==2.11.0", "pypi/nvidia-cudnn-cu13==9.19.0.56", "pypi/nvidia-nccl-cu13==2.28.9"});
  auto e = export_hashed(machine, work, index, true);  // the mirror pip is told to use, as setup reads it
  EXPECT_EQ(e.status, 1) << e.log;
  EXPECT_NE(e.log.find("no hash for in-house-tool==0.3"), std::string::npos) << e.log;
  EXPECT_NE(e.log.find("pip install --require-hashes will refuse this file: 1 pin(s) have no hash"), std::string::npos) << e.log;
  EXPECT_NE(e.lock.find("# NOT installable with --require-hashes: no hash for 1 of 4 pins"), std::string::npos) << e.lock;
  EXPECT_NE(e.lock.find("torch==2.11.0 \\\n    --hash=sha256:"), std::string::npos) << "the others keep theirs: " << e.lock;
  auto conda = run_command(kBin + " export " + work.root + "/snap.json --format conda --hashes 2>&1");
  EXPECT_EQ(conda.status, 2) << conda.out;
  EXPECT_NE(conda.out.find("use --format requirements"), std::string::npos) << conda.out;
}

}  // namespace
}  // namespace dlready::test
