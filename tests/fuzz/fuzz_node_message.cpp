// Fuzzes what node 0's launcher does with bytes from anyone who reaches its port: the frames read
// off a socket (launch/node_channel), each message as a JSON document within its bounds, and a
// hello's snapshot compared with node 0's own (snapshot/node_compare), and the checks a hello must
// pass to join (launch/node_link: a node number in range, however it is written). Never a crash or
// a hang.
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "launch/node_channel.hpp"
#include "launch/node_link.hpp"
#include "snapshot/node_compare.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds) != 0) return 0;
  int sndbuf = 1 << 22;
  ::setsockopt(fds[1], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
  size_t sent = 0;
  while (sent < size) {
    ssize_t n = ::send(fds[1], data + sent, size - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  ::close(fds[1]);
  dlready::NodeConnection conn(fds[0], "fuzz");
  std::vector<nlohmann::json> messages;
  bool ended = false;
  (void)conn.receive_available(messages, ended);
  for (const auto& m : messages) {
    if (dlready::is_hello(m) && dlready::hello_refusal(m, 4, {2}, "fuzz").ok()) {
      // Joined: its node number is one of 1 and 3 as written, not after a wrap.
      const auto& node = m["node"];
      if (!(node == 1 || node == 3)) __builtin_trap();
    }
    if (!m.is_object() || !m.contains("snapshot")) continue;
    std::vector<dlready::NodeStack> nodes = {dlready::node_stack(0, "node0", "", 1, m["snapshot"]),
                                             dlready::node_stack(1, "peer", "fuzz", 1, m["snapshot"])};
    auto c = dlready::compare_nodes(nodes);
    (void)dlready::render_node_comparison(c, nodes);
  }
  return 0;
}
