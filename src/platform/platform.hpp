// The platforms by name only: what the layers that merely say which platform something is need
// (a source of facts, the command table), without the record's contents (platform_record.hpp).
#pragma once

namespace dlready {

enum class Platform { linux, windows, macos };

// Where a command runs (the command table's `platforms`): one bit per platform.
enum PlatformBit : unsigned { kLinux = 1u, kWindows = 2u, kMacos = 4u };
inline constexpr unsigned kEveryPlatform = kLinux | kWindows | kMacos;

}  // namespace dlready
