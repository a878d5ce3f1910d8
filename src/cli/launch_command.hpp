// `dlready launch`: options; the work is in launch/launcher.cpp.
#pragma once
#include <CLI/CLI.hpp>

#include <string>

#include "launch/launcher.hpp"

namespace dlready {

// --audit-log / --audit-sign-key of the launcher itself: a launch_start and a launch_end record
// (the ranks' own records go where their `dlready train` options say; the same file is safe).
struct LaunchAuditArgs {
  std::string audit_log, sign_key;
};

void add_launch_command(CLI::App& app, LaunchOptions& opt, LaunchAuditArgs& audit);
int run_audited_launch(const LaunchOptions& opt, const LaunchAuditArgs& audit);

}  // namespace dlready
