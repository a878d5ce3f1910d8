// `dlready setup`'s plan as text: what was seen of the machine, the build and why, the commands.
#include "report/render.hpp"

#include "core/redact.hpp"

namespace dlready {

std::string render_plan_text(const InstallPlan& p, const std::vector<std::string>& seen,
                             const std::vector<std::string>& commands, const PlanWording& words) {
  std::string out = "dlready setup — the PyTorch build for " + words.machine + ", and why\n";
  for (const auto& s : seen) out += "  seen: " + s + "\n";
  if (!p.ok) return out + "  no plan: " + p.error + "\n";
  out += "  plan: " + p.requirement + " (" + p.variant + words.platform + ") from " + without_credentials(p.index_url) + "\n";
  for (const auto& w : p.why) out += "  why:  " + w + "\n";
  for (const auto& w : p.warnings) out += "  note: " + w + "\n";
  if (!commands.empty()) out += "  commands" + words.shell + ":\n";
  for (const auto& c : commands) out += "    " + c + "\n";
  return out;
}

}  // namespace dlready
