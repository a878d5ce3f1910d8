#include "setup/index_fetch.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "core/crc32c.hpp"
#include "core/text.hpp"
#include "os/atomic_file.hpp"
#include "os/bounded_file.hpp"
#include "os/posix_fs.hpp"
#include "os/process_runner.hpp"

namespace dlready {
namespace {

constexpr long kDaySeconds = 24 * 3600;
constexpr uint64_t kMaxPage = 64u << 20;  // PyTorch's all-variants page is a few MB
// One deadline for reading every index a plan reads (PyPI's page and PyTorch's): a slow mirror
// costs the plan this long at most, however many pages it reads.
constexpr int kIndexSeconds = kIndexFetchSeconds;

std::string cache_dir() {
  auto get = [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  auto dir = dlready_cache_dir(get("XDG_CACHE_HOME"), get("HOME"));
  return dir ? *dir + "/index" : "";  // "": pages are fetched, not kept
}


// The page from the cache when it is less than a day old: "dlready-index 1 <epoch seconds> <url>\n<page>".
std::optional<std::string> cached_page(const std::string& file, const std::string& url, long& age) {
  auto bytes = read_regular_file(file, kMaxPage, "an index cache entry").bytes;
  if (!bytes) return std::nullopt;
  auto nl = bytes->find('\n');
  auto head = split(bytes->substr(0, nl == std::string::npos ? 0 : nl), ' ');
  if (head.size() != 4 || head[0] != "dlready-index" || head[1] != "1" || head[3] != url) return std::nullopt;
  auto when = parse_int(head[2]);
  age = when ? static_cast<long>(std::time(nullptr) - *when) : kDaySeconds;
  if (age < 0 || age >= kDaySeconds) return std::nullopt;
  return bytes->substr(nl + 1);
}

// curl's exit status in words (its man page's EXIT CODES).
std::string curl_failure(int status) {
  switch (status) {
    case 6: return "host not found";
    case 7: return "connection refused";
    case 22: return "the server answered with an HTTP error";
    case 28: return "no answer within the " + std::to_string(kIndexSeconds) + " s setup gives the indexes";
    case 35: case 60: return "TLS failed";
    case 63: return "larger than " + std::to_string(kMaxPage >> 20) + " MiB";
    case 124: return "no answer within the " + std::to_string(kIndexSeconds) + " s setup gives the indexes";
    default: return "curl exit status " + std::to_string(status);
  }
}

// curl, bounded in time (`seconds`) and size; the JSON form of the simple API where the index has
// one. "--" first: a URL that starts with '-' is a URL, never one of curl's options.
std::optional<std::string> fetch(const std::string& url, const std::string& into, int seconds, std::string& why) {
  std::vector<std::string> args = {"curl", "-fsL", "--connect-timeout", std::to_string(std::min(3, seconds)),
                                   "--max-time", std::to_string(seconds), "--max-filesize", std::to_string(kMaxPage),
                                   "-H", "Accept: application/vnd.pypi.simple.v1+json, text/html;q=0.1",
                                   "-o", into, "--", url};
  int status = run_program(args, {"", seconds + 5, nullptr}).status;
  if (status == 127) {
    why = "no curl on PATH";
    return std::nullopt;
  }
  if (status != 0) {
    why = url + " did not answer (" + curl_failure(status) + ")";
    return std::nullopt;
  }
  return read_regular_file(into, kMaxPage, "an index page").bytes;
}

// One page, from the cache (`file`) or the network within `seconds`; `source` says which.
std::optional<std::string> page_of(const std::string& url, int seconds, std::string& file, std::string& source,
                                   std::string& why) {
  std::string dir = cache_dir();
  char name[32];
  std::snprintf(name, sizeof name, "%08x.page", crc32c(url));
  file = dir.empty() ? "" : dir + "/" + name;
  long age = 0;
  if (!file.empty())
    if (auto page = cached_page(file, url, age)) {
      source = url + " (cached " + std::to_string(age / 3600) + " h ago)";
      return page;
    }
  if (seconds <= 0) {
    why = url + " was not read (" + curl_failure(28) + ")";
    return std::nullopt;
  }
  char tmp[] = "/tmp/dlready-index-XXXXXX";
  int fd = ::mkstemp(tmp);
  if (fd < 0) return std::nullopt;
  ::close(fd);
  auto page = fetch(url, tmp, seconds, why);
  ::unlink(tmp);
  if (!page) return std::nullopt;
  source = url;
  if (!file.empty() && make_directories(dir).ok())
    static_cast<void>(write_file_atomically(
        file, "dlready-index 1 " + std::to_string(static_cast<long long>(std::time(nullptr))) + " " + url + "\n" + *page));
  return page;
}

}  // namespace

std::string with_slash(std::string url) {
  if (!url.empty() && url.back() != '/') url += '/';
  return url;
}

std::string index_cache_dir() { return cache_dir(); }
std::string index_fetch_failure(int curl_status) { return curl_failure(curl_status); }
std::optional<std::string> read_index_page(const std::string& url, int seconds, std::string& file, std::string& source,
                                           std::string& why) {
  return page_of(url, seconds, file, source, why);
}

}  // namespace dlready
