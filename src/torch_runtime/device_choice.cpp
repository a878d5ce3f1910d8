#include "torch_runtime/device_choice.hpp"

#include "doctor/examine.hpp"
#include "torch_runtime/cuda_support.hpp"

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

// These three go through libtorch_cpu (CUDA's hooks, the global context): both modules have them.
void synchronize(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

void set_tf32(bool allowed) {
  // The matmul-precision switch exists from 1.12 to 2.11 and drives cuBLAS's TF32 use.
  at::globalContext().setFloat32MatmulPrecision(allowed ? "high" : "highest");
}

bool pinned_memory_available() { return torch::cuda::is_available(); }

}  // namespace dlready
