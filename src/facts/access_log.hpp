// What the doctor read from a machine, as it read it — for `dlready capture`, which writes it out
// as a folder that `dlready doctor --root` replays offline (README: "A machine in a bug report"). RootFs fills it when
// asked (RootFs::record_into); the driver probes add their children's answers (probe/child_wire).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "facts/facts.hpp"
#include "facts/windows_answers.hpp"

namespace dlready {

struct FileStat;

// How a driver probe's child ended and what it reported (probe/linux/child_probe.hpp's ChildResult,
// kept here as plain data so that core can hold it).
struct ChildAnswer {
  std::string end = "exited";  // exited | signalled | timed_out | fork_failed
  int code = 0;
  double elapsed_ms = 0;
  std::map<std::string, std::string> values;
};

struct RecordedStat {
  uint32_t mode = 0;  // st_mode, type bits included
  uint32_t uid = 0, gid = 0;
  uint64_t size = 0;
};

struct AccessLog {
  std::set<std::string> paths;                                    // every path asked about
  std::map<std::string, std::map<uint64_t, std::string>> bytes;   // path -> offset -> what was read
  std::map<std::string, RecordedStat> stats;                      // resolved path -> what stat said
  std::map<std::string, std::vector<std::string>> listings;       // folder -> its names
  std::map<std::string, ChildAnswer> children;                    // "cuda", "nvml"
  std::map<std::string, GpuCode> gpu_code;                        // library (inside the root) -> its fat binaries
  std::map<std::string, std::string> sysctl;                      // a Mac's sysctl answers
  std::optional<MetalProbe> metal;                                // a Mac's live Metal probe
  WindowsAnswers windows;                                         // what a Windows machine answered
};

}  // namespace dlready
