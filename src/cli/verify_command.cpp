#include "cli/verify_command.hpp"

#include <sys/stat.h>

#include <cstdio>

#include "cli/security_command.hpp"
#include "cli/torch_module.hpp"
#include "cli/usage_hints.hpp"
#include "core/text.hpp"
#include "module_api/module_abi.hpp"

namespace dlready {
namespace {

void add_threads_option(CLI::App* cmd, int& threads) {
  cmd->add_option("--threads", threads, "Intra-op threads (default: LibTorch's, fewer when other work keeps the CPUs busy)")
      ->check(CLI::Range(0, 1024));
}

}  // namespace

void add_verify_command(CLI::App& app, VerifyOptions& o) {
  auto* cmd = app.get_subcommand("verify");
  cmd->add_option("--device", o.device, "all (the CPU and every usable CUDA device), cpu, cuda or cuda:N")
      ->check(device_validator("all"));
  cmd->add_option("--level", o.level, "quick or full (larger transfers, memory filled until out-of-memory)")
      ->check(CLI::IsMember({"quick", "full"}));
  cmd->add_flag("--require-gpu", o.require_gpu,
                "NOT READY (exit 1) unless a CUDA device was checked: for `dlready verify --require-gpu && gpu-job`");
  cmd->add_flag("--json", o.json, "Print the results as JSON (schema dlready.verify/1)");
}

void add_bench_command(CLI::App& app, BenchOptions& o) {
  auto* cmd = app.get_subcommand("bench");
  std::vector<std::string> names, help;
  for (const auto& section : bench_sections()) {
    names.push_back(section.name);
    help.push_back(std::string(section.name) + " (" + section.what + ")");
  }
  names.push_back("all");
  cmd->add_option("what", o.what, join(help, ", ") + " or all (default all)")->check(CLI::IsMember(names));
  cmd->add_option("--device", o.device, "auto (CUDA when usable, else the CPU), cpu, cuda or cuda:N")
      ->check(device_validator("auto"));
  cmd->add_option("--sizes", o.sizes, "GEMM sizes n (n x n times n x n); default depends on the device")
      ->check(CLI::Range(16, 65536))
      ->delimiter(',');
  cmd->add_option("--samples", o.samples, "Timed samples per measurement (default 10)")->check(CLI::Range(1, 1000));
  cmd->add_option("--data", o.data, "MNIST-format data for the training benchmark");
  cmd->add_option("--kernels", o.kernels,
                  "floor: kernels per step (default: those of the training step, captured as a CUDA graph)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  cmd->add_option("--steps", o.steps, "floor: steps per epoch (default: the training benchmark's)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  add_threads_option(cmd, o.threads);
  cmd->add_flag("--json", o.json, "Print the results as JSON (schema dlready.bench/1)");
}

void add_model_commands(CLI::App& app, ModelOptions& export_model, ModelOptions& eval, ModelOptions& quantize) {
  export_model.action = "export";
  auto* ex = app.get_subcommand("export-model");
  ex->add_option("checkpoint", export_model.input, "A dlready checkpoint (or a .pt / .safetensors state_dict)")->required();
  ex->add_option("--out", export_model.out, "The file to write (.pt, .pth or .safetensors)")->required();
  ex->add_option("--format", export_model.format, "pt or safetensors (default: from --out's extension)")
      ->check(CLI::IsMember({"pt", "safetensors"}));
  add_key_options(ex, export_model.key_file, export_model.passphrase_env, "opens the input and encrypts --out");
  ex->add_flag("--decrypt", export_model.decrypt,
               "Write --out unencrypted, for PyTorch to read (the key only opens the input; the input stays sealed)");
  add_audit_options(ex, export_model.audit_log, export_model.audit_sign_key, "a record of the file written");
  ex->add_flag("--overwrite", export_model.overwrite, "Replace an existing --out (refused without it)");
  eval.action = "eval";
  auto* ev = app.get_subcommand("eval");
  ev->add_option("model", eval.input, "A dlready checkpoint, or a .pt (torch.save) or .safetensors state_dict")->required();
  ev->add_option("--data", eval.data, "MNIST-format directory; its t10k files are the test set");
  ev->add_flag("--json", eval.json, "Print the results as JSON (schema dlready.eval/2)");
  add_key_options(ev, eval.key_file, eval.passphrase_env, "opens an encrypted model");
  add_threads_option(ev, eval.threads);
  quantize.action = "quantize";
  auto* q = app.get_subcommand("quantize");
  q->add_option("checkpoint", quantize.input, "A dlready checkpoint (or a .pt / .safetensors state_dict)")->required();
  q->add_option("--out", quantize.out, "The int8 model to write (.safetensors; dlready eval reads it)")->required();
  q->add_option("--scheme", quantize.scheme,
                "dynamic: int8 weights, activations quantized per batch as they come (torch's quantize_dynamic); "
                "static: activation ranges calibrated once on training images")
      ->check(CLI::IsMember({"dynamic", "static"}));
  q->add_option("--calibration", quantize.calibration, "static: training images to calibrate on (default 1000)")
      ->check(CLI::Range(int64_t{1}, int64_t{60000}));
  q->add_option("--data", quantize.data, "MNIST-format directory: calibration from its training files, test set from t10k");
  q->add_flag("--json", quantize.json, "Print the comparison as JSON (schema dlready.quantize/1)");
  add_key_options(q, quantize.key_file, quantize.passphrase_env, "opens the input and encrypts --out");
  add_threads_option(q, quantize.threads);
  add_audit_options(q, quantize.audit_log, quantize.audit_sign_key, "a record of the file written");
  q->add_flag("--overwrite", quantize.overwrite, "Replace an existing --out (refused without it)");
}

// One overwrite rule with train, capture and keygen (issue 50, item 11): an existing --out is
// replaced only when asked, and the refusal comes before anything else is printed or loaded.
ExitCode run_model(const ModelOptions& opt) {
  if (opt.action == "export" || opt.action == "quantize") {
    const std::string cmd = opt.action == "export" ? "export-model" : "quantize";
    struct stat st {}, in {};
    bool exists = ::stat(opt.out.c_str(), &st) == 0;
    bool is_input = exists && ::stat(opt.input.c_str(), &in) == 0 && in.st_dev == st.st_dev &&
                    in.st_ino == st.st_ino;  // the module's own refusal says that one
    if (exists && !is_input) {
      if (!S_ISREG(st.st_mode)) {
        std::fprintf(stderr, "dlready %s: --out %s exists and is not a regular file: choose another --out\n", cmd.c_str(),
                     printable(opt.out, 1024).c_str());
        return ExitCode::usage;
      }
      if (!opt.overwrite) {
        std::fprintf(stderr, "dlready %s: --out %s already exists: replace it with --overwrite, or choose another --out\n",
                     cmd.c_str(), printable(opt.out, 1024).c_str());
        return ExitCode::usage;
      }
    }
  }
  return run_torch_module("model", to_json(opt));
}

ExitCode run_verify(const VerifyOptions& opt) { return run_torch_module("verify", to_json(opt)); }

ExitCode run_bench(const BenchOptions& opt) { return run_torch_module("bench", to_json(opt)); }

}  // namespace dlready
