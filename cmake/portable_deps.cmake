# The libraries of the portable build (-DDLREADY_PORTABLE=ON, scripts/build-wheels.sh): zlib (zlib-ng
# in its zlib-compatible mode) and libsodium, static, built from pinned sources by the same zig
# target into DLREADY_PORTABLE_PREFIX; the header-only CLI11 and nlohmann-json from Debian's
# packages, without the rest of /usr/include (the build machine's glibc headers must not meet the
# target's).
set(_headers "${PROJECT_BINARY_DIR}/third_party_include")
file(MAKE_DIRECTORY "${_headers}")
foreach(_dir nlohmann CLI)
  if(NOT EXISTS "/usr/include/${_dir}")
    message(FATAL_ERROR "dlready (portable): /usr/include/${_dir} is missing: run scripts/setup.sh")
  endif()
  file(CREATE_LINK "/usr/include/${_dir}" "${_headers}/${_dir}" SYMBOLIC)
endforeach()
# The macOS build is the doctor half alone: no layer of it needs zlib or libsodium.
if(APPLE)
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  set_target_properties(nlohmann_json::nlohmann_json PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_headers}")
else()
  include(cmake/vendored_libs.cmake)
  dlready_vendored_libraries("${DLREADY_PORTABLE_PREFIX}" "${_headers}" portable "scripts/build-wheels.sh builds the libraries first")
endif()
add_library(CLI11::CLI11 INTERFACE IMPORTED)
set_target_properties(CLI11::CLI11 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_headers}")
# One self-contained executable: the C++ runtime inside (zig links libc++ statically), nothing but
# the C library's own libraries outside.
add_link_options(-s)
message(STATUS "dlready: portable build for ${DLREADY_ZIG_TARGET} from ${DLREADY_PORTABLE_PREFIX}")
