// The CUresult and nvmlReturn_t values the doctor's rules explain, and their names. Facts carry
// these codes as plain ints; rules compare them with these names. Values checked against cuda.h
// (CUDA 13.0) and nvml.h.
#pragma once

namespace dlready::nv {

// CUresult (cuda.h).
constexpr int CUDA_SUCCESS = 0;
constexpr int CUDA_ERROR_NOT_INITIALIZED = 3;
constexpr int CUDA_ERROR_STUB_LIBRARY = 34;
constexpr int CUDA_ERROR_INSUFFICIENT_DRIVER = 35;  // runtime's cudaErrorInsufficientDriver
constexpr int CUDA_ERROR_NO_DEVICE = 100;
constexpr int CUDA_ERROR_INVALID_DEVICE = 101;
constexpr int CUDA_ERROR_OPERATING_SYSTEM = 304;
constexpr int CUDA_ERROR_SYSTEM_NOT_READY = 802;
constexpr int CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803;
constexpr int CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804;
constexpr int CUDA_ERROR_UNKNOWN = 999;

// nvmlReturn_t and compute modes (nvml.h).
constexpr int NVML_SUCCESS = 0;
constexpr int NVML_ERROR_NO_PERMISSION = 4;
constexpr int NVML_ERROR_DRIVER_NOT_LOADED = 9;
constexpr int NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18;
constexpr int NVML_COMPUTEMODE_PROHIBITED = 2;

const char* cuda_error_name(int code);  // our own table, used when cuGetErrorName is missing

}  // namespace dlready::nv
