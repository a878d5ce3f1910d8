#include "os/tcp_connect.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace dlready {
namespace {

std::string numeric_address(const sockaddr* sa, socklen_t len) {
  char host[NI_MAXHOST] = {};
  if (::getnameinfo(sa, len, host, sizeof host, nullptr, 0, NI_NUMERICHOST) != 0) return "?";
  return host;
}

}  // namespace

TcpAttempt tcp_connect(const std::string& host, const std::string& port, int timeout_ms) {
  TcpAttempt out;
  addrinfo hints{}, *res = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  if (int gai = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &res); gai != 0) {
    out.error = ::gai_strerror(gai);
    out.unresolved = true;
    return out;
  }
  out.error = "no address";
  for (addrinfo* a = res; a; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    int rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      int err = ETIMEDOUT;
      socklen_t len = sizeof err;
      if (::poll(&p, 1, timeout_ms) > 0) ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      rc = err == 0 ? 0 : -1;
      errno = err;
    }
    if (rc == 0) {
      out.fd = fd;
      out.address = numeric_address(a->ai_addr, a->ai_addrlen);
      out.error.clear();
      break;
    }
    out.error = std::strerror(errno);
    ::close(fd);
  }
  ::freeaddrinfo(res);
  return out;
}

}  // namespace dlready
