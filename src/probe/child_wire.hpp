// The wire between a driver probe's child process and the doctor: "key=value" lines (see
// child_probe.hpp). Devices travel field by field through the tables of core/device_fields.hpp,
// and how the child ended becomes a ProbeStatus here, the same way for every probe.
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "core/capture_manifest.hpp"
#include "core/device_fields.hpp"
#include "core/root_fs.hpp"
#include "core/facts.hpp"
#include "probe/child_probe.hpp"

namespace dlready {

using Emit = std::function<void(const std::string&, const std::string&)>;

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

std::optional<int> int_value(const ChildResult& r, const std::string& key);
std::optional<std::string> str_value(const ChildResult& r, const std::string& key);

// In the child: dlopen with the loader's own error text reported ("load_error"); nullptr when the
// library cannot be loaded.
void* open_library(const std::string& path, const Emit& emit);
// In the child: dlsym into `slot`; a required symbol that is missing is reported ("missing_symbol").
bool load_symbol_address(void* lib, const char* name, void** slot, const Emit& emit, bool required);
template <typename Fn>
bool load_symbol(void* lib, const char* name, Fn& slot, const Emit& emit, bool required) {
  void* address = nullptr;
  bool found = load_symbol_address(lib, name, &address, emit, required);
  slot = reinterpret_cast<Fn>(address);
  return found;
}

// The seam between a driver probe and its child: forked here (and its answer noted in the root's
// access log when one records: `dlready capture`), or, when `replay` is a capture's manifest, its
// recorded answer — nullopt when the capture holds none (made with --no-driver-probe).
std::optional<ChildResult> run_driver_child(const RootFs& fs, const CaptureManifest* replay, const std::string& name,
                                            const ChildBody& body, int timeout_ms);

// How the child ended: timeout, crash, load failure, missing symbol, exit status, or ok.
void classify_child(const ChildResult& r, ProbeStatus& status, std::string& detail);

}  // namespace dlready
