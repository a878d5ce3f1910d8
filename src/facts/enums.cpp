#include "facts/facts.hpp"
#include "facts/findings.hpp"

namespace dlready {

const char* to_string(ProbeStatus s) {
  switch (s) {
    case ProbeStatus::not_run: return "not_run";
    case ProbeStatus::ok: return "ok";
    case ProbeStatus::load_failed: return "load_failed";
    case ProbeStatus::symbol_missing: return "symbol_missing";
    case ProbeStatus::timeout: return "timeout";
    case ProbeStatus::crashed: return "crashed";
    case ProbeStatus::failed: return "failed";
  }
  return "unknown";
}

const char* to_string(Severity s) {
  switch (s) {
    case Severity::info: return "info";
    case Severity::warning: return "warning";
    case Severity::error: return "error";
  }
  return "unknown";
}

}  // namespace dlready
