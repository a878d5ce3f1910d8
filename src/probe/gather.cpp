// gather_facts, every platform's: which source of facts reads the examined machine.
#include "probe/gather.hpp"

namespace dlready {
namespace {

std::string platform_words(const std::string& platform) {
  if (platform == "linux") return "Linux";
  if (platform == "windows") return "Windows";
  if (platform == "macos") return "macOS";
  return platform;
}

}  // namespace

GatherResult gather_facts(const GatherOptions& options) {
  auto sources = fact_sources();
  if (options.root == "/") return sources.front().gather(options);
  GatherResult r;
  const FactSource* reader = nullptr;
  for (const auto& s : sources)
    if (s.platform_of && !reader) reader = &s;
  if (!reader) {
    r.error = "--root " + options.root + ": this build examines only the machine it runs on";
    return r;
  }
  std::string platform = reader->platform_of(options.root);
  std::string readable;
  for (const auto& s : sources) {
    if (!s.platform_of) continue;
    if (s.platform == platform) return s.gather(options);
    readable += (readable.empty() ? "" : ", ") + platform_words(s.platform);
  }
  r.error = "--root " + options.root + " holds a " + platform_words(platform) + " machine; this dlready reads " + readable +
            " machines: run dlready doctor on that machine (dlready doctor --markdown there gives a report to attach)";
  return r;
}

}  // namespace dlready
