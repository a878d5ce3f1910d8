#include "train/device_choice.hpp"

#include "diagnose/rules.hpp"
#include "probe/gather.hpp"

namespace dlready {

std::string doctor_explanation() {
  GatherOptions g;
  g.env = process_environment();
  auto facts = gather_facts(g);
  // The errors the doctor found are the reason; the rest of its summary is not about this run.
  std::string doctor = facts.error;
  if (facts.error.empty()) {
    for (const auto& x : diagnose(facts.facts).findings)
      if (x.severity == Severity::error) doctor += (doctor.empty() ? "" : "; ") + x.title + " [" + x.id + "]";
    if (doctor.empty()) doctor = "the driver reports no usable device";
  }
  return doctor;
}

DeviceChoice choose_device(const std::string& wanted) {
  if (wanted == "cpu") return {torch::Device(torch::kCPU), "requested"};
  return choose_device(wanted, doctor_explanation());  // the doctor runs before CUDA is initialised here
}

DeviceChoice choose_device(const std::string& wanted, const std::string& doctor) {
  if (wanted == "cpu") return {torch::Device(torch::kCPU), "requested"};
  bool usable = torch::cuda::is_available() && torch::cuda::device_count() > 0;
  if (wanted == "auto") {
    if (usable) return {torch::Device(torch::kCUDA, 0), "CUDA is usable"};
    return {torch::Device(torch::kCPU), "CUDA not usable: " + doctor + "; see dlready doctor"};
  }
  try {
    torch::Device d(wanted);
    if (d.is_cuda() && !usable) return {std::nullopt, "--device " + wanted + ": CUDA is not usable: " + doctor};
    if (d.is_cuda() && d.has_index() && d.index() >= static_cast<int>(torch::cuda::device_count()))
      return {std::nullopt,
              "--device " + wanted + ": only " + std::to_string(torch::cuda::device_count()) + " CUDA device(s)"};
    if (d.is_cuda() && !d.has_index()) d = torch::Device(torch::kCUDA, 0);
    return {d, "requested"};
  } catch (const std::exception&) {
    return {std::nullopt, "--device " + wanted + ": not a device (use auto, cpu, cuda or cuda:N)"};
  }
}

}  // namespace dlready
