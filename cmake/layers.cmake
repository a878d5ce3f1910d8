# The layers without LibTorch (docs/architecture.md), each layer's sources listed once for every
# platform: the full build, the Windows build (cmake/windows_build.cmake) and the module-only build a
# wheel-installed dlready runs (`dlready module build`, cmake/module_only.cmake).
#
# A source's platforms: its folder (probe/linux/, probe/macos/, probe/windows/; probe/posix/: Linux
# and macOS), else a tag before it in the list
# ("posix:" Linux and macOS, "linux:", "windows:", "macos:", "all:" every platform's, a file of a
# platform's folder that every build compiles — a Windows capture's replay; os's twins carry theirs
# in their names too); an untagged file is every platform's.
if(WIN32)
  set(DLREADY_PLATFORM windows)
elseif(APPLE)
  set(DLREADY_PLATFORM macos)
else()
  set(DLREADY_PLATFORM linux)
endif()

function(dlready_platform_sources out)
  set(kept)
  foreach(item IN LISTS ARGN)
    set(src "${item}")
    set(platforms linux windows macos)
    if(item MATCHES "^(posix|linux|windows|macos|all):(.*)$")
      set(src "${CMAKE_MATCH_2}")
      set(platforms ${CMAKE_MATCH_1})
      if(CMAKE_MATCH_1 STREQUAL "posix")
        set(platforms linux macos)
      elseif(CMAKE_MATCH_1 STREQUAL "all")
        set(platforms linux windows macos)
      endif()
    elseif(item MATCHES "^src/[a-z_]+/(linux|windows|macos)/")
      set(platforms ${CMAKE_MATCH_1})
    elseif(item MATCHES "^src/[a-z_]+/posix/")
      set(platforms linux macos)
    endif()
    if(DLREADY_PLATFORM IN_LIST platforms)
      list(APPEND kept "${src}")
    endif()
  endforeach()
  set(${out} "${kept}" PARENT_SCOPE)
endfunction()

# dlready_layer(target folder sources...): the platform's sources of one layer.
function(dlready_platform_layer target folder)
  dlready_platform_sources(sources ${ARGN})
  dlready_layer(${target} ${folder} ${sources})
endfunction()

# The small core: text, JSON text, paths, checksums, redaction, Status and ExitCode.
dlready_platform_layer(dlready_core core
  src/core/text.cpp src/core/json_text.cpp src/core/path_text.cpp src/core/edit_distance.cpp src/core/crc32c.cpp
  src/core/redact.cpp src/core/cuda_errors.cpp)
if(TARGET nlohmann_json::nlohmann_json)  # the Windows build reaches Debian's headers by its include path
  target_link_libraries(dlready_core PUBLIC nlohmann_json::nlohmann_json)
endif()
# The fact model: each fact group's struct and table, findings, what the doctor read (a capture).
dlready_platform_layer(dlready_facts facts
  src/facts/enums.cpp src/facts/device_fields.cpp src/facts/capture_manifest.cpp src/facts/windows_answers.cpp src/facts/facts.cpp
  src/facts/facts_system.cpp src/facts/facts_pci.cpp src/facts/facts_kernel_driver.cpp src/facts/facts_device_nodes.cpp
  src/facts/facts_libraries.cpp src/facts/facts_driver.cpp src/facts/facts_python.cpp src/facts/facts_loader.cpp
  src/facts/facts_index.cpp src/facts/facts_windows.cpp src/facts/facts_macos.cpp src/facts/facts_arm.cpp)
target_link_libraries(dlready_facts PUBLIC dlready_core)
# The compatibility tables, each row with its source (data/*.tsv compiled in): drivers and CUDA,
# PyTorch's wheels and their architectures, GPUs, macOS wheels, Jetson indexes.
dlready_platform_layer(dlready_compat compat src/compat/compat.cpp src/compat/mac_wheels.cpp src/compat/gpu_peaks.cpp
  "${PROJECT_BINARY_DIR}/generated/compat_data.cpp")
target_link_libraries(dlready_compat PUBLIC dlready_core)
# The platforms, one record each: what differs by platform, looked up by every layer above.
dlready_platform_layer(dlready_platform platform src/platform/platform_record.cpp)
target_link_libraries(dlready_platform PUBLIC dlready_facts)
# The OS services, each platform's twin named by its platform.
dlready_platform_layer(dlready_os os
  posix:src/os/root_fs_posix.cpp posix:src/os/posix_fs.cpp posix:src/os/atomic_file_posix.cpp
  windows:src/os/atomic_file_windows.cpp posix:src/os/bounded_file_posix.cpp windows:src/os/bounded_file_windows.cpp
  linux:src/os/fatal_signal_linux.cpp linux:src/os/tcp_connect_linux.cpp posix:src/os/process_runner_posix.cpp
  linux:src/os/cloexec_pipe_linux.cpp macos:src/os/cloexec_pipe_macos.cpp
  posix:src/os/terminal_posix.cpp windows:src/os/terminal_windows.cpp posix:src/os/host_name_posix.cpp
  windows:src/os/host_name_windows.cpp posix:src/os/stop_signal_posix.cpp posix:src/os/mapped_file_posix.cpp)
target_link_libraries(dlready_os PUBLIC dlready_facts ${CMAKE_DL_LIBS})
# Binary-file readers (ELF with its symbol versions, CUDA fat binaries, PE), for every platform's probes
# and the CLI: files as bytes, nothing loaded.
dlready_platform_layer(dlready_binfmt binfmt linux:src/binfmt/elf_reader.cpp linux:src/binfmt/elf_symbols.cpp linux:src/binfmt/fatbin_reader.cpp
  src/binfmt/pe_image.cpp src/binfmt/macho_reader.cpp)
target_link_libraries(dlready_binfmt PUBLIC dlready_os)
# The sources of facts behind probe/gather.hpp's one verb: what both platforms share at the top,
# each platform's own in its folder.
dlready_platform_layer(dlready_probe probe
  src/probe/gather.cpp src/probe/driver_children.cpp src/probe/python_files.cpp src/probe/requirement_markers.cpp
  src/probe/posix/root_capture.cpp src/probe/posix/users.cpp src/probe/posix/env_probe.cpp src/probe/posix/python_probe.cpp
  src/probe/posix/identity_probe.cpp
  posix:src/probe/index_pages.cpp src/probe/linux/fact_sources_linux.cpp
  src/probe/linux/ld_cache.cpp src/probe/linux/library_locator.cpp src/probe/linux/child_probe.cpp
  src/probe/linux/child_wire.cpp src/probe/linux/cuda_probe.cpp src/probe/linux/nvml_probe.cpp
  src/probe/linux/os_probe.cpp src/probe/linux/arm_probe.cpp src/probe/linux/cpu_load_probe.cpp src/probe/linux/pci_probe.cpp
  src/probe/linux/kernel_driver_probe.cpp src/probe/linux/device_nodes_probe.cpp src/probe/linux/cuda_libs_probe.cpp
  src/probe/linux/libtorch_probe.cpp src/probe/linux/blas_probe.cpp
  src/probe/linux/own_module_probe.cpp src/probe/linux/cdi_probe.cpp
  src/probe/linux/ld_resolver.cpp src/probe/linux/scan_cache.cpp src/probe/linux/gather_linux.cpp
  posix:src/probe/macos/system_version.cpp posix:src/probe/macos/mac_binaries.cpp posix:src/probe/macos/gather_macos.cpp
  posix:src/probe/macos/pip_indexes.cpp posix:src/probe/macos/metal_wire.cpp
  src/probe/macos/live_macos.cpp src/probe/macos/metal_probe.cpp src/probe/macos/fact_sources_macos.cpp
  src/probe/windows/fact_sources_windows.cpp src/probe/windows/registry.cpp src/probe/windows/windows_files.cpp
  src/probe/windows/driver_probe.cpp src/probe/windows/live_windows.cpp src/probe/windows/live_dxgi.cpp
  all:src/probe/windows/recorded_windows.cpp all:src/probe/windows/gather_windows.cpp all:src/probe/windows/dll_search.cpp
  all:src/probe/windows/graphics_probe.cpp all:src/probe/windows/os_probe.cpp all:src/probe/windows/display_adapters.cpp
  all:src/probe/windows/driver_files.cpp all:src/probe/windows/python_probe.cpp all:src/probe/windows/settings_probe.cpp
  all:src/probe/windows/toolkit_probe.cpp)
target_link_libraries(dlready_probe PUBLIC dlready_os dlready_binfmt dlready_platform)
if(WIN32)
  target_link_libraries(dlready_probe PUBLIC version uuid)  # file version resources, DXGI's interface ids
endif()
# Which PyTorch build fits a machine (pure: the machine in, the plan out), for setup and the
# doctor's recommendations alike.
dlready_platform_layer(dlready_planner planner src/planner/install_plan.cpp src/planner/install_plan_macos.cpp)
target_link_libraries(dlready_planner PUBLIC dlready_compat dlready_facts)
dlready_platform_layer(dlready_diagnose diagnose
  src/diagnose/diagnose.cpp src/diagnose/catalogue.cpp src/diagnose/derive.cpp
  src/diagnose/rules_system.cpp src/diagnose/rules_driver.cpp src/diagnose/rules_devices.cpp
  src/diagnose/alloc_conf.cpp src/diagnose/rules_python.cpp src/diagnose/rules_software.cpp src/diagnose/rules_libraries.cpp src/diagnose/rules_services.cpp src/diagnose/rules_windows.cpp src/diagnose/rules_macos.cpp src/diagnose/rules_arm.cpp
  src/diagnose/gpu_code.cpp src/diagnose/error_signatures.cpp src/diagnose/pasted_report.cpp src/diagnose/message_finding.cpp
  src/diagnose/verdict.cpp src/diagnose/idle_threads.cpp)
target_link_libraries(dlready_diagnose PUBLIC dlready_facts dlready_platform dlready_compat dlready_planner)
dlready_platform_layer(dlready_report report
  src/report/section_facts.cpp src/report/text_report.cpp src/report/json_report.cpp src/report/collect_env_fields.cpp
  src/report/plan_text.cpp)
target_link_libraries(dlready_report PUBLIC dlready_diagnose)
target_compile_definitions(dlready_report PRIVATE DLREADY_VERSION="${PROJECT_VERSION}")  # named in every report
dlready_platform_layer(dlready_doctor doctor src/doctor/examine.cpp)
target_link_libraries(dlready_doctor PUBLIC dlready_probe dlready_diagnose)
# dlready capture's folder: what the doctor read, written as a root the doctor replays (Linux and macOS).
if(NOT DLREADY_PLATFORM STREQUAL "windows")
  dlready_platform_layer(dlready_capture capture posix:src/capture/capture_tree.cpp)
  target_link_libraries(dlready_capture PUBLIC dlready_os)
endif()
dlready_platform_layer(dlready_snapshot snapshot src/snapshot/stack.cpp src/snapshot/diff.cpp src/snapshot/diff_report.cpp
  src/snapshot/export.cpp src/snapshot/node_compare.cpp)
target_link_libraries(dlready_snapshot PUBLIC dlready_diagnose dlready_os)
# dlready setup on every platform: the plan's inputs (flags, this machine, the indexes), its commands
# in the shell of the platform planned for; the Linux build's installing and proving.
dlready_platform_layer(dlready_setup setup src/setup/setup_plan.cpp src/setup/setup_run.cpp src/setup/plan_inputs.cpp
  src/setup/plan_commands.cpp posix:src/setup/this_target_posix.cpp windows:src/setup/this_target_windows.cpp
  posix:src/setup/setup_index.cpp posix:src/setup/index_fetch.cpp windows:src/setup/setup_index_windows.cpp
  linux:src/setup/setup_install.cpp linux:src/setup/logged_run.cpp linux:src/setup/module_build.cpp
  linux:src/setup/lock_hashes.cpp)
target_link_libraries(dlready_setup PUBLIC dlready_doctor dlready_report dlready_snapshot)
if(TARGET nlohmann_json::nlohmann_json)
  target_link_libraries(dlready_setup PUBLIC nlohmann_json::nlohmann_json)
endif()

# The front end's sources, every platform's (cli/main.cpp; cli/front_end_<platform>.cpp wires the
# commands a platform runs); the commands only the Linux build has (the LibTorch module, launch,
# the sealed files) are tagged.
dlready_platform_sources(DLREADY_CLI_SOURCES
  src/cli/main.cpp src/cli/command_table.cpp linux:src/cli/front_end_linux.cpp windows:src/cli/front_end_windows.cpp
  macos:src/cli/front_end_macos.cpp
  src/cli/doctor_command.cpp src/cli/explain_command.cpp src/cli/snapshot_command.cpp src/cli/usage_hints.cpp src/cli/help_format.cpp src/cli/setup_command.cpp
  linux:src/cli/train_command.cpp linux:src/cli/torch_module.cpp
  linux:src/cli/cuda_preload.cpp linux:src/cli/module_torch.cpp linux:src/cli/verify_command.cpp linux:src/cli/launch_command.cpp
  linux:src/cli/security_command.cpp linux:src/cli/shell_completion.cpp src/cli/capture_command.cpp
  posix:src/cli/capture_output_posix.cpp windows:src/cli/capture_output_windows.cpp
  linux:src/cli/module_command.cpp)

if(NOT DLREADY_PLATFORM STREQUAL "linux")
  return()  # the Windows and macOS builds are the doctor half alone
endif()
# The layers only the Linux build has (the launcher, training's files, cryptography, setup's installs).
dlready_platform_layer(dlready_launch launch src/launch/dist_env.cpp src/launch/supervisor.cpp src/launch/launcher.cpp
  src/launch/node_channel.cpp src/launch/node_link.cpp)
target_link_libraries(dlready_launch PUBLIC dlready_snapshot dlready_secure)
dlready_platform_layer(dlready_data data src/data/idx.cpp src/data/decoded_cache.cpp)
target_link_libraries(dlready_data PUBLIC dlready_os ZLIB::ZLIB)
dlready_platform_layer(dlready_secure secure src/secure/secret_key.cpp src/secure/sealed_file.cpp src/secure/audit_log.cpp
  src/secure/job_token.cpp src/secure/content_hash.cpp)
target_link_libraries(dlready_secure PUBLIC dlready_os ${DLREADY_SODIUM})
# sodium.h from wherever libsodium was found (a private prefix on the GPU check's machine).
target_include_directories(dlready_secure PUBLIC "${DLREADY_SODIUM_INCLUDE}")
dlready_platform_layer(dlready_module_api module_api src/module_api/options.cpp)
target_link_libraries(dlready_module_api PUBLIC dlready_core)
# File formats read and written without LibTorch (so the fuzz build reaches them).
dlready_platform_layer(dlready_formats formats src/formats/pickle_state_dict.cpp src/formats/metrics.cpp
  src/formats/tensorboard_events.cpp src/formats/curves_svg.cpp src/formats/confusion.cpp src/formats/safetensors.cpp
  src/formats/state_dict_writer.cpp src/formats/checkpoint_format.cpp)
target_link_libraries(dlready_formats PUBLIC dlready_os dlready_secure ZLIB::ZLIB)
