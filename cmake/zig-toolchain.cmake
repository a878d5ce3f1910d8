# The portable dlready (the wheels' executable), cross-compiled with zig from PyPI (`ziglang`):
# one static libc++ inside, glibc <= 2.17 (or the macOS minimum) stamped by the target, no other
# library. scripts/build-wheels.sh writes the compiler wrappers (CMake takes no "zig c++") into
# DLREADY_ZIG_WRAPPERS/<target>/ and passes:
#   -DCMAKE_TOOLCHAIN_FILE=cmake/zig-toolchain.cmake -DDLREADY_ZIG_TARGET=x86_64-linux-gnu.2.17
#   -DDLREADY_ZIG_WRAPPERS=~/.cache/dlready/wheel-tools/zig-wrappers
if(NOT DLREADY_ZIG_TARGET OR NOT DLREADY_ZIG_WRAPPERS)
  message(FATAL_ERROR "zig-toolchain.cmake: give -DDLREADY_ZIG_TARGET=... and -DDLREADY_ZIG_WRAPPERS=... "
                      "(scripts/build-wheels.sh does)")
endif()
# try_compile projects see these too.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES DLREADY_ZIG_TARGET DLREADY_ZIG_WRAPPERS)
string(REGEX MATCH "^[^-]+" _arch "${DLREADY_ZIG_TARGET}")
if(DLREADY_ZIG_TARGET MATCHES "-macos")
  set(CMAKE_SYSTEM_NAME Darwin)
  # zig links with its own macOS libc stubs: no SDK, no sysroot; the minimum macOS is in the target
  # (aarch64-macos.11.0), never in -mmacosx-version-min (zig ignores it and stamps the newest).
  # CMake asks for install_name_tool, which a static executable never needs.
  set(CMAKE_OSX_SYSROOT "" CACHE PATH "none: zig's own")
  set(CMAKE_OSX_DEPLOYMENT_TARGET "" CACHE STRING "none: in the zig target")
  set(CMAKE_INSTALL_NAME_TOOL "/bin/true" CACHE FILEPATH "not used")
elseif(DLREADY_ZIG_TARGET MATCHES "-windows")
  set(CMAKE_SYSTEM_NAME Windows)
else()
  set(CMAKE_SYSTEM_NAME Linux)
endif()
set(CMAKE_SYSTEM_PROCESSOR ${_arch})
set(_bin "${DLREADY_ZIG_WRAPPERS}/${DLREADY_ZIG_TARGET}")
set(CMAKE_C_COMPILER "${_bin}/cc")
set(CMAKE_CXX_COMPILER "${_bin}/c++")
set(CMAKE_AR "${_bin}/ar" CACHE FILEPATH "zig ar")
set(CMAKE_RANLIB "${_bin}/ranlib" CACHE FILEPATH "zig ranlib")
# Nothing from the build machine's own prefixes: its glibc headers must never meet zig's.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
