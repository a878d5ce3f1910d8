// What setup plans from, checked the same way on every platform: another machine as its flags
// describe it, this machine as the doctor's facts do, and the flags' values (each printed in the
// plan's commands, so each is checked before any is).
#pragma once
#include <string>
#include <vector>

#include "core/status.hpp"
#include "facts/facts.hpp"
#include "planner/install_plan.hpp"

namespace dlready {

// Another machine as `setup --gpu/--driver/--no-gpu` give it, into `m` (and a line for `seen`);
// fails with what is wrong with the flags (a usage error).
[[nodiscard]] Status machine_from_flags(bool no_gpu, const std::vector<std::string>& gpus, const std::string& driver,
                               PlanMachine& m, std::vector<std::string>& seen);

// This machine as the doctor's facts describe it: the driver and each GPU's compute capability,
// into `m` (with what was seen); fails with why the plan cannot go on.
[[nodiscard]] Status machine_from_facts(const Facts& f, PlanMachine& m, std::vector<std::string>& seen);

// The one check of a setup flag's value on every platform: a value printed in the plan's commands
// (each quoted for its shell: POSIX sh, PowerShell) and written into pip's argument list and
// environment.yml has no space, quote, backtick, backslash or control character.
[[nodiscard]] Status check_flag_value(const std::string& flag, const std::string& value);
// setup's Python and --with values (and --index-url): fails with the usage error; `where_found`
// names where Python was looked for when none was given or found.
[[nodiscard]] Status check_plan_flags(const std::string& python, const std::vector<std::string>& with, const std::string& where_found,
                             const std::string& index_url = "");

// A --macos value is a macOS version (14, 14.5, 10.15.7), else fails saying so.
[[nodiscard]] Status check_macos_version(const std::string& macos);

}  // namespace dlready
