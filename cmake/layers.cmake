# The layers without LibTorch (docs/architecture.md), shared by the full build and the module-only
# build a wheel-installed dlready runs (`dlready module build`, cmake/module_only.cmake).
# The doctor half: no LibTorch, no CUDA SDK (our own declarations of the driver entry points).
dlready_layer(dlready_core core
  src/core/root_fs.cpp src/core/posix_fs.cpp src/core/atomic_file.cpp src/core/text.cpp src/core/enums.cpp
  src/core/device_fields.cpp src/core/json_text.cpp src/core/bounded_file.cpp
  src/core/cuda_errors.cpp src/core/edit_distance.cpp src/core/crc32c.cpp src/core/redact.cpp src/core/fatal_signal.cpp
  src/core/tcp_connect.cpp src/core/capture_manifest.cpp src/core/process_runner.cpp src/core/terminal.cpp src/core/host_name.cpp src/core/facts.cpp
  src/core/facts_system.cpp src/core/facts_pci.cpp src/core/facts_kernel_driver.cpp src/core/facts_device_nodes.cpp
  src/core/facts_libraries.cpp src/core/facts_driver.cpp src/core/facts_python.cpp src/core/facts_loader.cpp
  src/core/facts_index.cpp src/core/path_text.cpp src/core/driver_children.cpp src/core/python_files.cpp src/core/facts_windows.cpp)
target_link_libraries(dlready_core PUBLIC nlohmann_json::nlohmann_json ${CMAKE_DL_LIBS})
# Binary-file readers (ELF with its symbol versions, CUDA fat binaries, PE), for every platform's probes
# and the CLI: files as bytes, nothing loaded.
dlready_layer(dlready_binfmt binfmt src/binfmt/elf_reader.cpp src/binfmt/fatbin_reader.cpp src/binfmt/pe_image.cpp)
target_link_libraries(dlready_binfmt PUBLIC dlready_core)
dlready_layer(dlready_probe probe
  src/probe/ld_cache.cpp src/probe/library_locator.cpp src/probe/child_probe.cpp
  src/probe/child_wire.cpp src/probe/cuda_probe.cpp src/probe/nvml_probe.cpp src/probe/env_probe.cpp
  src/probe/os_probe.cpp src/probe/cpu_load_probe.cpp src/probe/pci_probe.cpp src/probe/kernel_driver_probe.cpp src/probe/device_nodes_probe.cpp
  src/probe/cuda_libs_probe.cpp src/probe/python_probe.cpp src/probe/libtorch_probe.cpp src/probe/blas_probe.cpp src/probe/own_module_probe.cpp src/probe/cdi_probe.cpp src/probe/identity_probe.cpp
  src/probe/ld_resolver.cpp src/probe/scan_cache.cpp src/probe/index_pages.cpp src/probe/gather.cpp)
target_link_libraries(dlready_probe PUBLIC dlready_core dlready_binfmt)
dlready_layer(dlready_diagnose diagnose
  src/diagnose/catalogue.cpp src/diagnose/compat.cpp src/diagnose/derive.cpp src/diagnose/gpu_peaks.cpp
  src/diagnose/rules_system.cpp src/diagnose/rules_driver.cpp
  src/diagnose/alloc_conf.cpp src/diagnose/rules_software.cpp src/diagnose/rules_libraries.cpp src/diagnose/rules_platform.cpp src/diagnose/rules_windows.cpp src/diagnose/gpu_code.cpp
  src/diagnose/verdict.cpp src/diagnose/install_plan.cpp src/diagnose/thread_choice.cpp "${PROJECT_BINARY_DIR}/generated/compat_data.cpp")
target_link_libraries(dlready_diagnose PUBLIC dlready_core)
dlready_layer(dlready_report report
  src/report/section_facts.cpp src/report/text_report.cpp src/report/json_report.cpp src/report/collect_env_fields.cpp
  src/report/plan_text.cpp)
target_link_libraries(dlready_report PUBLIC dlready_diagnose)
target_compile_definitions(dlready_report PRIVATE DLREADY_VERSION="${PROJECT_VERSION}")  # named in every report
dlready_layer(dlready_doctor doctor src/doctor/examine.cpp)
target_link_libraries(dlready_doctor PUBLIC dlready_probe dlready_diagnose)
dlready_layer(dlready_snapshot snapshot src/snapshot/stack.cpp src/snapshot/diff.cpp src/snapshot/diff_report.cpp src/snapshot/export.cpp
  src/snapshot/node_compare.cpp)
target_link_libraries(dlready_snapshot PUBLIC dlready_diagnose)
dlready_layer(dlready_launch launch src/launch/dist_env.cpp src/launch/supervisor.cpp src/launch/launcher.cpp
  src/launch/node_channel.cpp src/launch/node_link.cpp)
target_link_libraries(dlready_launch PUBLIC dlready_snapshot dlready_secure)
dlready_layer(dlready_data data src/data/idx.cpp)
target_link_libraries(dlready_data PUBLIC dlready_core ZLIB::ZLIB)
dlready_layer(dlready_secure secure src/secure/secret_key.cpp src/secure/sealed_file.cpp src/secure/audit_log.cpp
  src/secure/job_token.cpp src/secure/content_hash.cpp)
target_link_libraries(dlready_secure PUBLIC dlready_core ${DLREADY_SODIUM})
# sodium.h from wherever libsodium was found (a private prefix on the GPU check's machine).
target_include_directories(dlready_secure PUBLIC "${DLREADY_SODIUM_INCLUDE}")
dlready_layer(dlready_module_api module_api src/module_api/options.cpp)
# dlready capture's folder: what the doctor read, written as a root the doctor replays.
dlready_layer(dlready_capture capture src/capture/capture_tree.cpp)
target_link_libraries(dlready_capture PUBLIC dlready_core)
# dlready setup: the plan's inputs (flags, this machine, the indexes), installing and proving.
dlready_layer(dlready_setup setup src/setup/setup_plan.cpp src/setup/setup_index.cpp src/setup/setup_install.cpp
  src/setup/logged_run.cpp src/setup/module_build.cpp)
target_link_libraries(dlready_setup PUBLIC dlready_doctor nlohmann_json::nlohmann_json)
# File formats read and written without LibTorch (so the fuzz build reaches them).
dlready_layer(dlready_formats formats src/formats/pickle_state_dict.cpp src/formats/metrics.cpp
  src/formats/tensorboard_events.cpp src/formats/curves_svg.cpp src/formats/confusion.cpp src/formats/safetensors.cpp
  src/formats/state_dict_writer.cpp src/formats/checkpoint_format.cpp)
target_link_libraries(dlready_formats PUBLIC dlready_core dlready_secure ZLIB::ZLIB)
target_link_libraries(dlready_module_api PUBLIC dlready_core)
