#include "torch_runtime/device_choice.hpp"

#include "doctor/examine.hpp"

namespace dlready {

std::string doctor_explanation() {
  // The errors the doctor found are the reason; the rest of its summary is not about this run.
  return error_findings_line(examine_this_machine(), "the driver reports no usable device");
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
