// Which GPU Windows gives a program: DXGI's adapter list with the adapter it ranks first for high
// performance and for minimum power, and the per-app choices Settings → System → Display →
// Graphics stores for python.exe. The second tutorial warns that some laptops run on the
// integrated GPU even with an NVIDIA one, until the "high-performance NVIDIA processor" is chosen.
#include "core/text.hpp"
#include "probe/windows/windows_probes.hpp"

namespace dlready {
namespace {

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

void probe_windows_graphics(const WindowsApi& api, WindowsFacts& w) {
  DxgiAnswer dxgi = api.dxgi();
  w.dxgi_adapters = dxgi.adapters;
  w.dxgi_high_performance = dxgi.high_performance;
  w.dxgi_minimum_power = dxgi.minimum_power;
  w.dxgi_error = dxgi.error;
  for (const auto& [program, text] :
       api.registry_text_values(RegistryHive::current_user, "Software\\Microsoft\\DirectX\\UserGpuPreferences")) {
    std::string lower = to_lower(program);
    if (ends_with(lower, "\\python.exe") || ends_with(lower, "\\pythonw.exe"))
      w.python_gpu_preferences[program] = preference_word(text);
  }
}

}  // namespace dlready
