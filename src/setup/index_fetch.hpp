// A package index's simple-API page, as `dlready setup` and `dlready export --hashes` read it: with
// curl (the JSON form where the index has one), bounded in time and size, kept a day under
// <cache>/dlready/index/ so that a plan made again does not ask again.
#pragma once
#include <optional>
#include <string>

namespace dlready {

// One deadline for the pages one command reads: a slow mirror costs it this long at most.
inline constexpr int kIndexFetchSeconds = 30;

// A URL that names a folder ends with '/' (an index's --index-url may be given without one).
std::string with_slash(std::string url);
// <cache>/dlready/index ("" without a home).
std::string index_cache_dir();
// curl's exit status in words ("host not found", ...).
std::string index_fetch_failure(int curl_status);
// The page at `url` from the cache or the network within `seconds`; `file` is its cache entry,
// `source` says where it came from, `why` why there is none (nullopt).
std::optional<std::string> read_index_page(const std::string& url, int seconds, std::string& file, std::string& source,
                                           std::string& why);

}  // namespace dlready
