#include "module/thread_choice.hpp"

#include <unistd.h>

#include <cstdlib>
#include <torch/torch.h>

#include "os/root_fs.hpp"
#include "diagnose/idle_threads.hpp"
#include "probe/linux/probes.hpp"

namespace dlready {

std::string choose_threads(int requested) {
  if (requested > 0) {
    at::set_num_threads(requested);
    return "";
  }
  for (const char* var : {"OMP_NUM_THREADS", "MKL_NUM_THREADS"})
    if (const char* v = std::getenv(var); v && *v) return "";
  const int cpus = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
  // 150 ms, and only when someone else is runnable: an idle machine pays nothing.
  auto choice = threads_on_busy_machine(at::get_num_threads(), cpus, busy_processors(RootFs("/"), cpus, 150));
  if (!choice.note.empty()) at::set_num_threads(choice.threads);
  return choice.note;
}

}  // namespace dlready
