#include "setup/setup_index.hpp"

#include "setup/index_fetch.hpp"
#include "probe/index_pages.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "os/atomic_file.hpp"
#include "os/bounded_file.hpp"
#include "core/crc32c.hpp"
#include "os/posix_fs.hpp"
#include "os/process_runner.hpp"
#include "core/text.hpp"

namespace dlready {
namespace {

constexpr int kIndexSeconds = kIndexFetchSeconds;

}  // namespace

std::optional<IndexReleases> read_torch_indexes(const PlanMachine& m, std::string& note) {
  if (const char* off = std::getenv("DLREADY_OFFLINE"); off && *off && std::string(off) != "0") {
    note = "DLREADY_OFFLINE is set";
    return std::nullopt;
  }
  IndexReleases index;
  std::vector<std::string> why;
  std::string pip_index = m.index_url.empty() ? "https://pypi.org/simple/" : with_slash(m.index_url);
  std::vector<std::string> urls = {pip_index + "torch/"};
  if (with_slash(m.torch_index) != pip_index) urls.push_back(with_slash(m.torch_index) + "torch/");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kIndexSeconds);
  for (const auto& url : urls) {
    std::string source, failed, file;
    int left = static_cast<int>(std::chrono::duration_cast<std::chrono::seconds>(deadline - std::chrono::steady_clock::now()).count());
    if (auto page = read_index_page(url, left, file, source, failed)) {
      size_t labelled = labelled_wheels(index);
      try {
        add_index_page(index, *page, m.platform);
      } catch (const std::exception&) {  // no page may make every setup fail for a day: it leaves the cache
        if (!file.empty()) ::unlink(file.c_str());
        why.push_back(url + " served a page dlready cannot read");
        index.sources.push_back(url + " (unreadable page)");
        continue;
      }
      if (labelled_wheels(index) > labelled) index.variant_index = url.substr(0, url.size() - 6);  // minus "torch/"
      index.sources.push_back(source);
    } else if (!failed.empty()) {
      why.push_back(failed);
      index.sources.push_back(url + " (did not answer)");
      // An HTTP error is an answer (a mirror with only the variants' folders has no torch/ page).
      if (failed.find(index_fetch_failure(22)) == std::string::npos) index.unanswered.push_back(url.substr(0, url.size() - 6));
    }
  }
  if (why.size() == urls.size()) {
    note = why.empty() ? "no index answered" : join(why, "; ");
    return std::nullopt;
  }
  // What the doctor reads of it (a few KB, never the multi-MB pages), for this platform.
  if (std::string dir = index_cache_dir(); !dir.empty() && make_directories(dir).ok())
    static_cast<void>(write_file_atomically(dir + "/releases-" + m.platform + ".json", index_summary_json(index)));
  return index;
}

}  // namespace dlready
