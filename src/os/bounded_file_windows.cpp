// os/bounded_file.hpp on Windows: a disk file only (no pipe, console or device such as CON or
// NUL), its size checked before a byte is read.
#include <cstdint>

#include "os/bounded_file.hpp"
#include "os/windows_text.hpp"

namespace dlready {

FileBytes read_regular_file(const std::string& path, uint64_t max_bytes, const std::string& kind) {
  HANDLE h = ::CreateFileW(wide_from_utf8(path).c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, nullptr,
                           OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (h == INVALID_HANDLE_VALUE) return {std::nullopt, path + ": cannot open (" + win32_error_text(::GetLastError()) + ")"};
  FileBytes out;
  LARGE_INTEGER size{};
  BY_HANDLE_FILE_INFORMATION info{};
  bool folder = ::GetFileInformationByHandle(h, &info) && (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY);
  if (::GetFileType(h) != FILE_TYPE_DISK || folder || !::GetFileSizeEx(h, &size)) {
    out.error = path + ": " + (folder ? "a folder" : "a device or pipe") + ", not " + kind + " (a regular file is needed)";
  } else if (static_cast<uint64_t>(size.QuadPart) > max_bytes) {
    out.error = path + ": " + std::to_string(size.QuadPart) + " bytes, more than " + kind + " can be (" +
                std::to_string(max_bytes) + ")";
  } else {
    std::string bytes(static_cast<size_t>(size.QuadPart), '\0');
    DWORD got = 0;
    if (bytes.empty() || ::ReadFile(h, bytes.data(), static_cast<DWORD>(bytes.size()), &got, nullptr)) {
      bytes.resize(got);
      out.bytes = std::move(bytes);
    } else {
      out.error = path + ": read failed (" + win32_error_text(::GetLastError()) + ")";
    }
  }
  ::CloseHandle(h);
  return out;
}

}  // namespace dlready
