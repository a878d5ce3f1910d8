#include "os/host_name.hpp"

#include <unistd.h>

namespace dlready {

std::optional<std::string> host_name() {
  char host[256] = "";
  if (::gethostname(host, sizeof host - 1) != 0) return std::nullopt;
  return host;
}

}  // namespace dlready
