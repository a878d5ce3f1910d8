#include "bench/bench_main.hpp"

#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>

#include "bench/bench_report.hpp"
#include "core/json_text.hpp"
#include "core/text.hpp"
#include "torch_runtime/device_choice.hpp"

namespace dlready {
namespace {

// What one section leaves for the next: the training step, which the floor measures.
struct SectionState {
  bool floor_wanted = false;
  std::optional<TrainBench> trained;
};

using SectionRunner = std::function<void(BenchRun&, SectionState&)>;

// The registry: each name in module_api's bench_sections() and how it runs (each decides itself
// whether it was asked for; train also runs for the floor).
SectionRunner section_runner(const std::string& name) {
  static const std::map<std::string, SectionRunner> kRunners = {
      {"gemm", [](BenchRun& run, SectionState&) { if (run.wants("gemm")) bench_gemm_section(run); }},
      {"copy", [](BenchRun& run, SectionState&) { if (run.wants("copy")) bench_copy_section(run); }},
      {"train", [](BenchRun& run, SectionState& s) { s.trained = bench_train_section(run, s.floor_wanted); }},
      {"floor", [](BenchRun& run, SectionState& s) { if (s.floor_wanted) bench_floor_section(run, s.trained); }},
  };
  auto it = kRunners.find(name);
  if (it == kRunners.end()) throw std::logic_error("bench section " + name + " has no runner");
  return it->second;
}

}  // namespace

ExitCode run_bench_command(const BenchOptions& o, const std::string& thread_note) {
  try {
    auto choice = choose_device(o.device);
    if (!choice.device) {
      std::fprintf(stderr, "dlready bench: %s\n", choice.why.c_str());
      return ExitCode::failed;
    }
    BenchRun run{o, *choice.device, Recipe{}, o.json ? stderr : stdout};
    if (o.samples > 0) run.recipe.samples = o.samples;
    const auto& d = run.device;
    if (!thread_note.empty()) std::fprintf(run.human, "dlready bench: %s\n", thread_note.c_str());
    std::fprintf(run.human, "dlready bench on %s (%s); %d thread(s); median of %d samples after %d warm-up runs\n",
                 d.str().c_str(), choice.why.c_str(), at::get_num_threads(), run.recipe.samples, run.recipe.warmup);
    // Other work on the processors slows the figures and widens their spread: said with them.
    if (!thread_note.empty() && !d.is_cuda())
      run.warnings.push_back("other work keeps this machine's processors busy (" + thread_note +
                             "): the figures are lower and noisier than on an idle machine");
    run.json = {{"schema", "dlready.bench/1"}, {"device", d.str()}, {"threads", at::get_num_threads()},
                {"thread_note", thread_note},
                {"recipe", {{"warmup", run.recipe.warmup}, {"samples", run.recipe.samples},
                            {"min_sample_seconds", run.recipe.min_sample_seconds}}}};
    SectionState state;
    // The floor needs the training step's kernel count unless --kernels gives it.
    state.floor_wanted = run.named("floor") || (run.wants("floor") && d.is_cuda());
    for (const auto& section : bench_sections()) section_runner(section.name)(run, state);
    for (const auto& w : run.warnings) std::fprintf(run.human, "WARNING: %s\n", w.c_str());
    run.json["warnings"] = run.warnings;
    run.json["ok"] = run.ok;
    if (run.wrong) std::fprintf(run.human, "a result was wrong: the figures above it are not to be trusted\n");
    if (o.json) std::cout << json_text(run.json, 2) << std::endl;
    return run.ok ? ExitCode::ok : ExitCode::failed;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dlready bench: %s\n", first_line(e.what()).c_str());
    return ExitCode::failed;
  }
}

}  // namespace dlready
