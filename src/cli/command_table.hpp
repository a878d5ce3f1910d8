// Every command of dlready, on every platform, in the order help lists them. Where a command runs
// is data here: a binary built for a platform that lacks one still knows it and says where it runs
// (cli/main.cpp); the platform's own file (cli/front_end_<platform>.cpp) wires the ones it runs.
#pragma once
#include <span>
#include <string_view>

#include "platform/platform.hpp"  // PlatformBit

namespace dlready {

struct CommandInfo {
  std::string_view name;
  std::string_view summary;
  unsigned platforms = 0;      // PlatformBit (platform/platform_record.hpp): where it runs
  std::string_view elsewhere;  // on the other platforms: why not, and where to run it
};

[[nodiscard]] std::span<const CommandInfo> command_table();

}  // namespace dlready
