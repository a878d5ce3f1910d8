// `dlready diff A B`: what differs between two machines' stacks, area by area, each area with
// why its differences matter to a training job.
#pragma once
#include <string>
#include <vector>

#include "snapshot/stack.hpp"

namespace dlready {

struct StackChange {
  std::string area, key;
  std::string before, after;  // "" = absent on that side
};

// In area order (system, driver, gpus, cuda, python, blas, environment), keys in first-seen order.
std::vector<StackChange> diff_stacks(const Stack& a, const Stack& b);

// What the differences mean for the PyTorch installs of each side on the other machine: a CUDA
// build the other driver is too old for, or an arch list without code for the other GPUs.
std::vector<std::string> consequences(const Stack& before, const Stack& after);

// The two halves of consequences(), one direction each: `from`'s PyTorch builds on the machine `on`
// (its driver; its GPUs against the build's arch list). Each problem is appended as a sentence
// that names both sides by the names given.
void check_torch_against_driver(const Stack& from, const std::string& from_name, const Stack& on,
                                const std::string& on_name, std::vector<std::string>& out);
void check_torch_against_gpus(const Stack& from, const std::string& from_name, const Stack& on,
                              const std::string& on_name, std::vector<std::string>& out);

// One sentence on what a difference in `area` can do to a job that works on the other machine.
std::string why_it_matters(const std::string& area);

}  // namespace dlready
