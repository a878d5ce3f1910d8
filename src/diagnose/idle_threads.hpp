// How many intra-op threads a CPU job should take on a machine others keep busy: LibTorch's
// default (one per core) fights them, and an epoch the tutorial runs in about a second takes 35.
#pragma once
#include <optional>
#include <string>

namespace dlready {

struct ThreadChoice {
  int threads = 1;
  std::string note;  // "" = the default stands; else what the header says about the choice
};

// `default_threads`: what LibTorch would take; `busy`: the processors others keep busy now.
// The idle processors, rounded, at least one and never more than the default.
ThreadChoice threads_on_busy_machine(int default_threads, int cpus, std::optional<double> busy);

}  // namespace dlready
