// Compatibility facts the rules need, each row with its source. The table date is reported.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace dlready {

inline constexpr const char* kCompatTableDate = "2026-12-01";

struct CudaMajorDriverMin {
  int cuda_major;
  const char* min_driver_linux;  // minor-version compatibility floor
  const char* source;
};
const std::vector<CudaMajorDriverMin>& cuda_major_driver_minimums();
std::optional<std::string> min_driver_for_cuda(const std::string& cuda_version);  // "12.1" -> 525.60.13

struct DriverBranchCuda {
  int branch;            // R580 -> 580
  const char* max_cuda;  // "13.0"
  const char* source;
};
const std::vector<DriverBranchCuda>& driver_branch_max_cuda();
// Highest CUDA a driver version fully supports ("575.51.03" -> "12.9").
std::optional<std::string> max_cuda_for_driver(const std::string& driver_version);

struct TorchVariant {
  const char* torch;    // release line, "2.11"
  const char* variant;  // cu130
  const char* cuda;     // 13.0
  const char* arch_list;  // TORCH_CUDA_ARCH_LIST of the wheel ("7.5;8.0;...")
  bool pypi_default;
  const char* source;
};
const std::vector<TorchVariant>& torch_variants();
// "cuda" of CUDA's encoding 13000 -> "13.0"
std::string cuda_version_string(int encoded);

}  // namespace dlready
