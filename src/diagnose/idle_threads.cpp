#include "diagnose/idle_threads.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace dlready {

ThreadChoice threads_on_busy_machine(int default_threads, int cpus, std::optional<double> busy) {
  ThreadChoice c{std::max(1, default_threads), ""};
  if (!busy || cpus <= 0) return c;
  const double idle = std::max(0.0, cpus - *busy);
  const int want = std::max(1, static_cast<int>(std::floor(idle + 0.5)));
  if (want >= c.threads) return c;
  c.threads = want;
  char buf[160];
  std::snprintf(buf, sizeof buf, "%d processor%s, %.1f busy: using %d thread%s; --threads N to override", cpus,
                cpus == 1 ? "" : "s", *busy, want, want == 1 ? "" : "s");
  c.note = buf;
  return c;
}

}  // namespace dlready
