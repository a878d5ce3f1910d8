// gather_facts, every platform's: which source of facts reads the examined machine.
#include "probe/gather.hpp"

#include "core/text.hpp"
#include "platform/platform_record.hpp"

namespace dlready {

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
  // The root's platform as its capture names it: a stranger's word is named, never trusted.
  std::string name = reader->platform_of(options.root);
  const PlatformRecord* platform = platform_named(name);
  std::string readable;
  for (const auto& s : sources) {
    if (!s.platform_of) continue;
    if (platform && s.platform == platform->platform) return s.gather(options);
    readable += (readable.empty() ? "" : ", ") + std::string(platform_record(s.platform).title);
  }
  std::string words = platform ? std::string(platform->title) : "'" + printable(name, 40) + "'";
  r.error = "--root " + options.root + " holds a " + words + " machine; this dlready reads " + readable +
            " machines: run dlready doctor on that machine (dlready doctor --markdown there gives a report to attach)";
  return r;
}

}  // namespace dlready
