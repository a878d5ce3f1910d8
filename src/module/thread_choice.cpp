#include "module/thread_choice.hpp"

#include <unistd.h>

#include <cstdlib>
#include <torch/torch.h>

#include "os/root_fs.hpp"
#include "diagnose/idle_threads.hpp"

namespace dlready {
namespace {

constexpr int kWindowMs = 150;  // and only when someone else is runnable: an idle machine pays nothing

int online_processors() { return static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)); }

}  // namespace

PendingThreadChoice begin_thread_choice(int requested, const std::string& started_sample) {
  PendingThreadChoice p;
  if (requested > 0) {
    at::set_num_threads(requested);
    p.decided = true;
    return p;
  }
  for (const char* var : {"OMP_NUM_THREADS", "MKL_NUM_THREADS"})
    if (const char* v = std::getenv(var); v && *v) p.decided = true;
  if (p.decided) return p;
  p.sample = parse_busy_sample(started_sample);
  if (!p.sample) p.sample = start_busy_sample(RootFs("/"), online_processors());
  return p;
}

std::string finish_thread_choice(const PendingThreadChoice& pending) {
  if (pending.decided) return "";
  const int cpus = online_processors();
  std::optional<double> busy;
  if (pending.sample) busy = finish_busy_sample(RootFs("/"), *pending.sample, cpus, kWindowMs);
  auto choice = threads_on_busy_machine(at::get_num_threads(), cpus, busy);
  if (!choice.note.empty()) at::set_num_threads(choice.threads);
  return choice.note;
}

std::string choose_threads(int requested) { return finish_thread_choice(begin_thread_choice(requested)); }

}  // namespace dlready
