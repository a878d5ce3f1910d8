#pragma once
#include <CLI/CLI.hpp>

#include "cli/front_end.hpp"
#include "core/exit_code.hpp"
#include <string>
#include <vector>

namespace dlready {

struct DoctorArgs {
  std::string root = "/";
  bool json = false, markdown = false, no_color = false, list_findings = false, no_driver_probe = false;
  bool no_cache = false;
  bool load_root_drivers = false;
  bool redact = false;  // hide user names, homes, hosts, addresses, secret values (core/redact.hpp)
  std::string fail_on = "error";
  std::string need;  // --need cpu|gpu: the exit status answers "can this machine train there?" alone
  std::string user;
  int timeout_ms = 10000;
  std::vector<std::string> binaries;
};

void add_doctor_command(CLI::App& app, DoctorArgs& args);
ExitCode run_doctor(const DoctorArgs& args);
// doctor as every platform's front end wires it.
CommandGroup doctor_command_group();

}  // namespace dlready
