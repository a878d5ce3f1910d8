// Options of the LibTorch commands (train, verify, bench): plain data parsed once by the CLI
// (which links no LibTorch) and handed to the module as JSON text (see module_abi.hpp).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dist_defaults.hpp"

namespace dlready {

enum class ModelKind { mlp, cnn };               // mlp: the tutorials' SimpleNet 784-256-10
enum class OptimizerKind { adam, sgd };
enum class Engine { automatic, fused, autograd };  // fused: the hand-written SimpleNet step
enum class AmpMode { off, bf16, fp16 };            // fp16: CUDA only, with dynamic loss scaling

const char* to_string(ModelKind v);
const char* to_string(OptimizerKind v);
const char* to_string(Engine v);
const char* to_string(AmpMode v);
std::optional<ModelKind> parse_model(std::string_view s);
std::optional<OptimizerKind> parse_optimizer(std::string_view s);
std::optional<Engine> parse_engine(std::string_view s);  // "auto" | "fused" | "autograd"
std::optional<AmpMode> parse_amp(std::string_view s);

struct TrainOptions {
  std::string data = "/usr/share/datasets/fashion-mnist";
  ModelKind model = ModelKind::mlp;
  OptimizerKind optimizer = OptimizerKind::adam;
  std::string device = "auto";  // auto | cpu | cuda | cuda:N
  Engine engine = Engine::automatic;
  std::string out = "runs/latest";  // checkpoints, metrics.jsonl, curves.svg
  int epochs = 5;
  int batch_size = 64;
  double lr = 1e-3;
  double momentum = 0.0;  // SGD only
  unsigned long long seed = 0;
  int threads = 0;           // 0 = LibTorch's default
  int checkpoint_every = 0;  // steps; 0 = once per epoch
  AmpMode amp = AmpMode::off;
  bool cuda_graphs = false;  // capture the whole step once and replay it (CUDA, fused engine)
  bool empty_cache = false;  // return cached device memory after every epoch
  int limit_train = 0;       // use only the first N training samples (0 = all)
  // Data parallel (also from the torchrun / SLURM environment; flags win). -1 / "" = unset.
  int rank = -1, world_size = -1, master_port = -1;
  std::string master_addr;
  int dist_timeout = kDistTimeoutSeconds;  // seconds: rendezvous and every collective
  bool resume = false;
  bool overwrite = false;  // replace a run already in `out` (without it, that is refused)
  bool json = false;
  bool progress = true;  // progress bar when stdout is a terminal
  bool tensorboard = false;  // event files in <out>/tensorboard
  std::string init;          // start from these weights (a .pt or .safetensors state_dict, or a checkpoint)
  // Security (the first tutorial's safety section): the key that seals checkpoint.dlr — a key
  // file, or the name of the variable holding a passphrase (never the secret itself) — and the
  // audit log (<out>/audit.jsonl always; these add a second log and Ed25519 signatures).
  std::string key_file, passphrase_env;
  std::string audit_log, audit_sign_key;
  // Set by the binary, not a flag: its first reading of the processors' busy time (probe's
  // busy_sample_text), taken before LibTorch loads, so that the busy machine's 150 ms sample for the
  // thread count is over by the time the data is in ("" = none: the module starts its own).
  std::string busy_sample;
};

struct VerifyOptions {
  std::string device = "all";   // all | cpu | cuda | cuda:N
  std::string level = "quick";  // quick | full
  bool require_gpu = false;     // NOT READY unless at least one CUDA device was checked
  bool json = false;
};

// `dlready bench`'s sections, in the order they run: the CLI's choices and help, and the module's
// registry (bench/bench_main.cpp), from this one list.
struct BenchSectionName {
  const char* name;
  const char* what;  // for the help
};
const std::vector<BenchSectionName>& bench_sections();

struct BenchOptions {
  std::vector<std::string> what;  // gemm | copy | train | floor | all (empty = all)
  std::string device = "auto";    // auto (CUDA when usable, else CPU) | cpu | cuda | cuda:N
  std::vector<int> sizes;         // GEMM sizes (empty = the device's default list)
  int samples = 0;                // timed samples per measurement (0 = the recipe's default)
  std::string data = "/usr/share/datasets/fashion-mnist";  // for the training benchmark
  int64_t kernels = 0;  // launch-bound floor: kernels per step (0 = those of the captured training step)
  int64_t steps = 0;    // launch-bound floor: steps per epoch (0 = the training benchmark's)
  int threads = 0;      // intra-op threads (0 = train's choice: LibTorch's, fewer on a busy machine)
  bool json = false;
};

// `dlready export-model` and `dlready eval`: one model file in, a file or a report out.
struct ModelOptions {
  std::string action;  // export | eval | quantize
  std::string input;   // a checkpoint, a .pt or a .safetensors state_dict (eval: also an int8 model)
  std::string out;     // export, quantize: the file to write
  std::string format;  // export: pt | safetensors ("" = from --out's extension)
  std::string data = "/usr/share/datasets/fashion-mnist";  // eval, quantize: the test (and calibration) set
  std::string scheme = "dynamic";  // quantize: dynamic | static
  int64_t calibration = 1000;      // quantize --scheme static: training images the activation ranges come from
  std::string key_file, passphrase_env;  // the input is sealed with this key, and so is the output
  std::string audit_log, audit_sign_key;  // export, quantize: append a record of the file written
  bool decrypt = false;  // export: write --out unencrypted (for PyTorch) although the input is sealed
  bool overwrite = false;  // export, quantize: replace an existing --out (refused without it)
  int threads = 0;       // eval, quantize: intra-op threads (0 = the default, fewer on a busy machine)
  bool json = false;
};

}  // namespace dlready
