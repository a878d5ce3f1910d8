# The module-only build (-DDLREADY_MODULE_ONLY=ON): libdlready_train.so alone, against the user's own
# torch (cmake/torch_wheel.cmake), compiled by the user's own C++ compiler — never the portable
# toolchain, whose C++ library is not torch's. `dlready module build` runs it from the sources a wheel
# carries (share/dlready/module-src, written by scripts/build-wheels.sh); a source tree builds it too:
#   cmake -S . -B build/module -DDLREADY_MODULE_ONLY=ON -DDLREADY_TORCH_DIR=<site-packages>/torch
#         -DDLREADY_TORCH_CXX11_ABI=1 -DDLREADY_MODULE_KIT=<folder with include/ and lib/>
# The kit holds what a Python machine rarely has: nlohmann-json's headers, and libsodium and zlib
# (zlib-ng, zlib-compatible) as static position-independent C libraries with their headers.
set(DLREADY_BUILD_TESTS OFF)
if(NOT DLREADY_MODULE_KIT)
  set(DLREADY_MODULE_KIT "${PROJECT_SOURCE_DIR}/kit")
endif()
if(NOT EXISTS "${DLREADY_MODULE_KIT}/include/nlohmann/json.hpp")
  message(FATAL_ERROR "dlready (module): ${DLREADY_MODULE_KIT}/include/nlohmann/json.hpp is missing: reinstall the dlready wheel")
endif()
include(cmake/vendored_libs.cmake)
dlready_vendored_libraries("${DLREADY_MODULE_KIT}" "${DLREADY_MODULE_KIT}/include" module "reinstall the dlready wheel")
# -O2 as the source build; no warning flags: the user's compiler speaks to the user, who cannot act
# on a warning in dlready's code (GCC 12's -O3 false stringop warnings filled the first screen).
set(CMAKE_CXX_FLAGS_RELEASE "-O2 -DNDEBUG")
include(cmake/layers.cmake)
include(cmake/torch_wheel.cmake)
set(DLREADY_HAVE_TORCH ON)
include(cmake/torch_layers.cmake)
