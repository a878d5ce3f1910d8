#include "setup/lock_hashes.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "core/redact.hpp"
#include "core/text.hpp"
#include "probe/index_pages.hpp"
#include "probe/python_files.hpp"
#include "setup/index_fetch.hpp"

namespace dlready {

namespace {

bool is_pins_file(const std::string& file, const LockPin& pin) {
  if (auto w = parse_wheel_name(file))
    return normalize_dist_name(w->project) == normalize_dist_name(pin.name) &&
           w->version + (w->local.empty() ? "" : "+" + w->local) == pin.version;
  for (const char* ext : {".tar.gz", ".zip"}) {
    if (!ends_with(file, ext)) continue;
    std::string stem = file.substr(0, file.size() - std::string(ext).size());
    std::string tail = "-" + pin.version;
    return stem.size() > tail.size() && ends_with(stem, tail) &&
           normalize_dist_name(stem.substr(0, stem.size() - tail.size())) == normalize_dist_name(pin.name);
  }
  return false;
}

}  // namespace

std::vector<std::string> pin_hashes(const std::string& page, const LockPin& pin) {
  std::vector<std::string> out;
  for (const auto& f : simple_index_files(page))
    if (!f.sha256.empty() && is_pins_file(f.filename, pin)) out.push_back(f.sha256);
  // Sorted (the same lock from the same index, whatever the page's order), each hash once.
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

LockHashes find_lock_hashes(const std::vector<LockPin>& pins, const std::string& pypi, const std::string& torch_index) {
  LockHashes out;
  std::string torch = torch_index;
  if (torch.empty())
    if (const char* v = std::getenv("DLREADY_TORCH_INDEX"); v && *v) torch = v;
  if (torch.empty()) torch = kPytorchIndex;
  std::string others = pypi;  // as setup's plan: the index pip and uv use here
  for (const char* var : {"PIP_INDEX_URL", "UV_INDEX_URL"})
    if (const char* v = std::getenv(var); others.empty() && v && *v) others = v;
  if (others.empty()) others = "https://pypi.org/simple/";
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kIndexFetchSeconds);
  for (const auto& pin : pins) {
    auto plus = pin.version.find('+');
    std::string index = plus == std::string::npos ? with_slash(others) : with_slash(torch) + pin.version.substr(plus + 1) + "/";
    std::string url = index + normalize_dist_name(pin.name) + "/";
    int left = static_cast<int>(
        std::chrono::duration_cast<std::chrono::seconds>(deadline - std::chrono::steady_clock::now()).count());
    std::string file, source, why;
    auto page = read_index_page(url, left, file, source, why);
    std::string key = pin.name + "==" + pin.version;
    // The index as printed (the file's comments, stderr): the credentials pip needs stay with pip.
    const std::string shown = without_credentials(url), shown_index = without_credentials(index);
    if (!page) {
      out.missing.push_back(key + " (" + (why.empty() ? shown + " was not read" : without_credentials(why)) + ")");
      continue;
    }
    auto hashes = pin_hashes(*page, pin);
    if (std::chrono::steady_clock::now() > deadline) {
      out.missing.push_back(key + " (" + shown + " took longer than the " + std::to_string(kIndexFetchSeconds) +
                            " s the indexes are given: a slow or enormous index page)");
      continue;
    }
    if (hashes.empty()) {
      out.missing.push_back(key + " (" + shown + " lists no file of this version with a sha256: a local or private build?)");
      continue;
    }
    out.by_pin[key] = hashes;
    if (std::find(out.sources.begin(), out.sources.end(), shown_index) == out.sources.end())
      out.sources.push_back(shown_index);
  }
  return out;
}

}  // namespace dlready
