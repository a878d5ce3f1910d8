// os/atomic_file.hpp's write_file_atomically on Windows: a temporary file in the same folder,
// flushed to the disk, then moved over the target in one step (MoveFileEx with
// MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH), so a crash leaves the old file or the new.
#include <filesystem>
#include <algorithm>

#include "os/atomic_file.hpp"
#include "os/windows_text.hpp"

namespace dlready {

Status write_file_atomically(const std::string& path, std::string_view content, mode_t) {
  const std::string tmp = path + ".dlready-tmp-" + std::to_string(::GetCurrentProcessId());
  const std::wstring wide_tmp = wide_from_utf8(tmp);
  HANDLE h = ::CreateFileW(wide_tmp.c_str(), GENERIC_WRITE, 0, nullptr, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (h == INVALID_HANDLE_VALUE)
    return Status::failure(path + ": cannot create " + tmp + " (" + win32_error_text(::GetLastError()) + ")");
  size_t written = 0;
  const char* step = nullptr;
  while (written < content.size()) {
    DWORD chunk = static_cast<DWORD>(std::min<size_t>(content.size() - written, 1u << 30)), n = 0;
    if (!::WriteFile(h, content.data() + written, chunk, &n, nullptr) || n == 0) {
      step = "write";
      break;
    }
    written += n;
  }
  if (!step && !::FlushFileBuffers(h)) step = "flush";
  DWORD error = step ? ::GetLastError() : 0;
  ::CloseHandle(h);
  if (!step && !::MoveFileExW(wide_tmp.c_str(), wide_from_utf8(path).c_str(),
                              MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
    step = "replace";
    error = ::GetLastError();
  }
  if (!step) return {};
  ::DeleteFileW(wide_tmp.c_str());
  return Status::failure(path + ": " + step + " failed (" + win32_error_text(error) + "); the file is unchanged");
}

}  // namespace dlready
