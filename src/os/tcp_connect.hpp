// One TCP connection attempt to host:port, every address the resolver gives, each connect bounded:
// the launchers meeting node 0 and `dlready setup` asking whether an index can be reached.
#pragma once
#include <string>

namespace dlready {

struct TcpAttempt {
  int fd = -1;          // a connected, non-blocking, close-on-exec socket (the caller closes it); -1 on failure
  std::string address;  // the numeric address connected to ("10.0.0.1")
  std::string error;    // why not: the resolver's words ("Name or service not known") or connect's
  bool unresolved = false;  // the resolver failed (error is its text)
};

[[nodiscard]] TcpAttempt tcp_connect(const std::string& host, const std::string& port, int timeout_ms);

}  // namespace dlready
