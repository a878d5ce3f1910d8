// Fuzzes the text parsers the probes use on /proc, /sys, /etc and Python files, and snapshot JSON.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/redact.hpp"
#include "core/scan.hpp"
#include "core/text.hpp"
#include "compat/compat.hpp"
#include "diagnose/rules.hpp"
#include "probe/linux/probes.hpp"
#include "snapshot/diff.hpp"
#include "snapshot/export.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string s(reinterpret_cast<const char*>(data), size);
  (void)dlready::parse_nvidia_proc_version(s);
  (void)dlready::parse_os_release_value(s, "PRETTY_NAME");
  (void)dlready::parse_shm_size_from_mounts(s);
  (void)dlready::parse_loadavg(s);
  (void)dlready::parse_cdi_driver_versions(s);
  (void)dlready::lookup_pci_name(s, "10de", "2330");
  (void)dlready::find_assignment(s, "__version__");
  (void)dlready::find_assignment(s, "cuda");
  (void)dlready::compare_versions(s, "580.65.06");
  (void)dlready::min_driver_for_cuda(s);
  (void)dlready::max_cuda_for_driver(s);
  (void)dlready::parse_cuda_visible_devices(s, 4, {"GPU-00112233"});
  (void)dlready::check_alloc_conf(s);
  // The linear readers of long untrusted text (issue 57; the smoke run gives them 1 MB inputs).
  (void)dlready::leading_python_version(s);
  (void)dlready::without_credentials(s);
  (void)dlready::printable(s, 80);
  dlready::RedactionInputs in;
  in.users = {"alice", s.substr(0, 64)};
  in.homes = {"/home/alice"};
  in.environment = {{"PIP_INDEX_URL", s}, {"API_TOKEN", s.substr(s.size() / 2)}};
  const dlready::Redactor redactor(in);
  (void)redactor.apply(s);
  // The linear finder agrees with std::string::find (compared on short inputs: find is quadratic).
  const std::string needle = s.substr(0, s.size() / 3);
  if (s.size() < 4096 && dlready::LinearFinder(needle).find(s, 1) != s.find(needle, 1)) std::abort();
  // Snapshot JSON (dlready diff reads files from other machines).
  auto doc = nlohmann::json::parse(s, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_discarded()) {
    auto stack = dlready::stack_from_json(doc);
    (void)dlready::diff_stacks(stack, dlready::stack_from_json(nlohmann::json::object()));
    (void)dlready::export_stack(doc, "dockerfile");
  }
  return 0;
}
