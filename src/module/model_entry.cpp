// `dlready export-model` and `dlready eval`: the weights of a checkpoint in the files PyTorch
// users load in one line, and the test-set evaluation of any of them, as the tutorial's test loop
// does it.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "os/posix_fs.hpp"
#include "os/fatal_signal.hpp"
#include "core/json_text.hpp"
#include "core/text.hpp"
#include "secure/audit_log.hpp"
#include "module/thread_choice.hpp"
#include "formats/confusion.hpp"
#include "secure/sealed_file.hpp"
#include "secure/secret_key.hpp"
#include "data/idx.hpp"
#include "module/module_entry.hpp"
#include "train/batches.hpp"
#include "train/evaluation.hpp"
#include "train/model_files.hpp"
#include "train/quantized_model.hpp"

namespace dlready {
namespace {

// Both paths name one file (the same device and inode, through any link or spelling).
bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

ExitCode export_model(const ModelOptions& o, const ModelWeights& w, SealingKey* key) {
  auto format = o.format == "pt"            ? std::optional(WeightsFormat::pt)
                : o.format == "safetensors" ? std::optional(WeightsFormat::safetensors)
                                            : format_of_name(o.out);
  if (!format || *format == WeightsFormat::checkpoint) {
    std::fprintf(stderr, "dlready export-model: --out %s: name it .pt or .safetensors, or give --format\n", o.out.c_str());
    return ExitCode::usage;
  }
  SealingKey* out_key = o.decrypt ? nullptr : key;
  if (auto st = save_weights(o.out, *format, w, out_key); !st) {
    std::fprintf(stderr, "dlready export-model: %s\n", st.error().c_str());
    return ExitCode::failed;
  }
  if (out_key) {
    std::printf("wrote %s: the %s state_dict (%zu tensors, %s), encrypted with %s; for PyTorch, export it with "
                "--decrypt too (the checkpoint stays sealed)\n",
                o.out.c_str(), to_string(w.kind), w.tensors.size(), to_string(*format), key->description().c_str());
    return ExitCode::ok;
  }
  const std::string load = *format == WeightsFormat::pt ? "torch.load(\"" + o.out + "\", weights_only=True)"
                                                         : "safetensors.torch.load_file(\"" + o.out + "\")";
  std::printf("wrote %s: the %s state_dict (%zu tensors, %s); in Python: model.load_state_dict(%s)\n", o.out.c_str(),
              to_string(w.kind), w.tensors.size(), to_string(*format), load.c_str());
  return ExitCode::ok;
}

// What eval evaluates: fp32 weights in a model of their kind, or an int8 model.
struct EvalModel {
  ReferenceModel model;
  std::string kind, format;  // "mlp"; "checkpoint" | "pt" | "safetensors" | "int8 dynamic" | "int8 static"
};

nlohmann::json eval_json(const ModelOptions& o, const EvalModel& m, const Evaluation& e, const torch::Tensor& logits,
                         int64_t samples, const ClassNames& names) {
  std::vector<std::vector<float>> rows;
  for (int64_t i = 0; i < logits.size(0); ++i) {
    auto r = logits[i].contiguous();
    rows.emplace_back(r.data_ptr<float>(), r.data_ptr<float>() + r.numel());
  }
  // /2: the confusion matrix as 10 rows of 10 (it was a flat list of 100), and the classes' names.
  nlohmann::json confusion = nlohmann::json::array();
  for (size_t i = 0; i + 10 <= e.confusion.size(); i += 10)
    confusion.push_back(std::vector<int64_t>(e.confusion.begin() + static_cast<std::ptrdiff_t>(i),
                                             e.confusion.begin() + static_cast<std::ptrdiff_t>(i + 10)));
  return {{"schema", "dlready.eval/2"}, {"model", o.input},       {"kind", m.kind},
          {"format", m.format}, {"samples", samples}, {"test_acc", e.test_acc},
          {"test_loss", e.test_loss},    {"confusion", confusion}, {"classes", names},
          {"first_logits", rows}};
}

ExitCode eval_model(const ModelOptions& o, const EvalModel& m) {
  auto ds = load_mnist(o.data);
  if (!ds.dataset) {
    std::fprintf(stderr, "dlready eval: %s\n", ds.error.c_str());
    return ExitCode::failed;
  }
  auto data = to_tensors_taking_images(*ds.dataset, 0, torch::kCPU);
  auto e = evaluate(m.model, data.test_x, data.test_y, torch::kCPU);
  torch::Tensor logits;
  {
    torch::NoGradGuard ng;
    m.model.module->eval();
    logits = m.model.forward(normalize_batch(data.test_x.narrow(0, 0, std::min<int64_t>(4, data.test_x.size(0)))));
  }
  int64_t n = data.test_x.size(0);
  if (o.json) {
    std::cout << json_text(eval_json(o, m, e, logits, n, class_names_for(ds.dataset->directory)), 2) << std::endl;
    return ExitCode::ok;
  }
  std::printf("%s (%s, %s): test accuracy %.2f%%, test loss %.4f on %lld images of %s\n", o.input.c_str(),
              m.kind.c_str(), m.format.c_str(), 100 * e.test_acc, e.test_loss, static_cast<long long>(n),
              ds.dataset->directory.c_str());
  std::fputs(confusion_text(e.confusion, class_names_for(ds.dataset->directory)).c_str(), stdout);
  return ExitCode::ok;
}

// An int8 model (dlready quantize) is a safetensors file with its own format metadata; anything
// else goes through the fp32 readers.
std::variant<EvalModel, std::string> load_eval_model(const std::string& path, SealingKey* key) {
  std::string error;
  auto bytes = read_model_file(path, key, &error);
  if (!bytes) return error;
  auto st = read_safetensors(*bytes);
  if (auto* file = std::get_if<SafetensorsFile>(&st); file && file->metadata.count("format") &&
                                                     file->metadata.at("format") == kInt8ModelFormat) {
    auto q = from_file(*file);
    if (auto* why = std::get_if<std::string>(&q)) return path + ": " + *why;
    auto model = std::make_shared<QuantizedModel>(std::move(std::get<QuantizedModel>(q)));
    return EvalModel{{std::make_shared<torch::nn::Module>(), [model](const torch::Tensor& x) { return model->forward(x); }},
                     to_string(model->kind),
                     std::string("int8 ") + to_string(model->scheme)};
  }
  auto loaded = parse_weights(*bytes, path);
  if (!loaded.weights) return loaded.error;
  auto model = make_model(loaded.weights->kind, torch::kCPU);
  load_into(model, *loaded.weights);
  return EvalModel{model, to_string(loaded.weights->kind), to_string(loaded.weights->format)};
}

// export-model and quantize with --audit-log: a record of what was read and written (secure/audit_log.hpp).
struct ModelAudit {
  std::unique_ptr<AuditLog> log;
  std::string error;
};
ModelAudit open_model_audit(const ModelOptions& o) {
  if (o.audit_log.empty() || o.action == "eval") return {};
  auto opened = AuditLog::open({o.audit_log}, o.audit_sign_key, own_command_line());
  return {std::move(opened.log), opened.error};
}
Status audit_written(AuditLog* log, const ModelOptions& o, SealingKey* key) {
  if (!log) return {};
  nlohmann::json d = {{"input", o.input}, {"input_blake2b", blake2b_file(o.input).value_or("unreadable")},
                      {"out", o.out}, {"out_blake2b", blake2b_file(o.out).value_or("unreadable")},
                      {"encrypted", key != nullptr && !o.decrypt}};
  if (auto id = sealed_key_id(o.out)) d["key_id"] = *id;
  return log->append(o.action == "export" ? "export" : o.action, d);
}

}  // namespace

ExitCode run_model_command(const ModelOptions& o) {
  const std::string command = o.action == "export" ? "export-model" : o.action;
  install_fatal_signal_report(o.action == "export" ? "export-model" : o.action == "eval" ? "eval" : "quantize");
  // The thread choice is said once the model has been read: never a line about threads before an error.
  auto choose_threads_now = [&o] {
    if (auto note = choose_threads(o.threads); !note.empty()) std::fprintf(stderr, "dlready %s: %s\n", o.action.c_str(), note.c_str());
  };
  set_fatal_signal_stage("reading the model");
  if (!o.out.empty() && same_file(o.input, o.out)) {
    std::fprintf(stderr, "dlready %s: --out %s is the input file itself: writing it would destroy what is being read; "
                 "choose another path\n", command.c_str(), o.out.c_str());
    return ExitCode::usage;
  }
  try {
    auto audit = open_model_audit(o);
    if (!audit.error.empty()) {
      std::fprintf(stderr, "dlready %s: %s\n", command.c_str(), audit.error.c_str());
      return ExitCode::usage;
    }
    std::unique_ptr<SealingKey> key;
    if (KeyChoice choice{o.key_file, o.passphrase_env}; !choice.empty()) {
      auto loaded = SealingKey::load(choice);
      if (!loaded.key) {
        std::fprintf(stderr, "dlready %s: %s\n", command.c_str(), loaded.error.c_str());
        return ExitCode::usage;
      }
      key = std::move(loaded.key);
    } else if (o.decrypt) {
      std::fprintf(stderr, "dlready export-model: --decrypt opens a sealed input: give its key with --key-file or "
                   "--passphrase-env (a plain input is exported plain without it)\n");
      return ExitCode::usage;
    }
    if (o.action == "eval") {
      auto m = load_eval_model(o.input, key.get());
      if (auto* why = std::get_if<std::string>(&m)) {
        std::fprintf(stderr, "dlready eval: %s\n", why->c_str());
        return is_regular_file(o.input) ? ExitCode::failed : ExitCode::usage;
      }
      choose_threads_now();
      set_fatal_signal_stage("evaluating");
      return eval_model(o, std::get<EvalModel>(m));
    }
    auto loaded = load_weights(o.input, key.get());
    if (!loaded.weights) {
      std::fprintf(stderr, "dlready %s: %s\n", command.c_str(), loaded.error.c_str());
      return is_regular_file(o.input) ? ExitCode::failed : ExitCode::usage;
    }
    if (o.action != "export") choose_threads_now();
    set_fatal_signal_stage(o.action == "export" ? "writing the model file" : "quantizing");
    auto rc = o.action == "export" ? export_model(o, *loaded.weights, key.get())
                                   : run_quantize_command(o, *loaded.weights, key.get());
    if (rc != ExitCode::ok) return rc;
    if (auto st = audit_written(audit.log.get(), o, key.get()); !st) {
      // Nothing unaudited is left behind: the file goes when its record cannot be written.
      bool removed = ::unlink(o.out.c_str()) == 0;
      std::fprintf(stderr, "dlready %s: %s; %s\n", command.c_str(), st.error().c_str(),
                   removed ? ("removed " + o.out + " again (a file without its audit record is not kept)").c_str()
                           : (o.out + " was written but has no audit record").c_str());
      return ExitCode::failed;
    }
    return ExitCode::ok;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dlready %s: %s\n", command.c_str(), first_line(e.what()).c_str());
    return ExitCode::failed;
  }
}

}  // namespace dlready
