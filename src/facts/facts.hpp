// The facts the probes gather. Plain data only: probes fill these, rules read them, renderers
// print them. Anything not known is std::nullopt ("unknown"), never 0 or "". Each group has its
// header and its table (facts/facts_<group>.hpp, .cpp); a new fact is its probe, a member there and
// a row in its table.
#pragma once
#include "facts/facts_device_nodes.hpp"
#include "facts/facts_driver.hpp"
#include "facts/facts_environment.hpp"
#include "facts/facts_index.hpp"
#include "facts/facts_kernel_driver.hpp"
#include "facts/facts_libraries.hpp"
#include "facts/facts_loader.hpp"
#include "facts/facts_pci.hpp"
#include "facts/facts_python.hpp"
#include "facts/facts_system.hpp"
#include "facts/facts_arm.hpp"
#include "facts/facts_macos.hpp"
#include "facts/facts_windows.hpp"

namespace dlready {

struct Facts {
  std::string root = "/";
  OsFacts os;
  PciFacts pci;
  KernelDriverFacts kernel;
  DeviceNodeFacts nodes;
  LibraryLocation libcuda, libnvml;
  DriverApiFacts driver;
  NvmlFacts nvml;
  EnvFacts env;
  CudaLibFacts cuda_libs;
  PythonFacts python;
  LibtorchFacts libtorch;
  BlasFacts blas;
  OwnModuleFacts own_module;
  std::vector<Resolution> binaries;  // --binary PATH, and each PyTorch's libtorch_cuda.so
  std::vector<GpuCode> gpu_code;     // fat binaries of the same (scanned when a GPU's CC is known)
  std::vector<CdiSpec> cdi_specs;    // /etc/cdi, /var/run/cdi
  std::optional<IndexReleases> torch_index;  // what `dlready setup` last read of the indexes (nullopt: never)
  std::optional<WindowsFacts> windows;       // the Windows doctor's own facts (nullopt: not Windows)
  std::optional<MacosFacts> macos;           // the macOS doctor's own facts (nullopt: not macOS)
  std::optional<ArmFacts> arm;               // an aarch64 Linux machine's platform (nullopt: not one)
};

// The doctor's "facts" object, group by group (the report adds the derived "gpu_code").
const FactTable<Facts>& facts_fields();

}  // namespace dlready
