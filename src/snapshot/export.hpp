// `dlready export`: a snapshot's PyTorch stack as a file that rebuilds it elsewhere —
// requirements.txt, a conda environment.yml, or a Dockerfile.
#pragma once
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/exit_code.hpp"

namespace dlready {

struct Exported {
  std::string error;  // why nothing could be exported ("" = fine)
  // Exit 2: the document is no snapshot at all (as for diff), or the options ask what cannot be.
  bool usage_error = false;
  std::string text;
  std::vector<std::string> warnings;  // for stderr: what the lock does not carry, and why
};

// One line of the lock: a distribution at the exact version pip recorded ("2.11.0+cu130").
struct LockPin {
  std::string name, version;
};
// The sha256 of each pin's files on its index (setup/lock_hashes.hpp), for `--require-hashes`.
struct LockHashes {
  std::map<std::string, std::vector<std::string>> by_pin;  // "name==version" -> sha256 (hex)
  std::vector<std::string> missing;  // "name==version (why)": pins the index gave no hash for
  std::vector<std::string> sources;  // the indexes that answered
};

// The pins the lock of `snapshot` holds (torch first); empty when export_stack would refuse it.
std::vector<LockPin> export_pins(const nlohmann::json& snapshot);

// format: requirements | conda | dockerfile. With `hashes` (requirements only), every pin carries
// its files' --hash lines and the file says whether pip --require-hashes can install it.
Exported export_stack(const nlohmann::json& snapshot, const std::string& format, const LockHashes* hashes = nullptr);

// `dlready export` whole: the snapshot read, the lock written to `out` atomically (or to standard
// output when empty); what is wrong in one line on standard error.
// `find_hashes`: where the platform can read an index (nullptr: no --hashes).
using HashFinder = std::function<LockHashes(const std::vector<LockPin>&)>;
ExitCode run_export_command(const std::string& snapshot_path, const std::string& format, const std::string& out,
                            const HashFinder& find_hashes = nullptr);

}  // namespace dlready
