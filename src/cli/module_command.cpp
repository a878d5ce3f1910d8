#include "cli/module_command.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/torch_module.hpp"
#include "core/json_text.hpp"
#include "os/posix_fs.hpp"
#include "core/text.hpp"
#include "probe/gather.hpp"
#include "setup/module_build.hpp"

namespace dlready {
namespace {

std::string torch_words(const TorchBuild& t) {
  return "torch " + t.version + " (" + (t.cuda ? "CUDA " + *t.cuda : std::string("CPU")) + ", C++11 ABI " +
         (t.cxx11_abi ? "on" : "off") + ") in " + t.torch_dir;
}

ExitCode module_build(const ModuleArgs& a) {
  auto loc = locate_train_module();
  if (!loc.kit) {
    std::printf("dlready module build: this dlready was built from source, its module with it: %s\n"
                "  (cmake --build build/release rebuilds both; DLREADY_TRAIN_MODULE overrides it)\n",
                loc.path.c_str());
    return ExitCode::ok;
  }
  if (!loc.torch) {
    std::fprintf(stderr, "dlready module build: %s\n", loc.problem.c_str());
    return ExitCode::failed;
  }
  auto rq = module_build_request(loc);
  rq.jobs = a.jobs;
  rq.force = a.force;
  std::fprintf(stderr, "dlready module build: the LibTorch module for %s\n", torch_words(rq.torch).c_str());
  auto built = build_module(rq);
  if (!built.error.empty()) {
    std::fprintf(stderr, "dlready module build: %s\n", built.error.c_str());
    for (const auto& f : built.fix) std::fprintf(stderr, "  → %s\n", f.c_str());
    return built.interrupted ? ExitCode::interrupted : ExitCode::failed;
  }
  if (built.reused)
    std::printf("dlready module build: already built for this torch: %s (--force builds it again)\n", built.library.c_str());
  else
    std::printf("dlready module build: built in %.0f s: %s\n", built.seconds, built.library.c_str());
  return ExitCode::ok;
}

ExitCode module_status(const ModuleArgs& a) {
  auto loc = locate_train_module();
  bool ready = loc.kit ? loc.torch && loc.problem.empty() : !loc.path.empty() && path_exists(loc.path);
  nlohmann::json j = {{"module", loc.path}, {"ready", ready}, {"built_by", loc.kit ? "dlready module build" : "the source build"}};
  if (loc.torch) j["torch"] = {{"version", loc.torch->version}, {"dir", loc.torch->torch_dir},
                               {"cxx11_abi", loc.torch->cxx11_abi}};
  if (!loc.problem.empty()) j["problem"] = loc.problem;
  if (a.json) {
    std::printf("%s\n", json_text(j, 2).c_str());
    return ready ? ExitCode::ok : ExitCode::failed;
  }
  std::printf("module: %s\n", loc.path.empty() ? "(none: no torch to build it against)" : printable(loc.path).c_str());
  if (loc.torch) std::printf("for:    %s\n", printable(torch_words(*loc.torch)).c_str());
  if (ready) std::printf("state:  ready\n");
  else if (loc.kit) std::printf("state:  %s%s\n", printable(loc.problem).c_str(), loc.torch ? " — dlready module build" : "");
  else std::printf("state:  missing — build dlready from source (scripts/setup.sh), or set DLREADY_TRAIN_MODULE\n");
  return ready ? ExitCode::ok : ExitCode::failed;
}

}  // namespace

void add_module_commands(CLI::App& app, ModuleArgs& a) {
  auto* m = app.get_subcommand("module");
  m->require_subcommand(1);
  auto* b = m->add_subcommand("build", "Compile the module against the active environment's torch with your C++ compiler "
                                       "(once per torch; the first LibTorch command does it too)");
  b->add_flag("--force", a.force, "Build again even when the cached module fits this torch");
  b->add_option("--jobs,-j", a.jobs, "Parallel compile jobs (0: one per processor, as memory allows)")->check(CLI::Range(0, 256));
  auto* s = m->add_subcommand("status", "Which module train would load, for which torch, and whether it is built");
  s->add_flag("--json", a.json, "As JSON");
}

std::optional<ExitCode> run_module_command(const CLI::App& app, const ModuleArgs& a) {
  if (!app.got_subcommand("module")) return std::nullopt;
  const auto* m = app.get_subcommand("module");
  if (m->got_subcommand("build")) return module_build(a);
  return module_status(a);
}

}  // namespace dlready
