// The facts the probes gather. Plain data only: probes fill these, rules read them, renderers
// print them. Anything not known is std::nullopt ("unknown"), never 0 or "". Each group has its
// header and its table (core/facts_<group>.hpp, .cpp); a new fact is its probe, a member there and
// a row in its table.
#pragma once
#include "core/facts_device_nodes.hpp"
#include "core/facts_driver.hpp"
#include "core/facts_environment.hpp"
#include "core/facts_index.hpp"
#include "core/facts_kernel_driver.hpp"
#include "core/facts_libraries.hpp"
#include "core/facts_loader.hpp"
#include "core/facts_pci.hpp"
#include "core/facts_python.hpp"
#include "core/facts_system.hpp"
#include "core/facts_windows.hpp"

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
};

// The doctor's "facts" object, group by group (the report adds the derived "gpu_code").
const FactTable<Facts>& facts_fields();

}  // namespace dlready
