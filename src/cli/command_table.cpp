#include "cli/command_table.hpp"

namespace dlready {
namespace {

// What the Linux binary has and the others do not, and why: one line, the way to get it.
constexpr std::string_view kNeedsLinuxTorch =
    "runs on Linux only (its LibTorch is built for Linux); on Windows run it in WSL2 (wsl --install, then the "
    "Linux dlready inside) or on a Linux machine";
constexpr std::string_view kLinuxOnly = "is in the Linux build only (with the training runs it seals and audits); "
                                        "run it in WSL2 or on a Linux machine";
constexpr std::string_view kUnixShells = "is for the shells of Linux (bash, zsh, fish); run it in WSL2 or on a Linux machine";

constexpr CommandInfo kCommands[] = {
    {"doctor",
     "Probe the GPU deep-learning stack, diagnose it, recommend fixes",
     kEveryPlatform, ""},
    {"explain",
     "The cause and the fix of an error message or traceback (its text, --from FILE, or piped in); "
     "explain ID: a finding's entry",
     kEveryPlatform, ""},
    {"train",
     "Train the tutorials' reference job (MNIST-format data) on LibTorch",
     kLinux, kNeedsLinuxTorch},
    {"verify",
     "Prove the stack with real work on every device: READY / NOT READY",
     kLinux, kNeedsLinuxTorch},
    {"bench",
     "Measure GEMM, copies and training throughput against the device's peak",
     kLinux, kNeedsLinuxTorch},
    {"export-model",
     "Write a checkpoint's weights as the tutorial's state_dict: .pt (torch.load(FILE, "
     "weights_only=True)) or .safetensors (safetensors.torch.load_file(FILE))",
     kLinux, kNeedsLinuxTorch},
    {"eval",
     "Test accuracy, loss and confusion matrix of a checkpoint or a model file",
     kLinux, kNeedsLinuxTorch},
    {"quantize",
     "Write an int8 model (LibTorch's fbgemm kernels) and compare it with fp32: test "
     "accuracy, file size, CPU latency at batch 1 and throughput at batch 256",
     kLinux, kNeedsLinuxTorch},
    {"launch",
     "Start the local ranks of a data-parallel job (torchrun's environment): launch [opts] -- "
     "dlready train ...",
     kLinux, kNeedsLinuxTorch},
    {"snapshot",
     "Lock this machine's stack (driver, GPUs, CUDA, PyTorch, environment) into JSON",
     kEveryPlatform, ""},
    {"diff",
     "What differs between two snapshots (or doctor --json reports), and why it matters",
     kEveryPlatform, ""},
    {"export",
     "Write a snapshot's PyTorch stack as requirements.txt, environment.yml or a Dockerfile",
     kEveryPlatform, ""},
    {"capture",
     "Capture what the doctor reads here (redacted) for a bug report; dlready doctor --root "
     "replays it",
     kEveryPlatform, ""},
    {"setup",
     "Install the PyTorch that fits this machine into a virtual environment and prove it "
     "(--dry-run: the plan only, also for another machine)",
     kEveryPlatform, ""},
    {"keygen",
     "Write a new random key for encrypted checkpoints and models (mode 0600)",
     kLinux, kLinuxOnly},
    {"rekey",
     "Re-encrypt a checkpoint or model file with another key, atomically",
     kLinux, kLinuxOnly},
    {"audit",
     "The audit log of training runs",
     kLinux, kLinuxOnly},
    {"module",
     "The LibTorch module that train, verify, bench, eval, quantize and export-model run in "
     "(a wheel-installed dlready builds it against your torch)",
     kLinux, kNeedsLinuxTorch},
    {"completion",
     "Print shell completion: source <(dlready completion bash); zsh and fish too (cmake "
     "--install puts all three where the shells look)",
     kLinux, kUnixShells},
    {"man",
     "Print the dlready(1) manual page: man -l <(dlready man)",
     kLinux, kUnixShells},
};

}  // namespace

std::span<const CommandInfo> command_table() { return kCommands; }

}  // namespace dlready
