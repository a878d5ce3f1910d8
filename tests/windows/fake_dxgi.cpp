// A fake dxgi.dll for the Windows doctor's scenarios under wine (loaded in place of wine's own with
// WINEDLLOVERRIDES=dxgi=n): CreateDXGIFactory1 returns a factory whose adapters, and the order
// EnumAdapterByGpuPreference gives them, come from dxgi.conf beside the DLL (key=value lines:
// behaviour=unsupported, adapters, adapterK.name, adapterK.vendor, adapterK.device,
// adapterK.memory_mib, adapterK.software, high_performance, minimum_power). Test code only.
#include <windows.h>
#include <dxgi1_6.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../fake_driver/fake_conf_lookup.h"

namespace {

std::string conf_text() {
  HMODULE self = nullptr;
  char path[MAX_PATH];
  if (!GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                          reinterpret_cast<LPCSTR>(&conf_text), &self) ||
      !GetModuleFileNameA(self, path, sizeof path))
    return "";
  char* slash = std::strrchr(path, '\\');
  if (!slash) return "";
  std::strcpy(slash + 1, "dxgi.conf");
  std::string text;
  if (FILE* f = std::fopen(path, "rb")) {
    char buf[4096];
    while (size_t n = std::fread(buf, 1, sizeof buf, f)) text.append(buf, n);
    std::fclose(f);
  }
  return text;
}

std::string get(const char* key, const char* fallback = "") {
  static const std::string text = conf_text();
  char buf[512];
  const char* v = fake_conf_lookup(text.c_str(), key, buf, sizeof buf);
  return v ? v : fallback;
}

long number(const std::string& key, long fallback) {
  std::string v = get(key.c_str());
  return v.empty() ? fallback : std::strtol(v.c_str(), nullptr, 0);
}

template <class Interface>
class Unknown : public Interface {
 public:
  ULONG STDMETHODCALLTYPE AddRef() override { return ++refs_; }
  ULONG STDMETHODCALLTYPE Release() override {
    ULONG left = --refs_;
    if (left == 0) delete this;
    return left;
  }
  virtual ~Unknown() = default;

 protected:
  ULONG refs_ = 1;
};

class Adapter : public Unknown<IDXGIAdapter1> {
 public:
  explicit Adapter(int index) : index_(index) {}
  HRESULT STDMETHODCALLTYPE QueryInterface(REFIID riid, void** out) override {
    if (riid == __uuidof(IUnknown) || riid == __uuidof(IDXGIObject) || riid == __uuidof(IDXGIAdapter) ||
        riid == __uuidof(IDXGIAdapter1)) {
      *out = this;
      AddRef();
      return S_OK;
    }
    *out = nullptr;
    return E_NOINTERFACE;
  }
  HRESULT STDMETHODCALLTYPE SetPrivateData(REFGUID, UINT, const void*) override { return E_NOTIMPL; }
  HRESULT STDMETHODCALLTYPE SetPrivateDataInterface(REFGUID, const IUnknown*) override { return E_NOTIMPL; }
  HRESULT STDMETHODCALLTYPE GetPrivateData(REFGUID, UINT*, void*) override { return E_NOTIMPL; }
  HRESULT STDMETHODCALLTYPE GetParent(REFIID, void**) override { return E_NOTIMPL; }
  HRESULT STDMETHODCALLTYPE EnumOutputs(UINT, IDXGIOutput**) override { return DXGI_ERROR_NOT_FOUND; }
  HRESULT STDMETHODCALLTYPE GetDesc(DXGI_ADAPTER_DESC*) override { return E_NOTIMPL; }
  HRESULT STDMETHODCALLTYPE CheckInterfaceSupport(REFGUID, LARGE_INTEGER*) override { return DXGI_ERROR_UNSUPPORTED; }
  HRESULT STDMETHODCALLTYPE GetDesc1(DXGI_ADAPTER_DESC1* d) override {
    std::memset(d, 0, sizeof *d);
    std::string k = "adapter" + std::to_string(index_) + ".";
    std::string name = get((k + "name").c_str(), "Fake Adapter");
    MultiByteToWideChar(CP_UTF8, 0, name.c_str(), -1, d->Description, 128);
    d->VendorId = static_cast<UINT>(number(k + "vendor", 0));
    d->DeviceId = static_cast<UINT>(number(k + "device", 0));
    d->DedicatedVideoMemory = static_cast<SIZE_T>(number(k + "memory_mib", 0)) << 20;
    d->AdapterLuid.LowPart = 0x1000 + index_;
    d->Flags = number(k + "software", 0) ? DXGI_ADAPTER_FLAG_SOFTWARE : 0;
    return S_OK;
  }

 private:
  int index_;
};

class Factory : public Unknown<IDXGIFactory6> {
 public:
  HRESULT STDMETHODCALLTYPE QueryInterface(REFIID riid, void** out) override {
    for (const IID& iid : {__uuidof(IUnknown), __uuidof(IDXGIObject), __uuidof(IDXGIFactory), __uuidof(IDXGIFactory1),
                           __uuidof(IDXGIFactory2), __uuidof(IDXGIFactory3), __uuidof(IDXGIFactory4),
                           __uuidof(IDXGIFactory5), __uuidof(IDXGIFactory6)})
      if (riid == iid) {
        *out = this;
        AddRef();
        return S_OK;
      }
    *out = nullptr;
    return E_NOINTERFACE;
  }
  HRESULT STDMETHODCALLTYPE SetPrivateData(REFGUID, UINT, const void*) override { return E_NOTIMPL; }
  HRESULT STDMETHODCALLTYPE SetPrivateDataInterface(REFGUID, const IUnknown*) override { return E_NOTIMPL; }
  HRESULT STDMETHODCALLTYPE GetPrivateData(REFGUID, UINT*, void*) override { return E_NOTIMPL; }
  HRESULT STDMETHODCALLTYPE GetParent(REFIID, void**) override { return E_NOTIMPL; }
  HRESULT STDMETHODCALLTYPE EnumAdapters(UINT, IDXGIAdapter**) override { return E_NOTIMPL; }
  HRESULT STDMETHODCALLTYPE MakeWindowAssociation(HWND, UINT) override { return E_NOTIMPL; }
  HRESULT STDMETHODCALLTYPE GetWindowAssociation(HWND*) override { return E_NOTIMPL; }
  HRESULT STDMETHODCALLTYPE CreateSwapChain(IUnknown*, DXGI_SWAP_CHAIN_DESC*, IDXGISwapChain**) override { return E_NOTIMPL; }
  HRESULT STDMETHODCALLTYPE CreateSoftwareAdapter(HMODULE, IDXGIAdapter**) override { return E_NOTIMPL; }
  HRESULT STDMETHODCALLTYPE EnumAdapters1(UINT i, IDXGIAdapter1** out) override {
    if (static_cast<long>(i) >= number("adapters", 0)) return DXGI_ERROR_NOT_FOUND;
    *out = new Adapter(static_cast<int>(i));
    return S_OK;
  }
  BOOL STDMETHODCALLTYPE IsCurrent() override { return TRUE; }
  BOOL STDMETHODCALLTYPE IsWindowedStereoEnabled() override { return FALSE; }
  HRESULT STDMETHODCALLTYPE CreateSwapChainForHwnd(IUnknown*, HWND, const DXGI_SWAP_CHAIN_DESC1*,
                                                   const DXGI_SWAP_CHAIN_FULLSCREEN_DESC*, IDXGIOutput*,
                                                   IDXGISwapChain1**) override { return E_NOTIMPL; }
  HRESULT STDMETHODCALLTYPE CreateSwapChainForCoreWindow(IUnknown*, IUnknown*, const DXGI_SWAP_CHAIN_DESC1*, IDXGIOutput*,
                                                         IDXGISwapChain1**) override { return E_NOTIMPL; }
  HRESULT STDMETHODCALLTYPE GetSharedResourceAdapterLuid(HANDLE, LUID*) override { return E_NOTIMPL; }
  HRESULT STDMETHODCALLTYPE RegisterStereoStatusWindow(HWND, UINT, DWORD*) override { return E_NOTIMPL; }
  HRESULT STDMETHODCALLTYPE RegisterStereoStatusEvent(HANDLE, DWORD*) override { return E_NOTIMPL; }
  void STDMETHODCALLTYPE UnregisterStereoStatus(DWORD) override {}
  HRESULT STDMETHODCALLTYPE RegisterOcclusionStatusWindow(HWND, UINT, DWORD*) override { return E_NOTIMPL; }
  HRESULT STDMETHODCALLTYPE RegisterOcclusionStatusEvent(HANDLE, DWORD*) override { return E_NOTIMPL; }
  void STDMETHODCALLTYPE UnregisterOcclusionStatus(DWORD) override {}
  HRESULT STDMETHODCALLTYPE CreateSwapChainForComposition(IUnknown*, const DXGI_SWAP_CHAIN_DESC1*, IDXGIOutput*,
                                                          IDXGISwapChain1**) override { return E_NOTIMPL; }
  UINT STDMETHODCALLTYPE GetCreationFlags() override { return 0; }
  HRESULT STDMETHODCALLTYPE EnumAdapterByLuid(LUID, REFIID, void**) override { return E_NOTIMPL; }
  HRESULT STDMETHODCALLTYPE EnumWarpAdapter(REFIID, void**) override { return E_NOTIMPL; }
  HRESULT STDMETHODCALLTYPE CheckFeatureSupport(DXGI_FEATURE, void*, UINT) override { return E_NOTIMPL; }
  // The first adapter for a preference is the conf's; the rest follow in enumeration order.
  HRESULT STDMETHODCALLTYPE EnumAdapterByGpuPreference(UINT i, DXGI_GPU_PREFERENCE preference, REFIID riid,
                                                       void** out) override {
    long count = number("adapters", 0);
    if (static_cast<long>(i) >= count) return DXGI_ERROR_NOT_FOUND;
    long first = preference == DXGI_GPU_PREFERENCE_HIGH_PERFORMANCE ? number("high_performance", 0)
                 : preference == DXGI_GPU_PREFERENCE_MINIMUM_POWER  ? number("minimum_power", 0)
                                                                    : 0;
    long index = i == 0 ? first : (static_cast<long>(i) <= first ? static_cast<long>(i) - 1 : static_cast<long>(i));
    Adapter* a = new Adapter(static_cast<int>(index));
    HRESULT hr = a->QueryInterface(riid, out);
    a->Release();
    return hr;
  }
};

}  // namespace

extern "C" __declspec(dllexport) HRESULT WINAPI CreateDXGIFactory1(REFIID riid, void** out) {
  *out = nullptr;
  if (get("behaviour") == "unsupported") return DXGI_ERROR_UNSUPPORTED;
  Factory* f = new Factory;
  HRESULT hr = f->QueryInterface(riid, out);
  f->Release();
  return hr;
}
