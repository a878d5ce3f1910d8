# zlib and libsodium as static libraries (and nlohmann-json's headers) from a folder of files rather
# than the system: the portable build's prefix (cmake/portable_deps.cmake) and the module kit a wheel
# carries (cmake/module_only.cmake). A macro, so DLREADY_SODIUM and DLREADY_SODIUM_INCLUDE reach the caller.
macro(dlready_vendored_libraries prefix json_include what missing_hint)
  foreach(_file lib/libz.a lib/libsodium.a include/zlib.h include/sodium.h)
    if(NOT EXISTS "${prefix}/${_file}")
      message(FATAL_ERROR "dlready (${what}): ${prefix}/${_file} is missing: ${missing_hint}")
    endif()
  endforeach()
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  set_target_properties(nlohmann_json::nlohmann_json PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${json_include}")
  add_library(ZLIB::ZLIB STATIC IMPORTED)
  set_target_properties(ZLIB::ZLIB PROPERTIES IMPORTED_LOCATION "${prefix}/lib/libz.a"
                                              INTERFACE_INCLUDE_DIRECTORIES "${prefix}/include")
  set(DLREADY_SODIUM "${prefix}/lib/libsodium.a")
  set(DLREADY_SODIUM_INCLUDE "${prefix}/include")
  find_package(Threads REQUIRED)
endmacro()
