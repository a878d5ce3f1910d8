#include "launch/node_channel.hpp"

#include "os/tcp_connect.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "core/json_text.hpp"

namespace dlready {
namespace {

int millis_until(ChannelClock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - ChannelClock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1000000));
}

std::string errno_text(const char* call) { return std::string(call) + ": " + std::strerror(errno); }

void set_nonblocking(int fd) {
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

std::string numeric_address(const sockaddr* sa, socklen_t len) {
  char host[NI_MAXHOST] = "";
  if (::getnameinfo(sa, len, host, sizeof host, nullptr, 0, NI_NUMERICHOST) != 0) return "?";
  std::string h = host;
  if (h.rfind("::ffff:", 0) == 0) h.erase(0, 7);  // an IPv4 peer on a dual-stack socket
  return h;
}

}  // namespace

NodeConnection::NodeConnection(int fd, std::string peer_address) : fd_(fd), peer_(std::move(peer_address)) {}

NodeConnection::~NodeConnection() { close(); }

NodeConnection::NodeConnection(NodeConnection&& o) noexcept
    : fd_(o.fd_), peer_(std::move(o.peer_)), in_(std::move(o.in_)), pending_(std::move(o.pending_)) {
  o.fd_ = -1;
}

NodeConnection& NodeConnection::operator=(NodeConnection&& o) noexcept {
  if (this != &o) {
    close();
    fd_ = o.fd_, peer_ = std::move(o.peer_), in_ = std::move(o.in_), pending_ = std::move(o.pending_);
    o.fd_ = -1;
  }
  return *this;
}

void NodeConnection::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Status NodeConnection::send(const nlohmann::json& message, ChannelClock::time_point deadline) {
  if (fd_ < 0) return Status::failure("the connection to " + peer_ + " is closed");
  std::string body = json_text(message);
  uint32_t n = htonl(static_cast<uint32_t>(body.size()));
  std::string frame(reinterpret_cast<const char*>(&n), 4);
  frame += body;
  size_t off = 0;
  while (off < frame.size()) {
    ssize_t w = ::send(fd_, frame.data() + off, frame.size() - off, MSG_NOSIGNAL);
    if (w > 0) {
      off += static_cast<size_t>(w);
      continue;
    }
    if (w < 0 && errno != EAGAIN && errno != EINTR) return Status::failure("sending to " + peer_ + ": " + errno_text("send"));
    pollfd p{fd_, POLLOUT, 0};
    if (::poll(&p, 1, millis_until(deadline)) == 0) return Status::failure("sending to " + peer_ + ": timeout");
  }
  return {};
}

std::optional<nlohmann::json> NodeConnection::take_message(Status& st) {
  if (in_.size() < 4) return std::nullopt;
  uint32_t n = 0;
  std::memcpy(&n, in_.data(), 4);
  n = ntohl(n);
  if (n > max_message_) {
    st = Status::failure("the other end (" + peer_ + ") is not a dlready launcher (it announced a message of " +
                         std::to_string(n) + " bytes): another program on that port? choose another with --launcher-port");
    return std::nullopt;
  }
  if (in_.size() < 4 + static_cast<size_t>(n)) return std::nullopt;
  std::string why;
  auto doc = parse_json_bounded(std::string_view(in_).substr(4, n), &why);
  in_.erase(0, 4 + static_cast<size_t>(n));
  if (doc.is_discarded() || !doc.is_object()) {
    st = Status::failure("the other end (" + peer_ + ") sent a message that is not a JSON object (" +
                         (why.empty() ? std::string("another type") : why) + "): not a dlready launcher");
    return std::nullopt;
  }
  return doc;
}

Status NodeConnection::receive_available(std::vector<nlohmann::json>& messages, bool& ended) {
  ended = false;
  if (&messages != &pending_) {  // what receive() read ahead comes first
    for (auto& m : pending_) messages.push_back(std::move(m));
    pending_.clear();
  }
  if (fd_ < 0) {
    ended = true;
    return {};
  }
  char chunk[65536];
  for (;;) {
    ssize_t r = ::recv(fd_, chunk, sizeof chunk, 0);
    if (r > 0) {
      in_.append(chunk, static_cast<size_t>(r));
      if (in_.size() > max_message_ + 4) break;
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) ended = true;
    break;
  }
  Status st;
  while (auto m = take_message(st)) messages.push_back(std::move(*m));
  return st;
}

Status NodeConnection::receive(nlohmann::json& message, ChannelClock::time_point deadline, int interrupt_fd) {
  for (;;) {
    bool ended = false;
    if (auto st = receive_available(pending_, ended); !st) return st;
    if (!pending_.empty()) {
      message = std::move(pending_.front());
      pending_.erase(pending_.begin());
      return {};
    }
    if (ended) return Status::failure(peer_ + " closed the connection");
    pollfd p[2] = {{fd_, POLLIN, 0}, {interrupt_fd, POLLIN, 0}};
    int n = ::poll(p, interrupt_fd >= 0 ? 2 : 1, millis_until(deadline));
    if (n == 0) return Status::failure("waiting for " + peer_ + ": timeout");
    if (n > 0 && interrupt_fd >= 0 && (p[1].revents & POLLIN)) return Status::failure("interrupted");
  }
}

NodeListener::~NodeListener() {
  if (fd_ >= 0) ::close(fd_);
}

Status NodeListener::listen(int port) {
  fd_ = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  bool v6 = fd_ >= 0;
  if (!v6) fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);  // a kernel without IPv6
  if (fd_ < 0) return Status::failure(errno_text("socket"));
  int one = 1, zero = 0;
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  int rc;
  if (v6) {
    ::setsockopt(fd_, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);  // IPv4 peers too
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6, a.sin6_addr = in6addr_any, a.sin6_port = htons(static_cast<uint16_t>(port));
    rc = ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
  } else {
    sockaddr_in a{};
    a.sin_family = AF_INET, a.sin_addr.s_addr = htonl(INADDR_ANY), a.sin_port = htons(static_cast<uint16_t>(port));
    rc = ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
  }
  if (rc != 0)
    return Status::failure("cannot listen on port " + std::to_string(port) + " (" + std::strerror(errno) +
                           "): another job's launcher there? choose another with --launcher-port");
  if (::listen(fd_, 128) != 0) return Status::failure(errno_text("listen"));
  set_nonblocking(fd_);
  return {};
}

Status NodeListener::accept(NodeConnection& out, ChannelClock::time_point deadline) {
  for (;;) {
    sockaddr_storage peer{};
    socklen_t len = sizeof peer;
    int fd = ::accept4(fd_, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_CLOEXEC);
    if (fd >= 0) {
      set_nonblocking(fd);
      out = NodeConnection(fd, numeric_address(reinterpret_cast<sockaddr*>(&peer), len));
      return {};
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED)
      return Status::failure(errno_text("accept"));
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, millis_until(deadline)) == 0) return Status::failure("timeout");
  }
}

Status connect_to_node0(const std::string& host, int port, ChannelClock::time_point deadline, NodeConnection& out,
                        int interrupt_fd) {
  std::string last = "no answer";
  int retry_ms = 10;
  while (ChannelClock::now() < deadline) {
    auto attempt = tcp_connect(host, std::to_string(port), std::min(millis_until(deadline), 3000));
    if (attempt.fd >= 0) {
      out = NodeConnection(attempt.fd, attempt.address);
      return {};
    }
    last = attempt.unresolved ? "cannot resolve " + host + ": " + attempt.error : attempt.error;
    // Node 0 may start later than this node: try again, soon at first (the nodes of one job are
    // usually started together), then backing off to twice a second.
    pollfd wake{interrupt_fd, POLLIN, 0};
    if (::poll(&wake, interrupt_fd >= 0 ? 1 : 0, std::min(millis_until(deadline), retry_ms)) > 0)
      return Status::failure("interrupted");
    retry_ms = std::min(retry_ms * 2, 500);
  }
  return Status::failure(last);
}

}  // namespace dlready
