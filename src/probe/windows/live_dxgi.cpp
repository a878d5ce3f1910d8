// DXGI's adapter list on this machine, with the adapter it ranks first for high performance and
// for minimum power (Windows 10 1803 and later); the Windows build's live answer to
// WindowsApi::dxgi (probe/windows/graphics_probe.cpp reads it).
#include "probe/windows/live_dxgi.hpp"

#include <dxgi1_6.h>

#include <cstdio>

#include "os/windows_text.hpp"

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

}  // namespace

DxgiAnswer read_dxgi() {
  DxgiAnswer w;
  // dxgi.dll is loaded only here (and never unloaded while its objects live).
  HMODULE dxgi = ::LoadLibraryW(L"dxgi.dll");
  auto create = dxgi ? reinterpret_cast<HRESULT(WINAPI*)(REFIID, void**)>(
                           reinterpret_cast<void*>(::GetProcAddress(dxgi, "CreateDXGIFactory1")))
                     : nullptr;
  if (!create) {
    w.error = "dxgi.dll could not be loaded";
    return w;
  }
  ComRef<IDXGIFactory1> factory;
  HRESULT hr = create(__uuidof(IDXGIFactory1), reinterpret_cast<void**>(&factory.p));
  if (FAILED(hr) || !factory.p) {
    w.error = "CreateDXGIFactory1 returned " + hresult_text(hr);
    return w;
  }
  for (UINT i = 0; i < 64; ++i) {
    ComRef<IDXGIAdapter1> a;
    if (factory.p->EnumAdapters1(i, &a.p) == DXGI_ERROR_NOT_FOUND || !a.p) break;
    DXGI_ADAPTER_DESC1 d{};
    if (SUCCEEDED(a.p->GetDesc1(&d))) w.adapters.push_back(adapter_fact(d));
  }
  w.high_performance = first_for(factory.p, DXGI_GPU_PREFERENCE_HIGH_PERFORMANCE);
  w.minimum_power = first_for(factory.p, DXGI_GPU_PREFERENCE_MINIMUM_POWER);
  return w;
}


}  // namespace dlready
