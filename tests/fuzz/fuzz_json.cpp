// Fuzzes the bounded JSON reader every outside document goes through (core/json_text) and what
// reads a snapshot from it (snapshot/stack, as `dlready diff` and the launchers' preflight do):
// any bytes give a value or a reason, never a crash; nothing deeper than the limit is returned.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/json_text.hpp"
#include "snapshot/stack.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string why;
  auto j = dlready::parse_json_bounded(text, &why);
  if (j.is_discarded()) {
    if (why.empty()) __builtin_trap();
    return 0;
  }
  if (dlready::json_nesting_depth(dlready::json_text(j), 100) > 64) __builtin_trap();
  auto stack = dlready::stack_from_json(j);
  (void)stack;
  return 0;
}
