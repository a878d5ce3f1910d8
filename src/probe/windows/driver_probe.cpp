// The driver probes on Windows: nvcuda.dll and nvml.dll loaded in a child process — dlready.exe
// itself, started with --driver-child — so a driver that hangs or crashes takes only the child with
// it. The calls and the answer's wire are the Linux probes' own (probe/driver_children.hpp).
#include <chrono>
#include <cstdio>

#include "probe/driver_children.hpp"
#include "probe/windows/registry.hpp"
#include "probe/windows/windows_probes.hpp"

namespace dlready {
namespace {

std::string last_error_text(DWORD code) {
  wchar_t* text = nullptr;
  DWORD n = ::FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
                             nullptr, code, 0, reinterpret_cast<wchar_t*>(&text), 0, nullptr);
  std::string out = n && text ? utf8_from_wide(std::wstring(text, n)) : "";
  if (text) ::LocalFree(text);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == ' ')) out.pop_back();
  return "error " + std::to_string(code) + (out.empty() ? "" : ": " + out);
}

// A crash in the driver ends the child with the exception's code, with no error dialog.
LONG WINAPI end_with_exception(EXCEPTION_POINTERS* e) {
  ::TerminateProcess(::GetCurrentProcess(), e->ExceptionRecord->ExceptionCode);
  return EXCEPTION_EXECUTE_HANDLER;
}

std::wstring own_path() {
  wchar_t path[MAX_PATH];
  DWORD n = ::GetModuleFileNameW(nullptr, path, MAX_PATH);
  return std::wstring(path, n);
}

// What the pipe holds now, without blocking (a child that floods it is read up to 1 MiB).
void drain(HANDLE out, std::string& text) {
  DWORD available = 0, got = 0;
  char chunk[4096];
  while (text.size() < (1u << 20) && ::PeekNamedPipe(out, nullptr, 0, nullptr, &available, nullptr) && available > 0 &&
         ::ReadFile(out, chunk, sizeof chunk, &got, nullptr) && got > 0)
    text.append(chunk, got);
}

// The child's stdout, read until it ends or the deadline passes; false at the deadline.
bool read_until(HANDLE process, HANDLE out, std::chrono::steady_clock::time_point deadline, std::string& text) {
  for (;;) {
    drain(out, text);
    if (::WaitForSingleObject(process, 10) == WAIT_OBJECT_0) {
      drain(out, text);  // what it wrote before it ended
      return true;
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
  }
}

}  // namespace

int run_windows_driver_child(const std::string& kind, const std::string& dll) {
  ::SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX);
  ::SetUnhandledExceptionFilter(end_with_exception);
  Emit emit = [](const std::string& k, const std::string& v) {
    std::string line = wire_line(k, v);
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);  // what was said survives a hang or a crash that follows
  };
  HMODULE lib = ::LoadLibraryExW(wide_from_utf8(dll).c_str(), nullptr, LOAD_WITH_ALTERED_SEARCH_PATH);
  if (!lib) {
    emit("load_error", dll + ": " + last_error_text(::GetLastError()));
    return 3;
  }
  emit("loaded", "1");
  SymbolLookup lookup = [lib](const char* name) { return reinterpret_cast<void*>(::GetProcAddress(lib, name)); };
  return kind == "nvml" ? nvml_calls(lookup, emit) : cuda_driver_calls(lookup, emit);
}

ChildResult windows_driver_child(const std::string& kind, const std::string& dll, int timeout_ms) {
  ChildResult r;
  auto t0 = std::chrono::steady_clock::now();
  SECURITY_ATTRIBUTES inherit{sizeof inherit, nullptr, TRUE};
  HANDLE read_end = nullptr, write_end = nullptr;
  if (!::CreatePipe(&read_end, &write_end, &inherit, 0)) {
    r.end = ChildResult::End::fork_failed;
    return r;
  }
  ::SetHandleInformation(read_end, HANDLE_FLAG_INHERIT, 0);
  STARTUPINFOW si{};
  si.cb = sizeof si;
  si.dwFlags = STARTF_USESTDHANDLES;
  si.hStdOutput = write_end;
  si.hStdError = ::GetStdHandle(STD_ERROR_HANDLE);
  si.hStdInput = nullptr;
  std::wstring command = L"\"" + own_path() + L"\" --driver-child " + wide_from_utf8(kind) + L" \"" +
                         wide_from_utf8(dll) + L"\"";
  PROCESS_INFORMATION pi{};
  bool started = ::CreateProcessW(nullptr, command.data(), nullptr, nullptr, TRUE, CREATE_NO_WINDOW, nullptr, nullptr,
                                  &si, &pi);
  ::CloseHandle(write_end);
  if (!started) {
    ::CloseHandle(read_end);
    r.end = ChildResult::End::fork_failed;
    return r;
  }
  std::string text;
  if (!read_until(pi.hProcess, read_end, t0 + std::chrono::milliseconds(timeout_ms), text)) {
    ::TerminateProcess(pi.hProcess, 1);
    ::WaitForSingleObject(pi.hProcess, 5000);
    r.end = ChildResult::End::timed_out;
  } else {
    DWORD code = 0;
    ::GetExitCodeProcess(pi.hProcess, &code);
    r.end = code >= 0xC0000000u ? ChildResult::End::signalled : ChildResult::End::exited;
    r.code = static_cast<int>(code);
  }
  ::CloseHandle(read_end);
  ::CloseHandle(pi.hThread);
  ::CloseHandle(pi.hProcess);
  read_wire(text, r);
  r.elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace dlready
