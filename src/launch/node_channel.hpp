// The launchers' own connections in a multi-node job (`dlready launch --nnodes N`): node 0's
// launcher listens on --launcher-port, every other node's launcher connects to --master-addr there.
// They carry the preflight (who each node is, its stack, node 0's verdict) and then stay open while
// the job runs, so a launcher that dies is noticed by the others at once instead of at their ranks'
// next collective, --dist-timeout later. A message is a 4-byte big-endian length, then JSON text.
#pragma once
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/status.hpp"

namespace dlready {

using ChannelClock = std::chrono::steady_clock;

// The largest message node 0 takes from a launcher: a hello with its node's snapshot (a real one
// is tens of KiB; bench/multinode.sh prints its size), far below what would cost node 0 memory.
inline constexpr size_t kMaxNodeMessage = 2u << 20;

// One end of a connection between two launchers. Owns the socket.
class NodeConnection {
 public:
  NodeConnection() = default;
  NodeConnection(int fd, std::string peer_address);
  ~NodeConnection();
  NodeConnection(NodeConnection&& o) noexcept;
  NodeConnection& operator=(NodeConnection&& o) noexcept;
  NodeConnection(const NodeConnection&) = delete;
  NodeConnection& operator=(const NodeConnection&) = delete;

  int fd() const { return fd_; }
  const std::string& peer_address() const { return peer_; }  // numeric address of the other end
  bool open() const { return fd_ >= 0; }
  bool has_partial_input() const { return !in_.empty(); }  // part of a message has arrived

  // Sends one message, waiting at most until the deadline for the other side to take it.
  Status send(const nlohmann::json& message, ChannelClock::time_point deadline);
  // Waits for one whole message until the deadline, or until `interrupt_fd` (a signalfd) is
  // readable: then the error is "interrupted".
  Status receive(nlohmann::json& message, ChannelClock::time_point deadline, int interrupt_fd = -1);
  // Reads what has arrived without blocking; appends each whole message. Sets `ended` when the
  // other side closed the connection (or it broke). A malformed message is an error.
  Status receive_available(std::vector<nlohmann::json>& messages, bool& ended);
  void close();
  // The largest message this end takes from the other (a hostile peer's bound).
  void set_max_message(size_t bytes) { max_message_ = bytes; }

 private:
  std::optional<nlohmann::json> take_message(Status& st);
  int fd_ = -1;
  std::string peer_;
  std::string in_;                       // bytes of a message not yet whole
  std::vector<nlohmann::json> pending_;  // whole messages read ahead by receive()
  size_t max_message_ = kMaxNodeMessage;
};

// Node 0's listening socket (every address, the given port).
class NodeListener {
 public:
  NodeListener() = default;
  ~NodeListener();
  NodeListener(const NodeListener&) = delete;
  NodeListener& operator=(const NodeListener&) = delete;
  Status listen(int port);
  // The next launcher that connects, or an error at the deadline ("timeout" in the text).
  Status accept(NodeConnection& out, ChannelClock::time_point deadline);
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
};

// Connects to node 0's launcher, retrying while it is not listening yet, until the deadline (or
// until `interrupt_fd` is readable: "interrupted").
Status connect_to_node0(const std::string& host, int port, ChannelClock::time_point deadline, NodeConnection& out,
                        int interrupt_fd = -1);


}  // namespace dlready
