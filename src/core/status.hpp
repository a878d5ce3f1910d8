// The result of an operation that can fail: success, or one line saying what failed and why.
// [[nodiscard]] so a write that failed cannot be silently reported as done.
#pragma once
#include <string>
#include <utility>

namespace dlready {

class [[nodiscard]] Status {
 public:
  Status() = default;  // success
  static Status failure(std::string why) { return Status(std::move(why)); }
  bool ok() const { return error_.empty(); }
  explicit operator bool() const { return ok(); }
  const std::string& error() const { return error_; }

 private:
  explicit Status(std::string why) : error_(why.empty() ? "failed" : std::move(why)) {}
  std::string error_;
};

}  // namespace dlready
