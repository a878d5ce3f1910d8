// A report a user pasted (`dlready explain --report FILE`): `python -m torch.utils.collect_env`'s
// output — its "Key: value" lines and its "[pip3] name==version" / "[conda] name version build
// channel" library lines — read into the doctor's facts, as a source of facts that examines no
// machine (pure: the GPU table names each GPU's compute capability). Lines it does not know are skipped (a paste holds Markdown, tracebacks, prose); what
// decides a cause and is not there is said by the caller.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "facts/facts.hpp"

namespace dlready {

// What a report holds beside the facts the rules read: ldd's lines ("libnvJitLink.so.12" ->
// "/usr/local/cuda-12.1/lib64/libnvJitLink.so.12", or "not found"), the `docker run` command lines
// it shows and the torch folders its tracebacks name.
struct PastedClues {
  std::map<std::string, std::string> ldd;
  std::vector<std::string> docker_runs;
  std::vector<std::string> torch_folders;  // a traceback's ".../site-packages/torch" (pip's or conda's torch)
  bool secure_boot_on = false;             // mokutil --sb-state's "SecureBoot enabled"
  bool nouveau_loaded = false;             // lsmod's "nouveau" row
  bool python_32bit = false;               // "(32-bit runtime)", "C:\\Python37-32\\": a 32-bit Python on Windows
};

struct PastedReport {
  Facts facts;
  std::vector<std::string> read;     // what the paste gave ("PyTorch 2.2.0+cu121", "driver 470.86", "GPU 0: ...")
  std::vector<std::string> missing;  // what it lacks that would decide more ("the driver version", ...)
  PastedClues clues;
  bool recognised = false;           // it holds collect_env's lines at all
};

[[nodiscard]] PastedReport read_pasted_report(std::string_view text);
// The clues alone (ldd's lines, docker run, a traceback's torch, a 32-bit Python), read from a long
// text (a training log with its traceback) at a few memchr passes per line.
[[nodiscard]] PastedClues read_pasted_clues(std::string_view text);

}  // namespace dlready
