// `dlready train` lives in a LibTorch module (libdlready_train.so) loaded at run time, so that a
// missing or broken LibTorch/CUDA library never kills the program with a raw loader error: the
// user gets the library that failed, the doctor's diagnosis of the machine, and the fix.
#include "cli/train_command.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "core/root_fs.hpp"
#include "diagnose/rules.hpp"
#include "probe/gather.hpp"

namespace dlready {

void add_train_command(CLI::App& app, TrainOptions& o) {
  auto* cmd = app.add_subcommand("train", "Train the tutorials' reference job (MNIST-format data) on LibTorch");
  cmd->add_option("--data", o.data, "Directory with the four MNIST-format IDX files (plain or .gz)");
  cmd->add_option("--model", o.model, "mlp (SimpleNet 784-256-10) or cnn")->check(CLI::IsMember({"mlp", "cnn"}));
  cmd->add_option("--optimizer", o.optimizer, "adam or sgd")->check(CLI::IsMember({"adam", "sgd"}));
  cmd->add_option("--device", o.device, "auto, cpu, cuda or cuda:N");
  cmd->add_option("--engine", o.engine, "auto, fused (hand-written MLP step) or autograd")
      ->check(CLI::IsMember({"auto", "fused", "autograd"}));
  cmd->add_option("--epochs", o.epochs, "Epochs")->check(CLI::Range(1, 100000));
  cmd->add_option("--batch-size", o.batch_size, "Batch size")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--lr", o.lr, "Learning rate")->check(CLI::PositiveNumber);
  cmd->add_option("--momentum", o.momentum, "SGD momentum")->check(CLI::Range(0.0, 0.999));
  cmd->add_option("--seed", o.seed, "Seed of initialisation and shuffling");
  cmd->add_option("--threads", o.threads, "Intra-op threads (0 = LibTorch default)")->check(CLI::Range(0, 1024));
  cmd->add_option("--out", o.out, "Run directory: checkpoint, metrics.jsonl, curves.svg");
  cmd->add_option("--checkpoint-every", o.checkpoint_every, "Also checkpoint every N steps (0 = per epoch only)")
      ->check(CLI::Range(0, 1 << 30));
  cmd->add_option("--limit-train", o.limit_train, "Use only the first N training samples")->check(CLI::Range(0, 1 << 30));
  cmd->add_flag("--resume", o.resume, "Continue from <out>/checkpoint.dlr");
  cmd->add_flag("--json", o.json, "Print a JSON summary at the end");
  cmd->add_flag("!--no-progress", o.progress, "No progress bar");
}

namespace {

std::string module_path() {
  if (const char* p = std::getenv("DLREADY_TRAIN_MODULE")) return p;
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  std::string exe = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "dlready";
  return path_join(path_dirname(exe), "libdlready_train.so");
}

void explain_load_failure(const std::string& path, const std::string& error) {
  std::fprintf(stderr, "dlready train: cannot load the LibTorch training module\n  %s\n  %s\n", path.c_str(),
               error.c_str());
  GatherOptions g;
  g.env = process_environment();
  auto facts = gather_facts(g);
  if (facts.error.empty()) {
    Report r = diagnose(facts.facts);
    std::fprintf(stderr, "\nWhat dlready doctor says about this machine:\n  %s\n", r.verdict.summary.c_str());
    for (const auto& x : r.findings) {
      if (x.severity != Severity::error || x.check == "gpu") continue;
      std::fprintf(stderr, "  ✗ %s [%s]\n", x.title.c_str(), x.id.c_str());
      for (const auto& c : x.fix) std::fprintf(stderr, "      → %s\n", c.c_str());
    }
  }
  std::fprintf(stderr,
               "\nFix:\n  → run ./scripts/setup.sh (installs the pinned PyTorch whose LibTorch the module links)\n"
               "  → if a CUDA library is named above: run dlready doctor and follow its findings; unset\n"
               "    LD_LIBRARY_PATH if it points at another CUDA installation\n");
}

}  // namespace

int run_train(const TrainOptions& opt) {
  std::string path = module_path();
  void* lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* err = ::dlerror();
    explain_load_failure(path, err ? err : "dlopen failed");
    return kTrainCannotLoad;
  }
  using Entry = int (*)(const TrainOptions*);
  auto entry = reinterpret_cast<Entry>(::dlsym(lib, "dlready_train_main"));
  if (!entry) {
    explain_load_failure(path, "the module has no dlready_train_main (built from another dlready version?)");
    return kTrainCannotLoad;
  }
  return entry(&opt);
}

}  // namespace dlready
