// dlready_verify_main: runs the check registry on the requested devices and ends with READY /
// NOT READY. The doctor runs first (it must probe the driver before CUDA is initialised here) so
// an unusable CUDA is explained in its words.
#include <cstdio>
#include <iostream>

#include "train/device_choice.hpp"
#include "verify/checks.hpp"
#include "verify/verify_options.hpp"

namespace dlready {
namespace {

struct DeviceRun {
  std::string device;
  std::vector<std::pair<const Check*, CheckResult>> results;
};

const char* mark(CheckStatus s) {
  switch (s) {
    case CheckStatus::pass: return "PASS   ";
    case CheckStatus::warn: return "WARN   ";
    case CheckStatus::fail: return "FAIL   ";
    case CheckStatus::skipped: return "SKIPPED";
  }
  return "?";
}

}  // namespace
}  // namespace dlready

extern "C" int dlready_verify_main(const dlready::VerifyOptions* opt) {
  using namespace dlready;
  const VerifyOptions& o = *opt;
  try {
    bool want_cpu = o.device == "all" || o.device == "cpu";
    bool want_cuda = o.device != "cpu";
    std::string doctor = want_cuda ? doctor_explanation() : "";
    bool cuda_usable = want_cuda && torch::cuda::is_available() && torch::cuda::device_count() > 0;
    int cuda_count = cuda_usable ? static_cast<int>(torch::cuda::device_count()) : 0;

    std::vector<torch::Device> devices;
    std::string problem;  // why the request cannot be met at all
    if (want_cpu) devices.emplace_back(torch::kCPU);
    if (o.device == "all" || o.device == "cuda") {
      for (int i = 0; i < cuda_count; ++i) devices.emplace_back(torch::kCUDA, static_cast<c10::DeviceIndex>(i));
      if (!cuda_usable && o.device == "cuda") problem = "CUDA is not usable: " + doctor;
    } else if (o.device != "cpu") {
      auto choice = choose_device(o.device, doctor);
      if (choice.device) devices.push_back(*choice.device);
      else problem = choice.why;
    }

    std::vector<DeviceRun> runs;
    auto registry = check_registry();
    std::FILE* human = o.json ? stderr : stdout;
    std::fprintf(human, "dlready verify (level %s)\n", o.level.c_str());
    bool any_fail = false;
    for (const auto& d : devices) {
      CheckContext ctx{d, o.level == "full", cuda_count};
      DeviceRun run{d.str(), {}};
      std::fprintf(human, "%s\n", d.str().c_str());
      for (const auto& check : registry) {
        auto r = run_check(check, ctx);
        any_fail = any_fail || r.status == CheckStatus::fail;
        std::fprintf(human, "  %s %-20s %s\n", mark(r.status), check.id.c_str(), r.detail.c_str());
        std::fflush(human);
        run.results.emplace_back(&check, std::move(r));
      }
      runs.push_back(std::move(run));
    }
    std::string cuda_note;
    if (want_cuda && !cuda_usable) {
      cuda_note = "CUDA not usable: " + doctor + "; see dlready doctor";
      std::fprintf(human, "cuda\n  %s\n", cuda_note.c_str());
    }
    bool ready = problem.empty() && !devices.empty() && !any_fail;
    std::string summary;
    if (!problem.empty()) summary = "NOT READY: " + problem;
    else if (any_fail) summary = "NOT READY: a check failed (see FAIL above)";
    else {
      summary = "READY: every check passed on";
      for (const auto& d : devices) summary += " " + d.str();
      if (!cuda_note.empty() && o.device == "all") summary += " (" + cuda_note + ")";
    }
    std::fprintf(human, "%s\n", summary.c_str());

    if (o.json) {
      nlohmann::json devs = nlohmann::json::array();
      for (const auto& run : runs) {
        nlohmann::json checks = nlohmann::json::array();
        for (const auto& [check, r] : run.results)
          checks.push_back({{"id", check->id}, {"title", check->title}, {"status", to_string(r.status)},
                            {"detail", r.detail}, {"data", r.data}});
        devs.push_back({{"device", run.device}, {"checks", checks}});
      }
      nlohmann::json j = {{"schema", "dlready.verify/1"}, {"level", o.level}, {"ready", ready}, {"summary", summary},
                          {"cuda", {{"usable", cuda_usable}, {"devices", cuda_count}, {"explanation", cuda_usable ? "" : doctor}}},
                          {"devices", devs}};
      std::cout << j.dump(2) << std::endl;
    }
    return ready ? kVerifyReady : kVerifyNotReady;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dlready verify: %s\nNOT READY\n", e.what());
    return kVerifyNotReady;
  }
}
