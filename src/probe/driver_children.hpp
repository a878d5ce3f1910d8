// The driver probes' children, the same on every platform: what the child asks the CUDA driver and
// NVML once their library is open (the calls look their entry points up through `SymbolLookup`:
// dlsym on Linux, GetProcAddress on Windows), the "key=value" lines it answers with (devices field
// by field through facts/device_fields.hpp), and how the parent turns the answer — and how the
// child ended — into facts. Starting the child (fork, CreateProcess) is the platform's.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "facts/access_log.hpp"
#include "facts/device_fields.hpp"
#include "facts/facts.hpp"

namespace dlready {

// How a child ended and what it reported.
struct ChildResult {
  enum class End { exited, signalled, timed_out, fork_failed } end = End::exited;
  int code = 0;  // exit code, or the signal's number (Windows: the exception's code, 0xC0000005)
  std::map<std::string, std::string> values;
  double elapsed_ms = 0;
};

// A child's answer as a capture keeps it (facts/access_log.hpp), and back.
ChildAnswer child_answer(const ChildResult& r);
ChildResult child_result(const ChildAnswer& a);

using Emit = std::function<void(const std::string&, const std::string&)>;
// An entry point of the open library by name; nullptr when it has none.
using SymbolLookup = std::function<void*(const char*)>;

// In the child: every known field of `d` as "<prefix><key>=<value>".
template <class Device>
void emit_device(const Device& d, const std::vector<DeviceField<Device>>& fields, const std::string& prefix,
                 const Emit& emit) {
  for (const auto& f : fields)
    if (auto v = field_text(d, f)) emit(prefix + f.key, *v);
}

// In the parent: the fields of device `index` ("dev<index>.") back into a struct.
template <class Device>
Device read_device(const ChildResult& r, const std::vector<DeviceField<Device>>& fields, int index) {
  Device d;
  d.index = index;
  std::string prefix = "dev" + std::to_string(index) + ".";
  for (const auto& f : fields)
    if (auto it = r.values.find(prefix + f.key); it != r.values.end()) (void)set_field(d, f, it->second);
  return d;
}

// The wire: one "key=value" line (a newline in the value becomes a space), and the lines read back
// into `r.values` (a key said twice keeps both values, ", "-joined).
std::string wire_line(const std::string& key, const std::string& value);
void read_wire(const std::string& lines, ChildResult& r);

std::optional<int> int_value(const ChildResult& r, const std::string& key);
std::optional<std::string> str_value(const ChildResult& r, const std::string& key);

// In the child: the entry point into `slot`; a required one that is missing is reported ("missing_symbol").
bool load_symbol_address(const SymbolLookup& lib, const char* name, void** slot, const Emit& emit, bool required);
template <typename Fn>
bool load_symbol(const SymbolLookup& lib, const char* name, Fn& slot, const Emit& emit, bool required) {
  void* address = nullptr;
  bool found = load_symbol_address(lib, name, &address, emit, required);
  slot = reinterpret_cast<Fn>(address);
  return found;
}

// In the child, the library open: the driver version, cuInit's result and every device; NVML's
// driver version and devices. The return value is the child's exit status.
int cuda_driver_calls(const SymbolLookup& lib, const Emit& emit);
int nvml_calls(const SymbolLookup& lib, const Emit& emit);

// How the child ended: timeout, crash, load failure, missing symbol, exit status, or ok.
void classify_child(const ChildResult& r, ProbeStatus& status, std::string& detail);
// The facts from a child's answer (the library's path is the caller's to set).
DriverApiFacts driver_api_from(const ChildResult& r);
NvmlFacts nvml_from(const ChildResult& r);

}  // namespace dlready
