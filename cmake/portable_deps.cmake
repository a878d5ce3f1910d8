# The libraries of the portable build (-DDLREADY_PORTABLE=ON, scripts/build-wheels.sh): zlib (zlib-ng
# in its zlib-compatible mode) and libsodium, static, built from pinned sources by the same zig
# target into DLREADY_PORTABLE_PREFIX; the header-only CLI11 and nlohmann-json from Debian's
# packages, without the rest of /usr/include (the build machine's glibc headers must not meet the
# target's).
foreach(_file lib/libz.a lib/libsodium.a include/zlib.h include/sodium.h)
  if(NOT EXISTS "${DLREADY_PORTABLE_PREFIX}/${_file}")
    message(FATAL_ERROR "dlready (portable): ${DLREADY_PORTABLE_PREFIX}/${_file} is missing: scripts/build-wheels.sh "
                        "builds the libraries first")
  endif()
endforeach()
set(_headers "${PROJECT_BINARY_DIR}/third_party_include")
file(MAKE_DIRECTORY "${_headers}")
foreach(_dir nlohmann CLI)
  if(NOT EXISTS "/usr/include/${_dir}")
    message(FATAL_ERROR "dlready (portable): /usr/include/${_dir} is missing: run scripts/setup.sh")
  endif()
  file(CREATE_LINK "/usr/include/${_dir}" "${_headers}/${_dir}" SYMBOLIC)
endforeach()
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
set_target_properties(nlohmann_json::nlohmann_json PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_headers}")
add_library(CLI11::CLI11 INTERFACE IMPORTED)
set_target_properties(CLI11::CLI11 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_headers}")
add_library(ZLIB::ZLIB STATIC IMPORTED)
set_target_properties(ZLIB::ZLIB PROPERTIES IMPORTED_LOCATION "${DLREADY_PORTABLE_PREFIX}/lib/libz.a"
                                            INTERFACE_INCLUDE_DIRECTORIES "${DLREADY_PORTABLE_PREFIX}/include")
set(DLREADY_SODIUM "${DLREADY_PORTABLE_PREFIX}/lib/libsodium.a")
set(DLREADY_SODIUM_INCLUDE "${DLREADY_PORTABLE_PREFIX}/include")
find_package(Threads REQUIRED)
# One self-contained executable: the C++ runtime inside (zig links libc++ statically), nothing but
# the C library's own libraries outside.
add_link_options(-s)
message(STATUS "dlready: portable build for ${DLREADY_ZIG_TARGET} from ${DLREADY_PORTABLE_PREFIX}")
