// Paths as text ('/'-separated, as the doctor's facts write them on every platform): no file is
// touched.
#pragma once
#include <string>

namespace dlready {

// Joins two path pieces with exactly one slash.
std::string path_join(const std::string& a, const std::string& b);
std::string path_dirname(const std::string& p);
std::string path_basename(const std::string& p);
// Removes "." and ".." and duplicate slashes (lexically; the path must be absolute).
std::string path_normalize(const std::string& p);

}  // namespace dlready
