# LibTorch straight from an installed torch wheel's own files (DLREADY_TORCH_DIR = site-packages/torch),
# the way torch.utils.cpp_extension builds against it, without TorchConfig.cmake: for a CUDA wheel that
# file insists on a CUDA toolkit (nvcc, CUDAToolkit), which most people who pip-installed torch do not
# have and the module does not need — the CUDA headers and libcudart it uses are the nvidia-* wheels'
# beside torch, the very copies torch loads. Used by the module-only build (cmake/module_only.cmake).
# Out: TORCH_LIBRARIES, Torch_DIR (for the site-packages path), Torch_VERSION, DLREADY_TORCH_CUDA,
# DLREADY_TORCH_CUDA_HEADERS (the module's own CUDA code can be built), DLREADY_TORCH_TARGET and
# DLREADY_TORCH_CPU_LINK (what the CPU layers compile against and link: cmake/torch_layers.cmake).
set(_lib "${DLREADY_TORCH_DIR}/lib")
foreach(_file include/torch/csrc/api/include/torch/torch.h lib/libtorch.so lib/libtorch_cpu.so lib/libc10.so)
  if(NOT EXISTS "${DLREADY_TORCH_DIR}/${_file}")
    message(FATAL_ERROR "dlready (module): ${DLREADY_TORCH_DIR}/${_file} is missing: not a complete torch wheel")
  endif()
endforeach()
if(NOT DEFINED DLREADY_TORCH_CXX11_ABI)
  message(FATAL_ERROR "dlready (module): DLREADY_TORCH_CXX11_ABI (0 or 1) is not set")
endif()
file(STRINGS "${DLREADY_TORCH_DIR}/version.py" _version REGEX "^__version__ *= *'")
string(REGEX REPLACE "^__version__ *= *'([^']*)'.*" "\\1" Torch_VERSION "${_version}")
set(Torch_DIR "${DLREADY_TORCH_DIR}/share/cmake/Torch")
get_filename_component(_site "${DLREADY_TORCH_DIR}/.." ABSOLUTE)

add_library(dlready_torch_wheel INTERFACE)
target_include_directories(dlready_torch_wheel SYSTEM INTERFACE "${DLREADY_TORCH_DIR}/include"
                           "${DLREADY_TORCH_DIR}/include/torch/csrc/api/include")
# What the wheel's Caffe2Targets.cmake puts on torch_cpu (every Linux wheel is built with them).
target_compile_definitions(dlready_torch_wheel INTERFACE USE_DISTRIBUTED USE_C10D_GLOO USE_RPC USE_TENSORPIPE
                           _GLIBCXX_USE_CXX11_ABI=${DLREADY_TORCH_CXX11_ABI})
# torch_cpu (and torch_cuda) register their operators when loaded: linked even though no symbol of
# theirs is named directly, as LibTorch's own targets do.
target_link_libraries(dlready_torch_wheel INTERFACE "${_lib}/libtorch.so" "-Wl,--no-as-needed,${_lib}/libtorch_cpu.so,--as-needed"
                      "${_lib}/libc10.so")
set(DLREADY_TORCH_CUDA OFF)
set(DLREADY_TORCH_CUDA_HEADERS OFF)
if(EXISTS "${_lib}/libtorch_cuda.so")
  set(DLREADY_TORCH_CUDA ON)
  # cu13 wheels: nvidia/cu13/{include,lib}; cu12: nvidia/<component>/{include,lib}.
  file(GLOB _cuda_includes LIST_DIRECTORIES true "${_site}/nvidia/*/include")
  file(GLOB _cudart "${_site}/nvidia/cu*/lib/libcudart.so.*" "${_site}/nvidia/cuda_runtime/lib/libcudart.so.*")
  list(FILTER _cudart EXCLUDE REGEX "\\.so\\.[0-9]+\\.[0-9]")  # the soname file, not a versioned twin
  if(_cuda_includes AND _cudart)
    list(GET _cudart 0 _cudart)
    set(DLREADY_TORCH_CUDA_HEADERS ON)
    target_include_directories(dlready_torch_wheel SYSTEM INTERFACE ${_cuda_includes})
    target_compile_definitions(dlready_torch_wheel INTERFACE USE_C10D_NCCL)
    target_link_libraries(dlready_torch_wheel INTERFACE "-Wl,--no-as-needed,${_lib}/libtorch_cuda.so,--as-needed"
                          "${_lib}/libc10_cuda.so" "${_cudart}")
    message(STATUS "dlready (module): CUDA headers and ${_cudart} from the nvidia wheels beside torch")
  else()
    # No nvidia wheels beside it (a conda torch, a custom build): the CPU half still builds; CUDA runs
    # through LibTorch, without the module's own CUDA graph and allocator code (cuda_support.cpp).
    target_link_libraries(dlready_torch_wheel INTERFACE "-Wl,--no-as-needed,${_lib}/libtorch_cuda.so,--as-needed")
    message(STATUS "dlready (module): no nvidia-* wheels with CUDA headers beside torch: CUDA graphs left out")
  endif()
endif()
set(TORCH_LIBRARIES dlready_torch_wheel)
set(DLREADY_TORCH_TARGET dlready_torch_wheel)
set(DLREADY_TORCH_CPU_LINK "-Wl,--no-as-needed,${_lib}/libtorch_cpu.so,--as-needed" "${_lib}/libc10.so")
message(STATUS "dlready (module): torch ${Torch_VERSION} from ${DLREADY_TORCH_DIR} (C++11 ABI ${DLREADY_TORCH_CXX11_ABI})")
