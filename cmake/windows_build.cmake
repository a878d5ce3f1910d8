# dlready.exe: the torch-free doctor for Windows x86_64, one static executable (no MinGW runtime DLL
# beside it). The doctor half's layers with their Windows files (src/probe/windows/, os's
# _windows twins) and the one front end (src/cli/); the Linux probes and everything that needs
# LibTorch stay out.
# Built by scripts/build-windows.sh; its scenarios run under wine (tests/windows/).

# The header-only libraries from Debian's packages, without the rest of /usr/include (glibc's
# headers must not shadow mingw's).
set(_headers "${PROJECT_BINARY_DIR}/third_party_include")
file(MAKE_DIRECTORY "${_headers}")
foreach(_dir nlohmann CLI)
  if(NOT EXISTS "/usr/include/${_dir}")
    message(FATAL_ERROR "dlready (Windows): /usr/include/${_dir} is missing: run scripts/setup.sh")
  endif()
  file(CREATE_LINK "/usr/include/${_dir}" "${_headers}/${_dir}" SYMBOLIC)
endforeach()
include_directories(SYSTEM "${_headers}")
# -Wno-restrict: GCC 12's false alarm inside libstdc++'s string copies at -O2 (GCC bug 105329).
add_compile_options(-Wall -Wextra -Wno-missing-field-initializers -Wno-restrict)
# Unicode Win32 calls, and nothing of windows.h's min/max macros.
add_compile_definitions(UNICODE _UNICODE NOMINMAX WIN32_LEAN_AND_MEAN)

# The layers as every platform lists them (cmake/layers.cmake picks the Windows files by name).
include(cmake/layers.cmake)

# The one front end (src/cli/main.cpp), with the Windows build's side of it.
add_executable(dlready ${DLREADY_CLI_SOURCES})
file(MAKE_DIRECTORY "${PROJECT_BINARY_DIR}/layers/cli")
file(CREATE_LINK "${PROJECT_SOURCE_DIR}/src/cli" "${PROJECT_BINARY_DIR}/layers/cli/cli" SYMBOLIC)
target_include_directories(dlready PRIVATE "${PROJECT_BINARY_DIR}/layers/cli")
target_link_libraries(dlready PRIVATE dlready_doctor dlready_report dlready_snapshot dlready_setup)
target_compile_definitions(dlready PRIVATE DLREADY_VERSION="${PROJECT_VERSION}" DLREADY_BUILD_TARGET="windows-x86_64")
# Everything in the .exe: libstdc++, libgcc and winpthread linked statically.
# No link time in the PE header (GNU ld stamps it by default): two builds of one commit are the
# same bytes (scripts/release.sh --check).
target_link_options(dlready PRIVATE -static -static-libgcc -static-libstdc++ -Wl,--no-insert-timestamp)

# The Windows scenarios' fakes (tests/windows_doctor_test.cpp copies them into a wine prefix).
enable_language(RC)
add_library(fake_nvcuda SHARED tests/windows/fake_nvcuda.c tests/windows/fake_nvcuda.rc)
set_target_properties(fake_nvcuda PROPERTIES OUTPUT_NAME nvcuda PREFIX "" LIBRARY_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/fakes"
                      RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/fakes")
target_link_options(fake_nvcuda PRIVATE -static-libgcc)
add_executable(empty_program tests/windows/empty.c)
set_target_properties(empty_program PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/fakes")
target_link_options(empty_program PRIVATE -static)

# torch\lib's DLLs and the runtimes they import (the WinError 126 scenarios): c10.dll imports
# vcruntime140_1.dll, fbgemm.dll imports libomp140.x86_64.dll, torch_cpu.dll imports c10.dll,
# torch_cuda.dll imports cudnn64_9.dll.
function(fake_windows_dll target output source)
  add_library(${target} SHARED ${source})
  set_target_properties(${target} PROPERTIES OUTPUT_NAME "${output}" PREFIX "" RUNTIME_OUTPUT_DIRECTORY
                        "${PROJECT_BINARY_DIR}/fakes" ARCHIVE_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/fakes/lib")
  target_link_options(${target} PRIVATE -static-libgcc)
endfunction()
fake_windows_dll(fake_vcruntime140_1 vcruntime140_1 tests/windows/fake_runtime.c)
fake_windows_dll(fake_libomp140 libomp140.x86_64 tests/windows/fake_runtime.c)
fake_windows_dll(fake_c10 c10 tests/windows/fake_torch_dll.c)
target_link_libraries(fake_c10 PRIVATE fake_vcruntime140_1)
fake_windows_dll(fake_fbgemm fbgemm tests/windows/fake_torch_dll.c)
target_link_libraries(fake_fbgemm PRIVATE fake_libomp140)
fake_windows_dll(fake_torch_cpu torch_cpu tests/windows/fake_torch_cpu.c)
fake_windows_dll(fake_cudnn cudnn64_9 tests/windows/fake_runtime.c)
fake_windows_dll(fake_torch_cuda torch_cuda tests/windows/fake_torch_dll.c)
target_link_libraries(fake_torch_cuda PRIVATE fake_cudnn)
# nvml.dll from the Linux fake's source (tests/fake_driver/fake_nvml.c), answering from fake_driver.conf.
fake_windows_dll(fake_nvml nvml tests/fake_driver/fake_nvml.c)
# dxgi.dll with the adapters a scenario names (loaded instead of wine's with WINEDLLOVERRIDES=dxgi=n).
add_library(fake_dxgi SHARED tests/windows/fake_dxgi.cpp)
set_target_properties(fake_dxgi PROPERTIES OUTPUT_NAME dxgi PREFIX "" RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/fakes"
                      ARCHIVE_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/fakes/lib")
target_link_libraries(fake_dxgi PRIVATE uuid)
target_link_options(fake_dxgi PRIVATE -static)
target_link_libraries(fake_torch_cpu PRIVATE fake_c10)
