// Every command of dlready, on every platform, in the order help lists them. Where a command runs
// is data here: a binary built for a platform that lacks one still knows it and says where it runs
// (cli/main.cpp); the platform's own file (cli/front_end_<platform>.cpp) wires the ones it runs.
#pragma once
#include <span>
#include <string_view>

namespace dlready {

enum PlatformBit : unsigned { kLinux = 1u, kWindows = 2u, kMacos = 4u };
inline constexpr unsigned kEveryPlatform = kLinux | kWindows | kMacos;

struct CommandInfo {
  std::string_view name;
  std::string_view summary;
  unsigned platforms = 0;      // PlatformBit: where it runs
  std::string_view elsewhere;  // on the other platforms: why not, and where to run it
};

[[nodiscard]] std::span<const CommandInfo> command_table();

}  // namespace dlready
