// Which device a LibTorch command runs on, and the doctor's words when CUDA cannot be used. The one
// place train, verify and bench choose their device.
#pragma once
#include <torch/torch.h>

#include <optional>
#include <string>

namespace dlready {

// The doctor's error findings as one line ("... [id]; ..."), or why it could not run. It probes
// the driver in child processes, so call it before CUDA is initialised in this process.
std::string doctor_explanation();

struct DeviceChoice {
  std::optional<torch::Device> device;  // empty: the request cannot be met (why says so)
  std::string why;
};

// wanted: auto | cpu | cuda | cuda:N. auto picks cuda:0 when usable, else the CPU (and says why).
DeviceChoice choose_device(const std::string& wanted);
// The same with the doctor's explanation already in hand (it is not run again).
DeviceChoice choose_device(const std::string& wanted, const std::string& doctor);

}  // namespace dlready
