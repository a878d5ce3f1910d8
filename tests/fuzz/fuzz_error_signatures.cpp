// Fuzzes `dlready explain`'s reading of a stranger's text: the error signatures
// (diagnose/error_signatures) and a pasted collect_env report (diagnose/pasted_report). Any bytes
// give matches whose lines and values are printable and bounded; a report's facts go through the
// doctor's rules without a crash, and what it says it read is printable.
#include <cstddef>
#include <cstdint>
#include <string>

#include "diagnose/error_signatures.hpp"
#include "diagnose/message_finding.hpp"
#include "diagnose/pasted_report.hpp"
#include "diagnose/rules.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  for (const auto& m : dlready::match_error_signatures(text)) {
    if (!m.signature || m.line.size() > 2000) __builtin_trap();
    for (unsigned char c : m.line)
      if (c < 0x20 || c == 0x7f) __builtin_trap();  // printable: control characters escaped
    for (const auto& [name, value] : m.values) {
      if (value.size() > 2000) __builtin_trap();
      for (unsigned char c : value)
        if (c < 0x20 || c == 0x7f) __builtin_trap();
    }
    (void)dlready::signature_advice(m);
  }
  auto pasted = dlready::read_pasted_report(text);
  for (const auto& line : pasted.read)
    for (unsigned char c : line)
      if (c < 0x20 || c == 0x7f) __builtin_trap();
  for (const auto& [name, path] : pasted.clues.ldd)
    for (unsigned char c : name + path)
      if (c < 0x20 || c == 0x7f) __builtin_trap();
  if (pasted.recognised) (void)dlready::diagnose(pasted.facts);
  // A cause the message proves, with what the report adds (ldd's line, LD_LIBRARY_PATH): printable.
  for (const auto& m : dlready::match_error_signatures(text)) {
    if (dlready::decided_finding(m, pasted.clues).empty()) continue;
    auto x = dlready::message_finding(m, pasted.facts, pasted.clues);
    for (const auto& line : x.evidence)
      for (unsigned char c : line)
        if (c < 0x20 || c == 0x7f) __builtin_trap();
  }
  return 0;
}
