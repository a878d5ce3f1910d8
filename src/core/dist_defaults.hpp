// One default for one meaning: how long a rank or a launcher waits for the others (the
// rendezvous, each collective, the launchers meeting) before it fails naming who is missing.
#pragma once

namespace dlready {

inline constexpr int kDistTimeoutSeconds = 300;

}  // namespace dlready
