#include "verify/verify_main.hpp"

#include <cstdio>
#include <iostream>

#include "core/json_text.hpp"
#include "torch_runtime/device_choice.hpp"
#include "verify/checks.hpp"
#include "verify/isolated_checks.hpp"

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

// The devices the request names on this machine, and why the request cannot be met, if so.
struct DevicePlan {
  std::vector<torch::Device> devices;
  std::string problem;
  std::string doctor;  // the doctor's explanation when CUDA was wanted
  bool cuda_usable = false;
  int cuda_count = 0;
};

// What CUDA offers, asked in a child process: this process must not initialise CUDA, since the
// checks run in children of it (isolated_checks.hpp).
DevicePlan plan_devices(const VerifyOptions& o) {
  DevicePlan p;
  bool want_cpu = o.device == "all" || o.device == "cpu";
  bool want_cuda = o.device != "cpu";
  if (want_cpu) p.devices.emplace_back(torch::kCPU);
  if (!want_cuda) return p;
  auto asked = run_isolated_json("asking CUDA for its devices", [&] {
    nlohmann::json j;
    j["doctor"] = doctor_explanation();
    bool usable = torch::cuda::is_available() && torch::cuda::device_count() > 0;
    j["count"] = usable ? static_cast<int>(torch::cuda::device_count()) : 0;
    j["usable"] = usable;
    if (o.device != "all" && o.device != "cuda") {
      auto choice = choose_device(o.device, j["doctor"].get<std::string>());
      j["device"] = choice.device ? choice.device->str() : "";
      j["why"] = choice.why;
    }
    return j;
  });
  if (!asked.error.empty()) {
    p.doctor = "asking CUDA for its devices failed: " + asked.error;
    p.problem = "CUDA is not usable: " + p.doctor;
    return p;
  }
  const auto& j = asked.value;
  p.doctor = j.value("doctor", "");
  p.cuda_usable = j.value("usable", false);
  p.cuda_count = j.value("count", 0);
  if (o.device == "all" || o.device == "cuda") {
    for (int i = 0; i < p.cuda_count; ++i) p.devices.emplace_back(torch::kCUDA, static_cast<c10::DeviceIndex>(i));
    if (!p.cuda_usable && o.device == "cuda") p.problem = "CUDA is not usable: " + p.doctor;
  } else if (auto d = j.value("device", ""); !d.empty()) {
    p.devices.emplace_back(d);
  } else {
    p.problem = j.value("why", "--device " + o.device + ": not usable");
  }
  return p;
}

nlohmann::json verify_json(const VerifyOptions& o, const DevicePlan& p, const std::vector<DeviceRun>& runs,
                           bool ready, const std::string& summary) {
  nlohmann::json devs = nlohmann::json::array();
  for (const auto& run : runs) {
    nlohmann::json checks = nlohmann::json::array();
    for (const auto& [check, r] : run.results)
      checks.push_back({{"id", check->id}, {"title", check->title}, {"status", to_string(r.status)},
                        {"detail", r.detail}, {"data", r.data}});
    devs.push_back({{"device", run.device}, {"checks", checks}});
  }
  return {{"schema", "dlready.verify/1"}, {"level", o.level}, {"ready", ready}, {"summary", summary},
          {"cuda", {{"usable", p.cuda_usable}, {"devices", p.cuda_count},
                    {"explanation", p.cuda_usable ? "" : p.doctor}}},
          {"devices", devs}};
}

// One line that says what was proven and what was not: passed/warned/skipped counts per device,
// and a CPU-only READY says so (a GPU job must not start on it: --require-gpu).
std::string verdict_line(const DevicePlan& plan, const std::vector<DeviceRun>& runs, bool any_fail,
                         const std::string& cuda_note) {
  if (!plan.problem.empty()) return "NOT READY: " + plan.problem;
  if (any_fail) return "NOT READY: a check failed (see FAIL above)";
  std::string line = plan.cuda_count > 0 ? "READY:" : "READY (CPU only, no GPU checked):";
  for (const auto& run : runs) {
    int passed = 0, warned = 0, skipped = 0;
    for (const auto& [check, r] : run.results)
      (r.status == CheckStatus::skipped ? skipped : r.status == CheckStatus::warn ? warned : passed) += 1;
    line += " " + run.device + " " + std::to_string(passed) + " passed";
    if (warned) line += ", " + std::to_string(warned) + " warned";
    if (skipped) line += ", " + std::to_string(skipped) + " skipped";
    line += ";";
  }
  line.pop_back();
  if (!cuda_note.empty()) line += " (" + cuda_note + ")";
  return line;
}

}  // namespace

ExitCode run_verify_command(const VerifyOptions& o) {
  try {
    auto plan = plan_devices(o);
    std::vector<DeviceRun> runs;
    auto registry = check_registry();
    // With --json standard output is the JSON and nothing else is said (errors aside): a script
    // that keeps stderr sees only what went wrong.
    std::FILE* human = o.json ? nullptr : stdout;
    auto say = [human](const std::string& line) {
      if (human) std::fprintf(human, "%s\n", line.c_str()), std::fflush(human);
    };
    say("dlready verify (level " + o.level + ")");
    bool any_fail = false;
    for (const auto& d : plan.devices) {
      CheckContext ctx{d, o.level == "full", plan.cuda_count};
      DeviceRun run{d.str(), {}};
      say(d.str());
      for (auto& outcome : run_checks_isolated(registry, ctx, [&](const CheckOutcome& x) {
             char id[32];
             std::snprintf(id, sizeof id, "%-20s", x.check->id.c_str());
             say("  " + std::string(mark(x.result.status)) + " " + id + " " + x.result.detail);
           })) {
        any_fail = any_fail || outcome.result.status == CheckStatus::fail;
        run.results.emplace_back(outcome.check, std::move(outcome.result));
      }
      runs.push_back(std::move(run));
    }
    std::string cuda_note;
    if (o.device != "cpu" && !plan.cuda_usable) {
      cuda_note = "CUDA not usable: " + plan.doctor + "; see dlready doctor";
      say("cuda\n  " + cuda_note);
    }
    if (o.require_gpu && plan.cuda_count == 0 && plan.problem.empty())
      plan.problem = "--require-gpu and no CUDA device was checked" + (cuda_note.empty() ? "" : " (" + cuda_note + ")");
    bool ready = plan.problem.empty() && !plan.devices.empty() && !any_fail;
    std::string summary = verdict_line(plan, runs, any_fail, cuda_note);
    say(summary);
    if (o.json) std::cout << json_text(verify_json(o, plan, runs, ready, summary), 2) << std::endl;
    return ready ? ExitCode::ok : ExitCode::failed;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dlready verify: %s\nNOT READY\n", e.what());
    return ExitCode::failed;
  }
}

}  // namespace dlready
