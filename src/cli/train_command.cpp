// `dlready train`: options, then the LibTorch module (see cli/torch_module.hpp).
#include "cli/train_command.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cli/security_command.hpp"
#include "cli/torch_module.hpp"
#include "cli/usage_hints.hpp"
#include "os/root_fs.hpp"
#include "probe/linux/probes.hpp"
#include "module_api/module_abi.hpp"

namespace dlready {

void add_train_command(CLI::App& app, TrainOptions& o) {
  // CLI::PositiveNumber lets "nan" and "inf" through; a learning rate must be a finite number > 0.
  const CLI::Validator finite_positive(
      [](std::string& s) -> std::string {
        char* end = nullptr;
        double v = std::strtod(s.c_str(), &end);
        if (end == s.c_str() || *end != '\0' || !std::isfinite(v) || v <= 0) return "must be a finite number > 0, not " + s;
        return "";
      },
      "POSITIVE");
  auto* cmd = app.get_subcommand("train");
  cmd->add_option("--data", o.data, "Directory with the four MNIST-format IDX files (plain or .gz)");
  add_enum_option(cmd, "--model", o.model, {{"mlp", ModelKind::mlp}, {"cnn", ModelKind::cnn}},
                  "mlp (SimpleNet 784-256-10) or cnn", to_string(o.model));
  add_enum_option(cmd, "--optimizer", o.optimizer, {{"adam", OptimizerKind::adam}, {"sgd", OptimizerKind::sgd}},
                  "adam or sgd", to_string(o.optimizer));
  cmd->add_option("--device", o.device, "auto (CUDA when usable, else the CPU), cpu, cuda or cuda:N")
      ->check(device_validator("auto"));
  add_enum_option(cmd, "--engine", o.engine,
                  {{"auto", Engine::automatic}, {"fused", Engine::fused}, {"autograd", Engine::autograd}},
                  "auto, fused (hand-written MLP step) or autograd", to_string(o.engine));
  cmd->add_option("--epochs", o.epochs, "Epochs")->check(CLI::Range(1, 100000));
  cmd->add_option("--batch-size", o.batch_size, "Batch size")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--lr", o.lr, "Learning rate")->check(finite_positive);
  cmd->add_option("--momentum", o.momentum, "SGD momentum")->check(CLI::Range(0.0, 0.999));
  cmd->add_option("--seed", o.seed, "Seed of initialisation and shuffling")->check(CLI::NonNegativeNumber);
  cmd->add_option("--threads", o.threads,
                  "Intra-op threads (default: LibTorch's, fewer when other work keeps the CPUs busy)")
      ->check(CLI::Range(0, 1024));
  cmd->add_option("--out", o.out, "Run directory: checkpoint.dlr, metrics.jsonl, curves.svg");
  cmd->add_option("--checkpoint-every", o.checkpoint_every, "Also checkpoint every N steps (0 = per epoch only)")
      ->check(CLI::Range(0, 1 << 30));
  cmd->add_option("--limit-train", o.limit_train, "Use only the first N training samples")->check(CLI::Range(0, 1 << 30));
  auto* resume = cmd->add_flag("--resume", o.resume, "Continue from <out>/checkpoint.dlr");
  cmd->add_flag("--overwrite", o.overwrite, "Replace the run already in --out (refused without it)")->excludes(resume);
  cmd->add_option("--init", o.init,
                  "Start from these weights: a state_dict saved by torch.save (.pt) or safetensors, or a dlready "
                  "checkpoint")
      ->excludes(resume);
  cmd->add_flag("--tensorboard", o.tensorboard,
                "Also write TensorBoard event files to <out>/tensorboard (view: tensorboard --logdir <out>)");
  add_enum_option(cmd, "--amp", o.amp, {{"off", AmpMode::off}, {"bf16", AmpMode::bf16}, {"fp16", AmpMode::fp16}},
                  "Mixed precision: off, bf16 (CPU or CUDA) or fp16 (CUDA, dynamic loss scaling)", to_string(o.amp));
  cmd->add_flag("--cuda-graphs", o.cuda_graphs,
                "Capture the whole training step as a CUDA graph and replay it (CUDA, --model mlp, fp32)");
  cmd->add_flag("--empty-cache", o.empty_cache, "Return cached CUDA memory to the driver after every epoch");
  cmd->add_option("--rank", o.rank, "Data parallel: this process's rank (default: RANK / SLURM_PROCID)")
      ->check(CLI::Range(0, 1 << 20))
      ->default_str("");  // -1 is "unset": the environment decides
  cmd->add_option("--world-size", o.world_size, "Data parallel: number of ranks (default: WORLD_SIZE / SLURM_NTASKS)")
      ->check(CLI::Range(1, 1 << 20))
      ->default_str("");
  cmd->add_option("--master-addr", o.master_addr, "Data parallel: rank 0's address (default: MASTER_ADDR, 127.0.0.1)");
  cmd->add_option("--master-port", o.master_port, "Data parallel: rendezvous port (default: MASTER_PORT, 29500)")
      ->check(CLI::Range(1, 65535))
      ->default_str("");
  cmd->add_option("--dist-timeout", o.dist_timeout,
                  "Seconds to wait for the others before failing: the rendezvous and each collective (as launch's "
                  "launchers for every node)")
      ->capture_default_str()
      ->check(CLI::Range(1, 86400));
  add_key_options(cmd, o.key_file, o.passphrase_env, "encrypts <out>/checkpoint.dlr (and opens it on --resume)");
  add_audit_options(cmd, o.audit_log, o.audit_sign_key, "the run's records (as <out>/audit.jsonl, which is always written)");
  cmd->add_flag("--json", o.json, "Print a JSON summary at the end");
  cmd->add_flag_callback("--no-progress", [&o] { o.progress = false; }, "No progress bar");
}

ExitCode run_train(const TrainOptions& opt) {
  // Refused before the module loads and prints its header (issue 62, item 16); the module checks
  // again (train/resume.cpp), and a torchrun restart turns into --resume there.
  const std::string checkpoint = opt.out + "/checkpoint.dlr";
  if (!opt.resume && !opt.overwrite && !std::getenv("TORCHELASTIC_RESTART_COUNT") && ::access(checkpoint.c_str(), F_OK) == 0) {
    std::fprintf(stderr, "dlready train: --out %s already holds a run (%s): continue it with --resume, replace it with "
                         "--overwrite, or choose another --out\n", opt.out.c_str(), checkpoint.c_str());
    return ExitCode::usage;
  }
  // The busy machine's sample for the thread count starts here, so that LibTorch's loading (~0.25 s)
  // fills its window instead of the run waiting for it after the data is in.
  TrainOptions sent = opt;
  if (auto sample = start_busy_sample(RootFs("/"), static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN))))
    sent.busy_sample = busy_sample_text(*sample);
  return run_torch_module("train", to_json(sent));
}

}  // namespace dlready
