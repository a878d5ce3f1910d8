# The LibTorch layers (docs/architecture.md): torch_runtime is the floor; train, verify and
# distributed stand on it; bench also on train (it measures the training step); module, on top,
# holds the one exported entry point.
# What every LibTorch layer compiles against: LibTorch's headers and definitions, CUDA's among them
# (one set of flags, so one precompiled header serves all); what they link: libtorch_cpu and libc10
# alone. LibTorch's CUDA libraries are linked by the CUDA half below and the module built with it:
# libdlready_train_cpu.so, the module a run without CUDA loads, never loads them (0.15 s and 350 MB
# of a CPU run on two cores). DLREADY_TORCH_TARGET and DLREADY_TORCH_CPU_LINK come from
# CMakeLists.txt (TorchConfig) or cmake/torch_wheel.cmake (the module-only build).
add_library(dlready_torch_cpu INTERFACE)
target_include_directories(dlready_torch_cpu SYSTEM INTERFACE
                           "$<TARGET_PROPERTY:${DLREADY_TORCH_TARGET},INTERFACE_INCLUDE_DIRECTORIES>")
target_compile_definitions(dlready_torch_cpu INTERFACE
                           "$<TARGET_PROPERTY:${DLREADY_TORCH_TARGET},INTERFACE_COMPILE_DEFINITIONS>")
target_compile_options(dlready_torch_cpu INTERFACE "$<TARGET_PROPERTY:${DLREADY_TORCH_TARGET},INTERFACE_COMPILE_OPTIONS>")
target_link_libraries(dlready_torch_cpu INTERFACE ${DLREADY_TORCH_CPU_LINK})

dlready_layer(dlready_torch_runtime torch_runtime
  src/torch_runtime/device_choice.cpp src/torch_runtime/numeric.cpp src/torch_runtime/measure.cpp
  src/torch_runtime/process_group.cpp)
target_link_libraries(dlready_torch_runtime PUBLIC dlready_doctor dlready_torch_cpu)
# <torch/torch.h> costs ~30 s and 1.3 GB per file to parse: compiled once here, reused by every
# LibTorch layer, the module and the test programs (same flags: all position-independent).
target_precompile_headers(dlready_torch_runtime PRIVATE <torch/torch.h>)
target_compile_options(dlready_torch_runtime PUBLIC -Winvalid-pch)  # a header parsed again is said, not hidden
# c10d's Gloo process group: the wheel ships no gloo headers; third_party/gloo-headers supplies
# the declarations (see its README: headers only, the wheel's gloo inside libtorch_cpu runs).
set_source_files_properties(src/torch_runtime/process_group.cpp PROPERTIES
                            INCLUDE_DIRECTORIES "${PROJECT_SOURCE_DIR}/third_party/gloo-headers")
get_filename_component(_dlready_site "${Torch_DIR}/../../../.." ABSOLUTE)

# The CUDA half of torch_runtime (device properties, allocator statistics, CUDA graphs, NCCL), as
# objects linked into libdlready_train.so and the test programs where LibTorch has CUDA and its
# headers are here; else, and in libdlready_train_cpu.so, cuda_absent.cpp stands in for it.
add_library(dlready_torch_no_cuda OBJECT src/torch_runtime/cuda_absent.cpp)
target_link_libraries(dlready_torch_no_cuda PUBLIC dlready_torch_runtime)
set(_dlready_module_cuda dlready_torch_no_cuda)
if(DLREADY_TORCH_CUDA_HEADERS)
  add_library(dlready_torch_cuda_half OBJECT src/torch_runtime/cuda_support.cpp src/torch_runtime/cuda_graph.cpp
              src/torch_runtime/nccl_group.cpp)
  target_link_libraries(dlready_torch_cuda_half PUBLIC dlready_torch_runtime ${TORCH_LIBRARIES})
  set(_dlready_module_cuda dlready_torch_cuda_half)
  # NCCL: the nccl.h of the nvidia-nccl wheel next to torch, the same NCCL the wheel loads
  # (its NCCL_HAS_* macros shape ProcessGroupNCCL's options).
  find_path(DLREADY_NCCL_INCLUDE nccl.h HINTS "${_dlready_site}/nvidia/nccl/include" NO_DEFAULT_PATH)
  if(DLREADY_NCCL_INCLUDE)
    message(STATUS "dlready: NCCL headers at ${DLREADY_NCCL_INCLUDE}: NCCL process groups enabled")
    set_source_files_properties(src/torch_runtime/nccl_group.cpp PROPERTIES INCLUDE_DIRECTORIES "${DLREADY_NCCL_INCLUDE}"
                                COMPILE_DEFINITIONS DLREADY_HAVE_NCCL=1)
  else()
    message(STATUS "dlready: no nccl.h next to torch: NCCL process groups disabled")
    set_source_files_properties(src/torch_runtime/nccl_group.cpp PROPERTIES COMPILE_DEFINITIONS DLREADY_HAVE_NCCL=0)
  endif()
else()
  message(STATUS "dlready: LibTorch without CUDA (or without its headers here): one module, without CUDA code")
endif()
foreach(_half dlready_torch_no_cuda ${_dlready_module_cuda})
  set_target_properties(${_half} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_precompile_headers(${_half} REUSE_FROM dlready_torch_runtime)
endforeach()

dlready_layer(dlready_train train
  src/train/model.cpp src/train/amp.cpp src/train/checkpoint.cpp
  src/train/batches.cpp src/train/run_state.cpp src/train/resume.cpp src/train/fused_mlp_step.cpp
  src/train/step_runner.cpp src/train/graph_replay.cpp src/train/evaluation.cpp src/train/epoch_record.cpp src/train/loss_curve.cpp src/train/model_files.cpp src/train/torch_save_format.cpp
  src/train/safetensors_format.cpp src/train/quantized_model.cpp src/train/quantized_model_file.cpp
  src/train/stop_protocol.cpp src/train/trainer.cpp)
target_link_libraries(dlready_train PUBLIC dlready_torch_runtime dlready_data dlready_module_api dlready_secure dlready_formats)
dlready_layer(dlready_verify verify
  src/verify/registry.cpp src/verify/checks_compute.cpp src/verify/checks_memory.cpp
  src/verify/checks_collective.cpp src/verify/isolated_checks.cpp src/verify/verify_main.cpp)
target_link_libraries(dlready_verify PUBLIC dlready_torch_runtime dlready_module_api)
dlready_layer(dlready_distributed distributed src/distributed/data_parallel.cpp)
target_link_libraries(dlready_distributed PUBLIC dlready_torch_runtime dlready_launch)
dlready_layer(dlready_bench bench
  src/bench/cpu_peak.cpp src/bench/gemm_bench.cpp src/bench/copy_bench.cpp src/bench/train_bench.cpp
  src/bench/launch_floor.cpp src/bench/bench_report.cpp src/bench/bench_main.cpp)
target_link_libraries(dlready_bench PUBLIC dlready_train dlready_module_api)
dlready_layer(dlready_module module src/module/train_entry.cpp src/module/train_console.cpp src/module/model_entry.cpp src/module/quantize_entry.cpp src/module/train_audit.cpp src/module/module_entry.cpp src/module/thread_choice.cpp)
target_link_libraries(dlready_module PUBLIC dlready_train dlready_verify dlready_bench dlready_distributed)

foreach(_layer dlready_train dlready_verify dlready_distributed dlready_bench dlready_module)
  target_precompile_headers(${_layer} REUSE_FROM dlready_torch_runtime)
endforeach()

# Every LibTorch layer, for the tests, with the module's CUDA half as objects (an object library's
# objects reach only the targets that name them: listed as sources here).
add_library(dlready_torch_layers INTERFACE)
target_link_libraries(dlready_torch_layers INTERFACE dlready_module ${_dlready_module_cuda})
target_sources(dlready_torch_layers INTERFACE $<TARGET_OBJECTS:${_dlready_module_cuda}>)

add_library(dlready_train_module MODULE src/module/exports.cpp)
set_target_properties(dlready_train_module PROPERTIES OUTPUT_NAME dlready_train)
# The torch the module is built against (its version.py: __version__ and git_version), written into
# the module's .dlready_torch section: when that torch's folder is gone, the binary finds the same
# build in the user's environment, or names the one it needs (cli/module_torch.hpp).
set(_dlready_built_for_torch "")
if(EXISTS "${_dlready_site}/torch/version.py")
  file(STRINGS "${_dlready_site}/torch/version.py" _dlready_torch_version_lines REGEX "^(__version__|git_version)")
  foreach(_line IN LISTS _dlready_torch_version_lines)
    if(_line MATCHES "^__version__[^'\"]*['\"]([^'\"]*)['\"]")
      set(_dlready_built_for_torch "${CMAKE_MATCH_1}${_dlready_built_for_torch}")
    elseif(_line MATCHES "^git_version[^'\"]*['\"]([^'\"]*)['\"]")
      set(_dlready_built_for_torch "${_dlready_built_for_torch} ${CMAKE_MATCH_1}")
    endif()
  endforeach()
endif()
set_source_files_properties(src/module/exports.cpp PROPERTIES
                            COMPILE_DEFINITIONS "DLREADY_BUILT_FOR_TORCH=\"${_dlready_built_for_torch}\"")
target_link_libraries(dlready_train_module PRIVATE dlready_module ${_dlready_module_cuda})
set(_dlready_modules dlready_train_module)
# The CPU module: the same layers with cuda_absent.cpp, linked against libtorch_cpu and libc10 alone
# (readelf -d shows no CUDA library); `dlready` loads it for a run that cannot use CUDA and falls
# back to libdlready_train.so where it is missing (cli/torch_module.cpp). Built with the main module.
if(DLREADY_TORCH_CUDA_HEADERS)
  add_library(dlready_train_cpu_module MODULE src/module/exports.cpp)
  set_target_properties(dlready_train_cpu_module PROPERTIES OUTPUT_NAME dlready_train_cpu BUILD_WITH_INSTALL_RPATH TRUE
                        INSTALL_RPATH_USE_LINK_PATH FALSE INSTALL_RPATH "${_dlready_site}/torch/lib")
  target_link_libraries(dlready_train_cpu_module PRIVATE dlready_module dlready_torch_no_cuda)
  add_dependencies(dlready_train_module dlready_train_cpu_module)
  list(APPEND _dlready_modules dlready_train_cpu_module)
endif()
foreach(_m ${_dlready_modules})
  # Only dlready_module_abi and dlready_module_run leave a module (src/module/exports.map).
  target_link_options(${_m} PRIVATE "-Wl,--version-script=${PROJECT_SOURCE_DIR}/src/module/exports.map"
                      -Wl,--exclude-libs,ALL)
  set_property(TARGET ${_m} APPEND PROPERTY LINK_DEPENDS "${PROJECT_SOURCE_DIR}/src/module/exports.map")
endforeach()
if(TARGET dlready)
  add_dependencies(dlready dlready_train_module)
endif()

# The CUDA libraries the module links itself (libcudart.so.13 among them) must be the very copies
# libtorch_cuda loads: the wheel's nvidia/*/lib, searched before anything else. Found by the
# module's run path alone, a machine with a CUDA toolkit gave it the toolkit's libcudart beside the
# wheel's cuBLAS and cuDNN (ldd shows it here too), and on the first GPU machine lent `dlready
# verify` crashed in cuDNN's convolution while the same code linked into a test program passed,
# and passed through the module once LD_LIBRARY_PATH named the wheel's folders.
# The run path is exactly those folders and torch/lib, in the build tree and installed alike: the
# one CMake derives from the link line also carried TorchConfig's MKL guesses (/lib/intel64,
# /lib/intel64_win, /lib/win-x64), /usr/local/cuda/lib and an empty entry, which makes the loader
# search the current directory (issue 50, item 1).
file(GLOB _dlready_nvidia_lib_dirs LIST_DIRECTORIES true "${_dlready_site}/nvidia/*/lib")
set_target_properties(dlready_train_module PROPERTIES BUILD_WITH_INSTALL_RPATH TRUE INSTALL_RPATH_USE_LINK_PATH FALSE
                      INSTALL_RPATH "${_dlready_nvidia_lib_dirs};${_dlready_site}/torch/lib")
