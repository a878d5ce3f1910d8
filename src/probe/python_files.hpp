// What a Python environment's files say about its PyTorch, read as plain files (no Python is run):
// torch/version.py, torch-*.dist-info/METADATA, nvidia_*-*.dist-info names, pyvenv.cfg. The same on
// every platform: the files come through a FileSource (RootFs under --root on Linux, Win32 calls on
// Windows).
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "facts/facts.hpp"
#include "probe/requirement_markers.hpp"

namespace dlready {

struct FileSource {
  std::function<std::optional<std::string>(const std::string& path, size_t limit)> read;  // nullopt: unreadable
  std::function<bool(const std::string& path)> exists;
  std::function<std::vector<std::string>(const std::string& dir)> list;  // names; empty when unreadable
  char separator = '/';
  std::string join(const std::string& dir, const std::string& name) const { return dir + separator + name; }
};

// "nvidia_cudnn_cu13" / "nvidia-cudnn-cu13" / "Nvidia.CuDNN-cu13" -> "nvidia-cudnn-cu13" (PEP 503).
std::string normalize_dist_name(std::string_view name);
// "nvidia_cudnn_cu13-9.13.0.50.dist-info" -> {"nvidia-cudnn-cu13", "9.13.0.50"}
std::optional<std::pair<std::string, std::string>> split_dist_info(const std::string& dir);
// A venv's pyvenv.cfg setting ("home = C:\Python312": the Python it was made from); nullopt when the
// file or the setting is not there.
std::optional<std::string> pyvenv_setting(const FileSource& fs, const std::string& prefix, const std::string& name);
// A venv's pyvenv.cfg "version = 3.11.7" (or version_info).
std::optional<std::string> pyvenv_python_version(const FileSource& fs, const std::string& prefix);
// The same two from pyvenv.cfg's text, read once for all its settings.
std::optional<std::string> pyvenv_setting_in(std::string_view cfg, const std::string& name);
std::optional<std::string> pyvenv_python_version_in(std::string_view cfg);
// The torch in `site_packages`; `cuda_library`: its CUDA library under torch/lib
// (libtorch_cuda.so, torch_cuda.dll); `machine`: whose markers decide which of METADATA's nvidia-*
// requirements pip installed there (an unknown field keeps a requirement).
TorchInstall read_torch_install(const FileSource& fs, const std::string& site_packages, const std::string& cuda_library,
                                const MarkerEnvironment& machine = {});
bool has_torch(const FileSource& fs, const std::string& site_packages);
// A conda environment's packages from its conda-meta records: name, version and build from each
// record's file name, channel and depends from the start of the record (conda writes the keys in
// order: build, build_number, channel, constrains, depends, ... files), so a record of megabytes
// (pytorch's lists every file) costs its first 64 KiB. Name order; at most 4096 records.
std::vector<CondaPackage> read_conda_packages(const FileSource& fs, const std::string& prefix);

}  // namespace dlready
