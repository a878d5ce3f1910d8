// `dlready capture`'s output on Windows: a folder whose .dlready-capture\capture.json holds what
// the Windows source of facts asked and what Windows answered (facts/windows_answers.hpp: the
// registry, files, DLL headers, DXGI, the drivers' children), with the machine's own report beside
// it (doctor.json). The Linux and macOS builds replay it with `dlready doctor --root`.
#include <windows.h>

#include <cstdio>

#include "cli/capture_output.hpp"
#include "core/text.hpp"
#include "os/atomic_file.hpp"
#include "os/windows_text.hpp"

namespace dlready {
namespace {

bool exists(const std::string& path) { return ::GetFileAttributesW(wide_from_utf8(path).c_str()) != INVALID_FILE_ATTRIBUTES; }

bool make_folder(const std::string& path) { return ::CreateDirectoryW(wide_from_utf8(path).c_str(), nullptr) != 0; }

// A folder and what is in it (two levels: the staging folder and .dlready-capture).
void remove_staging(const std::string& staging) {
  for (const char* file : {"\\.dlready-capture\\capture.json", "\\.dlready-capture\\doctor.json"})
    ::DeleteFileW(wide_from_utf8(staging + file).c_str());
  ::RemoveDirectoryW(wide_from_utf8(staging + "\\.dlready-capture").c_str());
  ::RemoveDirectoryW(wide_from_utf8(staging).c_str());
}

size_t answers_in(const WindowsAnswers& a) {
  size_t ranges = 0;
  for (const auto& [path, reads] : a.ranges) ranges += reads.size();
  return a.registry_texts.size() + a.registry_numbers.size() + a.registry_subkeys.size() + a.registry_text_values.size() +
         a.exists.size() + a.is_file.size() + a.on_network.size() + a.listings.size() + a.files.size() + ranges +
         a.file_versions.size();
}

}  // namespace

std::string default_capture_name(const std::string& utc_stamp) { return "dlready-capture-" + utc_stamp; }

std::optional<std::string> refuse_capture(const CaptureArgs& a) {
  if (exists(a.out)) return printable(a.out) + " exists: name a new folder (nothing was written)";
  if (ends_with(to_lower(a.out), ".tar.gz") || ends_with(to_lower(a.out), ".tgz") || ends_with(to_lower(a.out), ".zip"))
    return printable(a.out) + ": on Windows a capture is a folder: name one (then Compress-Archive it to attach it)";
  return std::nullopt;
}

Status write_capture_output(const CaptureArgs& a, const CaptureOutput& output, const std::optional<Redactor>& redactor,
                            std::string& wrote) {
  std::string out = a.out;
  while (out.size() > 1 && (out.back() == '\\' || out.back() == '/')) out.pop_back();
  std::string staging = out + ".partial-" + std::to_string(::GetCurrentProcessId());
  if (!make_folder(staging) || !make_folder(staging + "\\.dlready-capture"))
    return Status::failure(staging + ": cannot make the folder (" + win32_error_text(::GetLastError()) + ")");
  std::string manifest = capture_manifest_json(output.manifest, redactor ? &*redactor : nullptr);
  Status s = write_file_atomically(staging + "\\.dlready-capture\\capture.json", manifest);
  if (s.ok()) s = write_file_atomically(staging + "\\.dlready-capture\\doctor.json", output.doctor_json);
  if (s.ok() && !::MoveFileExW(wide_from_utf8(staging).c_str(), wide_from_utf8(out).c_str(), MOVEFILE_WRITE_THROUGH))
    s = Status::failure(out + ": cannot move the capture into place (" + win32_error_text(::GetLastError()) + ")");
  if (!s.ok()) remove_staging(staging);
  char size[32];
  std::snprintf(size, sizeof size, "%.1f KiB", static_cast<double>(manifest.size()) / 1024);
  wrote = std::string(size) + ": " + std::to_string(output.manifest.windows ? answers_in(*output.manifest.windows) : 0) +
          " answers of the registry, files and DLLs, " + std::to_string(output.manifest.children.size()) +
          " of the driver";
  return s;
}

std::string capture_replay_command(const std::string& out) {
  return "copy the folder to a Linux or macOS machine and run dlready doctor --root " + shell_quote(out);
}

}  // namespace dlready
