// `dlready train` in the module: loads the data, picks the device (asking the doctor why CUDA is
// not usable before touching CUDA), joins the data-parallel session when asked to, trains, prints
// and writes the summary.
#include <optional>
#include <unistd.h>

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>

#include "os/fatal_signal.hpp"
#include "core/json_text.hpp"
#include "core/text.hpp"
#include "distributed/data_parallel.hpp"
#include "launch/dist_env.hpp"
#include "module/module_entry.hpp"
#include "module/train_audit.hpp"
#include "module/thread_choice.hpp"
#include "module/train_console.hpp"
#include "diagnose/rules.hpp"
#include "probe/gather.hpp"
#include "probe/linux/probes.hpp"
#include "torch_runtime/device_choice.hpp"
#include "formats/confusion.hpp"
#include "train/evaluation.hpp"
#include "train/resume.hpp"
#include "os/stop_signal.hpp"
#include "train/trainer.hpp"

namespace dlready {
namespace {

// printf to the human-readable stream, which is null on the quiet ranks of a data-parallel run.
__attribute__((format(printf, 2, 3))) void say(std::FILE* f, const char* fmt, ...) {
  if (!f) return;
  va_list args;
  va_start(args, fmt);
  std::vfprintf(f, fmt, args);
  va_end(args);
}

nlohmann::json summary_json(const TrainOptions& o, const TrainResult& r, const std::string& device, double total_s) {
  nlohmann::json hist = nlohmann::json::array();
  for (const auto& m : r.history) hist.push_back(to_json(m));
  return {{"schema", "dlready.train/1"}, {"device", device}, {"model", to_string(o.model)},
          {"optimizer", to_string(o.optimizer)}, {"epochs", o.epochs}, {"batch_size", o.batch_size},
          {"test_acc", r.test_acc}, {"test_loss", r.test_loss}, {"train_seconds", r.train_seconds},
          {"total_seconds", total_s}, {"peak_rss_mib", peak_rss_mib()}, {"confusion", r.confusion},
          {"history", hist}, {"out", o.out}, {"resumed", r.resumed}, {"amp", to_string(r.amp)},
          {"micro_batches", r.micro_batches}, {"loss_scale", r.loss_scale}, {"skipped_steps", r.skipped_steps},
          {"cuda_graphs", o.cuda_graphs}, {"graph_kernels", r.graph_kernels}, {"steps_per_epoch", r.steps_per_epoch},
          {"nothing_to_do", r.nothing_to_do}};
}

// Where this process trains and with whom: the device, and the data-parallel session if any.
struct Placement {
  torch::Device device = torch::kCPU;
  std::string why;  // why this device
  DistConfig dist;
  std::unique_ptr<DataParallelSession> session;
  std::string rank_tag() const {
    return session ? " (rank " + std::to_string(dist.rank) + "/" + std::to_string(dist.world) + ")" : "";
  }
};

// The device and the session, or the exit status after saying why not.
std::optional<ExitCode> place(const TrainOptions& o, Placement& p) {
  auto choice = choose_device(o.device);
  if (!choice.device) {
    std::fprintf(stderr, "dlready train: %s\n", choice.why.c_str());
    return ExitCode::failed;
  }
  p.device = *choice.device;
  p.why = choice.why;
  // Data parallel when the flags or the torchrun/SLURM environment say so.
  auto dc = dist_config(process_environment(), DistFlags{o.rank, o.world_size, -1, o.master_port, o.master_addr});
  if (!dc.config) {
    std::fprintf(stderr, "dlready train: %s\n", dc.error.c_str());
    return ExitCode::usage;
  }
  p.dist = *dc.config;
  if (p.device.is_cuda() && p.dist.distributed()) {
    if (p.dist.local_rank >= static_cast<int>(torch::cuda::device_count())) {
      std::fprintf(stderr, "dlready train: rank %d has local rank %d but this machine has %d CUDA device(s)\n",
                   p.dist.rank, p.dist.local_rank, static_cast<int>(torch::cuda::device_count()));
      return ExitCode::failed;
    }
    p.device = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(p.dist.local_rank));
  }
  if (p.dist.wants_process_group()) {
    auto started = DataParallelSession::start(p.dist, p.device, std::chrono::seconds(o.dist_timeout));
    if (!started.session) {
      std::fprintf(stderr, "dlready train (rank %d/%d): %s\n", p.dist.rank, p.dist.world, started.error.c_str());
      return ExitCode::failed;
    }
    p.session = std::move(started.session);
  }
  return std::nullopt;
}

void print_header(std::FILE* human, const TrainOptions& o, const Placement& p, const MnistDataset& ds,
                  const TensorData& data, const std::string& thread_note) {
  say(human,
      "dlready train: %s on %s (%s)\n  data %s: %lld train / %lld test, batch %d, %s lr %g, %d epoch(s), %d "
      "thread(s)\n",
      to_string(o.model), p.device.str().c_str(), p.why.c_str(), ds.directory.c_str(),
      static_cast<long long>(data.train_x.size(0)), static_cast<long long>(data.test_x.size(0)), o.batch_size,
      to_string(o.optimizer), o.lr, o.epochs, at::get_num_threads());
  if (!thread_note.empty()) say(human, "  %s\n", thread_note.c_str());
  if (p.session)
    say(human, "  data parallel: %d ranks (%s), %s backend, rendezvous %s:%d, global batch %d\n", p.dist.world,
        p.dist.source.c_str(), p.session->backend().c_str(), p.dist.master_addr.c_str(), p.dist.master_port,
        o.batch_size * p.dist.world);
  // On a busy machine a CPU epoch takes ten times longer: say so before it starts, with the doctor's words.
  if (p.device.is_cpu()) {
    int cpus = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
    // Training is on the CPU already; asking CUDA whether a GPU would do costs its start-up.
    if (auto x = cpu_oversubscribed(probe_cpu_load(RootFs("/"), cpus), cpus, false)) {
      say(human, "  note: %s (%s) [%s]\n", x->title.c_str(), join(x->evidence, "; ").c_str(), x->id.c_str());
      // Fewer threads is advice only to a job that has more than one.
      say(human, "        → %s\n", x->fix.at(at::get_num_threads() > 1 ? 1 : 0).c_str());
    }
  }
}

void print_summary(std::FILE* human, const TrainOptions& o, const TrainResult& r, double total, const ClassNames& names) {
  if (!r.confusion.empty()) {
    say(human,
        "\ntest accuracy %.2f%%  (train %.2fs, total %.2fs, peak RSS %.0f MiB)\n%s", 100 * r.test_acc,
        r.train_seconds, total, peak_rss_mib(), confusion_text(r.confusion, names).c_str());
  }
  const bool sealed = !o.key_file.empty() || !o.passphrase_env.empty();
  // Every file the run wrote is named, the TensorBoard event folder too (issue 50, item 15).
  std::string tensorboard = o.tensorboard ? ", " + o.out + "/tensorboard/" : "";
  say(human, "wrote %s/checkpoint.dlr%s, %s/metrics.jsonl, %s/curves.svg, %s/confusion.svg, %s/audit.jsonl%s\n",
      o.out.c_str(), sealed ? " (encrypted)" : "", o.out.c_str(), o.out.c_str(), o.out.c_str(), o.out.c_str(),
      tensorboard.c_str());
}

// Why the data cannot feed the models (28×28 images), or nullopt.
std::optional<std::string> image_size_problem(const MnistDataset& ds) {
  for (const auto* split : {&ds.train, &ds.test}) {
    const auto& d = split->images.dims;
    if (d.size() == 3 && (d[1] != 28 || d[2] != 28))
      return split->images_path + ": images are " + std::to_string(d[1]) + "×" + std::to_string(d[2]) +
             "; the models take 28×28 (Fashion-MNIST's size): give --data a folder of 28×28 IDX files";
  }
  return std::nullopt;
}

ExitCode train_placed(const TrainOptions& o, Placement& p, MnistDataset& ds, RunSecurity& security,
                      const std::map<std::string, std::string>& digests, std::chrono::steady_clock::time_point t0,
                      const std::string& thread_note) {
  SealingKey* key = security.key.get();
  DataParallel dp = p.session ? p.session->hooks() : DataParallel{};
  const bool leader = p.dist.rank == 0;
  set_fatal_signal_stage("copying the data to the device");
  auto data = to_tensors_taking_images(ds, o.limit_train, p.device);
  // Only rank 0 speaks (the launcher prefixes every line with the rank anyway); errors always.
  std::FILE* human = !leader ? nullptr : o.json ? stderr : stdout;
  print_header(human, o, p, ds, data, thread_note);
  if (human) std::fflush(human);  // a pipe (under launch) would hold the header back until much later
  TrainConsole console(human, o.progress, o.epochs);
  TrainHooks hooks = console.hooks();
  StopOnSignal stop_signal;
  hooks.stop_requested = [&] { return stop_signal.requested(); };
  // The run directory is checked before the audit log is created in it (a refused --out is a usage error).
  if (auto st = prepare_output(o); !st) {
    std::fprintf(stderr, "dlready train%s: %s\n", p.rank_tag().c_str(), st.error().c_str());
    return ExitCode::usage;
  }
  auto audit = RunAudit::start(std::move(security.log), o, leader, ds, digests, key, p.device.str(), p.dist.world);
  if (!audit.audit) {
    std::fprintf(stderr, "dlready train%s: %s\n", p.rank_tag().c_str(), audit.error.c_str());
    return ExitCode::failed;
  }
  hooks.audit = audit.audit->hook();
  hooks.key = key;
  TrainResult r;
  // The models take 28×28 images (784 inputs): other sizes would fail deep in LibTorch ("mat1 and
  // mat2 shapes cannot be multiplied"). Said in one line, and recorded as the run's failure.
  if (auto wrong = image_size_problem(ds)) {
    r.status = ExitCode::failed;
    r.error = *wrong;
    static_cast<void>(audit.audit->end(r));
    std::fprintf(stderr, "dlready train%s: %s\n", p.rank_tag().c_str(), r.error.c_str());
    return r.status;
  }
  set_fatal_signal_stage("training (the first convolution or matmul loads cuDNN / cuBLAS kernels)");
  try {
    r = train(o, data, p.device, hooks, dp);
  } catch (const std::exception& e) {
    console.end_progress();
    r.status = ExitCode::failed;
    r.error = first_line(e.what());
    static_cast<void>(audit.audit->end(r));  // the log says the run failed, and why
    std::fprintf(stderr, "dlready train%s: %s\n", p.rank_tag().c_str(), r.error.c_str());
    // A dead peer can leave c10d threads that never join: do not wait for them.
    if (p.session) std::_Exit(to_int(ExitCode::failed));
    return r.status;
  }
  console.end_progress();
  set_fatal_signal_stage("writing the run's records");
  auto audited = audit.audit->end(r);
  if (r.status == ExitCode::ok && !audited) {
    std::fprintf(stderr, "dlready train%s: %s\n", p.rank_tag().c_str(), audited.error().c_str());
    return ExitCode::failed;
  }
  if (r.status != ExitCode::ok) {
    std::fprintf(stderr, "dlready train%s: %s\n", p.rank_tag().c_str(), r.error.c_str());
    return r.status;
  }
  if (!leader) return ExitCode::ok;
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const ClassNames names = class_names_for(ds.directory);
  if (r.nothing_to_do) {
    say(human, "nothing to do: the run in %s finished %zu epoch(s) (ask for more with --epochs %zu); its files are "
               "unchanged\n", o.out.c_str(), r.history.size(), r.history.size() + 1);
  } else {
    if (!r.confusion.empty())
      if (auto st = write_confusion_svg(o.out + "/confusion.svg", r.confusion, names,
                                        "dlready train: test set after epoch " + std::to_string(r.history.size()));
          !st) {
        std::fprintf(stderr, "dlready train: %s\n", st.error().c_str());
        return ExitCode::failed;
      }
    print_summary(human, o, r, total, names);
  }
  if (o.json) std::cout << json_text(summary_json(o, r, p.device.str(), total), 2) << std::endl;
  return ExitCode::ok;
}

}  // namespace

ExitCode run_train_command(const TrainOptions& given) {
  auto t0 = std::chrono::steady_clock::now();
  try {
    const auto env = process_environment();
    const TrainOptions o = continue_after_restart(given, env);
    // The busy machine's sample (for the thread count) spans the data's loading.
    const PendingThreadChoice threads = begin_thread_choice(o.threads, o.busy_sample);
    auto security = open_run_security(o);
    if (!security.error.empty()) {
      std::fprintf(stderr, "dlready train: %s\n", security.error.c_str());
      return ExitCode::usage;
    }
    set_fatal_signal_stage("loading the data");
    // Decoded once (the gzip files' decoded copies in the user's cache), hashed as read for the audit log.
    std::map<std::string, std::string> digests;
    MnistLoadOptions load;
    if (auto cache = dlready_cache_dir(env)) load.decoded_cache = *cache + "/decoded";
    load.digest_name = "blake2b-256";
    load.digest = [](std::string_view bytes) { return blake2b_hex(bytes); };
    load.on_file_digest = [&](const std::string& path, const std::string& digest) { digests[path] = digest; };
    auto ds = load_mnist(o.data, 10, load);
    if (!ds.dataset) {
      std::fprintf(stderr, "dlready train: %s\n", ds.error.c_str());
      return ExitCode::failed;
    }
    const std::string thread_note = finish_thread_choice(threads);
    Placement p;
    set_fatal_signal_stage("choosing the device (CUDA starts here)");
    if (auto failed = place(o, p)) return *failed;
    return train_placed(o, p, *ds.dataset, security, digests, t0, thread_note);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dlready train: %s\n", e.what());
    return ExitCode::failed;
  }
}

}  // namespace dlready
