// A local package index for the tests of `dlready setup` and `dlready export`.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

namespace dlready::test {

// A PEP 503 package index on 127.0.0.1 serving generated wheels (tests/tools/torch_index.py):
// specs "2.11.0+cu130" (torch on PyTorch's index for cu130) or "pypi/numpy==2.4.6". url() ends
// with '/'; the index of variant V is url() + V + "/".
class PackageIndex {
 public:
  PackageIndex(const std::string& dir, const std::vector<std::string>& specs);
  ~PackageIndex();
  PackageIndex(const PackageIndex&) = delete;
  PackageIndex& operator=(const PackageIndex&) = delete;
  const std::string& url() const { return url_; }

 private:
  pid_t pid_ = -1;
  std::string url_;
};

}  // namespace dlready::test
