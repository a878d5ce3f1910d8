#include <nlohmann/json.hpp>

#include "core/json_text.hpp"
#include "facts/fact_json.hpp"
#include "compat/compat.hpp"
#include "diagnose/gpu_code.hpp"
#include "report/render.hpp"

namespace dlready {
namespace {

using nlohmann::json;

std::vector<std::string> arch_names(const std::vector<int>& archs, const char* prefix) {
  std::vector<std::string> out;
  for (int a : archs) out.push_back(prefix + std::to_string(a));
  return out;
}

template <typename T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

// The GPU code of each scanned library, and per GPU whether it runs it.
json gpu_code_json(const Facts& f) {
  json gpu_code = json::array();
  auto views = gpu_code_views(f);  // one per f.gpu_code entry, in its order
  for (size_t i = 0; i < views.size(); ++i) {
    const auto& v = views[i];
    const auto& c = f.gpu_code[i];
    json gpus = json::array();
    for (const auto& g : v.gpus) gpus.push_back({{"gpu", g.gpu}, {"arch", g.arch}, {"runs", g.runs}, {"how", g.how}});
    gpu_code.push_back({{"library", c.library}, {"owner", v.owner}, {"sass", arch_names(c.sass, "sm_")},
                        {"ptx", arch_names(c.ptx, "compute_")}, {"compressed", c.compressed}, {"error", c.error},
                        {"summary", v.summary}, {"gpus", gpus}});
  }
  return gpu_code;
}

json facts_json(const Facts& f) {
  json facts = fact_group_json(f, facts_fields());
  facts["gpu_code"] = gpu_code_json(f);
  return facts;
}

}  // namespace

std::string render_json(const Facts& f, const Report& r) { return json_text(report_json(f, r), 2) + "\n"; }

json report_json(const Facts& f, const Report& r) {
  json findings = json::array();
  for (const auto& x : r.findings)
    findings.push_back({{"id", x.id}, {"severity", to_string(x.severity)}, {"check", x.check}, {"title", x.title},
                        {"evidence", x.evidence}, {"fix", x.fix}});
  json torch = json::array();
  for (const auto& t : r.verdict.torch)
  {
    json one = {{"location", t.location}, {"version", t.version}, {"cuda", opt(t.cuda)},
                {"cuda_available", t.cuda_available}, {"reason", t.reason}};
    if (t.mps_available) one["mps_available"] = *t.mps_available;  // on a Mac only
    torch.push_back(one);
  }
  json recs = json::array();
  for (const auto& rec : r.recommendations) recs.push_back({{"title", rec.title}, {"commands", rec.commands}});
  json j = {{"schema", "dlready.doctor/1"},
            {"dlready_version", DLREADY_VERSION},
            {"compat_table_date", kCompatTableDate},
            {"facts", facts_json(f)},
            {"findings", findings},
            {"verdict",
             {{"cuda_usable", opt(r.verdict.cuda_usable)}, {"cpu_training_ok", r.verdict.cpu_training_ok},
              {"summary", r.verdict.summary}, {"torch", torch}}},
            {"recommendations", recs}};
  json collect_env = json::object();
  for (const auto& [label, value] : collect_env_fields(f, r)) collect_env[label] = value;
  j["collect_env"] = collect_env;
  return j;
}

}  // namespace dlready
