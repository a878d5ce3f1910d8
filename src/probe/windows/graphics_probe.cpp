// Which GPU Windows gives a program: DXGI's adapter list with the adapter it ranks first for high
// performance and for minimum power, and the per-app choices Settings → System → Display →
// Graphics stores for python.exe. The second tutorial warns that some laptops run on the
// integrated GPU even with an NVIDIA one, until the "high-performance NVIDIA processor" is chosen.
#include <dxgi1_6.h>

#include <cstdio>

#include "core/text.hpp"
#include "probe/windows/registry.hpp"
#include "probe/windows/windows_probes.hpp"

namespace dlready {
namespace {

template <class T>
struct ComRef {
  T* p = nullptr;
  ~ComRef() {
    if (p) p->Release();
  }
};

std::string hex4(UINT v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04x", v & 0xffff);
  return buf;
}

std::string luid_text(const LUID& luid) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%08lx:0x%08lx", static_cast<unsigned long>(luid.HighPart),
                static_cast<unsigned long>(luid.LowPart));
  return buf;
}

std::string hresult_text(HRESULT hr) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08lX", static_cast<unsigned long>(hr));
  std::string text = buf;
  if (hr == DXGI_ERROR_UNSUPPORTED) text += " DXGI_ERROR_UNSUPPORTED";
  return text;
}

DxgiAdapter adapter_fact(const DXGI_ADAPTER_DESC1& d) {
  DxgiAdapter a;
  a.name = utf8_from_wide(d.Description);
  a.vendor_id = hex4(d.VendorId);
  a.device_id = hex4(d.DeviceId);
  a.dedicated_memory = static_cast<uint64_t>(d.DedicatedVideoMemory);
  a.luid = luid_text(d.AdapterLuid);
  a.software = d.Flags & DXGI_ADAPTER_FLAG_SOFTWARE;
  return a;
}

// The LUID of the adapter DXGI ranks first for `preference` (Windows 10 1803 and later).
std::optional<std::string> first_for(IDXGIFactory1* factory, DXGI_GPU_PREFERENCE preference) {
  ComRef<IDXGIFactory6> f6;
  if (FAILED(factory->QueryInterface(__uuidof(IDXGIFactory6), reinterpret_cast<void**>(&f6.p)))) return std::nullopt;
  ComRef<IDXGIAdapter1> a;
  DXGI_ADAPTER_DESC1 d{};
  if (FAILED(f6.p->EnumAdapterByGpuPreference(0, preference, __uuidof(IDXGIAdapter1), reinterpret_cast<void**>(&a.p))) ||
      FAILED(a.p->GetDesc1(&d)))
    return std::nullopt;
  return luid_text(d.AdapterLuid);
}

void read_dxgi(WindowsFacts& w) {
  // dxgi.dll is loaded only here (and never unloaded while its objects live).
  HMODULE dxgi = ::LoadLibraryW(L"dxgi.dll");
  auto create = dxgi ? reinterpret_cast<HRESULT(WINAPI*)(REFIID, void**)>(
                           reinterpret_cast<void*>(::GetProcAddress(dxgi, "CreateDXGIFactory1")))
                     : nullptr;
  if (!create) {
    w.dxgi_error = "dxgi.dll could not be loaded";
    return;
  }
  ComRef<IDXGIFactory1> factory;
  HRESULT hr = create(__uuidof(IDXGIFactory1), reinterpret_cast<void**>(&factory.p));
  if (FAILED(hr) || !factory.p) {
    w.dxgi_error = "CreateDXGIFactory1 returned " + hresult_text(hr);
    return;
  }
  for (UINT i = 0; i < 64; ++i) {
    ComRef<IDXGIAdapter1> a;
    if (factory.p->EnumAdapters1(i, &a.p) == DXGI_ERROR_NOT_FOUND || !a.p) break;
    DXGI_ADAPTER_DESC1 d{};
    if (SUCCEEDED(a.p->GetDesc1(&d))) w.dxgi_adapters.push_back(adapter_fact(d));
  }
  w.dxgi_high_performance = first_for(factory.p, DXGI_GPU_PREFERENCE_HIGH_PERFORMANCE);
  w.dxgi_minimum_power = first_for(factory.p, DXGI_GPU_PREFERENCE_MINIMUM_POWER);
}

// "GpuPreference=1;" -> power-saving (Settings' "Power saving"), 2 -> high-performance, 0 -> let-windows-decide.
std::string preference_word(const std::string& text) {
  for (const auto& part : split(text, ';')) {
    auto eq = part.find('=');
    if (eq == std::string::npos || trim(part.substr(0, eq)) != "GpuPreference") continue;
    std::string v = trim(part.substr(eq + 1));
    return v == "1" ? "power-saving" : v == "2" ? "high-performance" : v == "0" ? "let-windows-decide" : "GpuPreference=" + v;
  }
  return "let-windows-decide";
}

}  // namespace

void probe_windows_graphics(WindowsFacts& w) {
  read_dxgi(w);
  for (const auto& [program, text] :
       registry_text_values(HKEY_CURRENT_USER, "Software\\Microsoft\\DirectX\\UserGpuPreferences")) {
    std::string lower = to_lower(program);
    if (ends_with(lower, "\\python.exe") || ends_with(lower, "\\pythonw.exe"))
      w.python_gpu_preferences[program] = preference_word(text);
  }
}

}  // namespace dlready
