#include "launch/launcher.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "core/text.hpp"
#include "launch/node_link.hpp"
#include "launch/supervisor.hpp"

namespace dlready {

Status check_launch_options(const LaunchOptions& o) {
  if (o.command.empty()) return Status::failure("no command: dlready launch --nproc-per-node N -- dlready train ...");
  if (o.nproc_per_node < 1) return Status::failure("--nproc-per-node must be at least 1");
  if (o.nnodes < 1) return Status::failure("--nnodes must be at least 1");
  if (o.node_rank < 0 || o.node_rank >= o.nnodes)
    return Status::failure("--node-rank " + std::to_string(o.node_rank) + " is outside 0.." + std::to_string(o.nnodes - 1));
  if (o.master_port < 0 || o.master_port > 65535) return Status::failure("--master-port must be 1..65535");
  if (o.max_restarts < 0) return Status::failure("--max-restarts must be 0 or more");
  if (o.max_restarts > 0 && o.nnodes > 1)
    return Status::failure("--max-restarts restarts the ranks of a one-machine job; across " + std::to_string(o.nnodes) +
                           " machines every node would have to start again together, which dlready launch does not "
                           "do: restart the job on every node instead (dlready train resumes from its checkpoint "
                           "with --resume)");
  if (o.master_addr.empty()) return Status::failure("--master-addr is empty");
  if (o.launcher_port < 0 || o.launcher_port > 65535) return Status::failure("--launcher-port must be 1..65535");
  if (o.nnodes > 1 && o.launcher_port == 0 && o.master_port == 65535)
    return Status::failure("--master-port 65535 leaves no port for the launchers: give --launcher-port");
  if (o.nnodes > 1 && o.launcher_port != 0 && o.launcher_port == o.master_port)
    return Status::failure("--launcher-port must differ from --master-port (rank 0 listens there)");
  if (o.dist_timeout < 1) return Status::failure("--dist-timeout must be at least 1 second");
  return {};
}

NprocChoice choose_nproc(const std::string& spec, std::optional<int> gpus, int processors) {
  const std::string s = to_lower(spec);
  auto per_processor = [&] {
    return NprocChoice{processors, std::to_string(processors) + " processor(s) this process may use", ""};
  };
  auto per_gpu = [&] {
    return NprocChoice{gpus, std::to_string(gpus.value_or(0)) + " GPU(s) CUDA shows (CUDA_VISIBLE_DEVICES applies)", ""};
  };
  if (s == "cpu") return per_processor();
  if (s == "gpu") {
    if (gpus.value_or(0) > 0) return per_gpu();
    return {std::nullopt, "",
            "--nproc-per-node gpu: " + std::string(gpus ? "CUDA shows no GPU here" : "cannot tell how many GPUs CUDA shows") +
                " (dlready doctor says why); use a number, cpu, or auto (GPUs, else processors)"};
  }
  if (s == "auto") return gpus.value_or(0) > 0 ? per_gpu() : per_processor();
  int n = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec == std::errc() && end == s.data() + s.size() && n >= 1 && n <= 1024) return {n, "", ""};
  return {std::nullopt, "", "--nproc-per-node " + printable(spec, 80) + ": expected a number from 1 to 1024, gpu, cpu or auto"};
}

namespace {

// A TCP port nobody listens on at `address` now: the kernel's choice for port 0. Another program
// could take it before rank 0 does; the rank then says the port is in use.
std::optional<int> free_port(const std::string& address, std::string& error) {
  addrinfo hints{}, *res = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  if (int rc = ::getaddrinfo(address.c_str(), "0", &hints, &res); rc != 0) {
    error = "cannot resolve --master-addr " + printable(address, 80) + ": " + ::gai_strerror(rc);
    return std::nullopt;
  }
  std::optional<int> port;
  for (addrinfo* a = res; a && !port; a = a->ai_next) {
    int fd = ::socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    sockaddr_storage bound{};
    socklen_t len = sizeof bound;
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len) == 0)
      port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                               : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    else
      error = "cannot bind a port on --master-addr " + printable(address, 80) + " (" + std::strerror(errno) +
              "): is it an address of this machine? Give --master-port";
    ::close(fd);
  }
  ::freeaddrinfo(res);
  return port;
}

}  // namespace

Status resolve_rendezvous(LaunchOptions& o) {
  if (o.standalone) {
    if (o.nnodes > 1)
      return Status::failure("--standalone is a one-machine job: drop --nnodes " + std::to_string(o.nnodes) +
                             " (or --standalone, and give --master-addr and --node-rank on each node)");
    if (o.node_rank != 0) return Status::failure("--standalone is a one-machine job: drop --node-rank");
    if (o.master_addr != "127.0.0.1" && o.master_addr != "localhost")
      return Status::failure("--standalone meets on 127.0.0.1, not --master-addr " + printable(o.master_addr, 80) +
                             ": drop one of them (--master-addr with --nnodes and --node-rank is a job across machines)");
    o.master_addr = "127.0.0.1";
  }
  if (o.master_port != 0) return {};
  if (o.nnodes > 1) {
    o.master_port = 29500;  // every node must know it: torchrun's default
    return {};
  }
  std::string error;
  auto port = free_port(o.master_addr, error);
  if (!port) return Status::failure(error.empty() ? "no free TCP port on " + printable(o.master_addr, 80) + ": give --master-port" : error);
  o.master_port = *port;
  o.port_note = "a free port; --master-port sets one";
  return {};
}

int run_launch(LaunchOptions o) {
  Status st = resolve_rendezvous(o);
  if (st) st = check_launch_options(o);
  if (!st) {
    std::fprintf(stderr, "dlready launch: %s\n", st.error().c_str());
    return 2;
  }
  // A stdout closed under the launcher (`dlready launch ... | head`) must not kill it, and with it
  // every rank: the write fails instead, and the output stops there (Supervisor::put).
  ::signal(SIGPIPE, SIG_IGN);
  Supervisor supervisor(o);
  if (auto st = supervisor.init(); !st) {
    std::fprintf(stderr, "dlready launch: %s\n", st.error().c_str());
    return 1;
  }
  int world = o.nnodes * o.nproc_per_node;
  std::fprintf(stderr, "dlready launch: %d local rank(s) of %d, node %d/%d, rendezvous %s:%d%s\n", o.nproc_per_node,
               world, o.node_rank, o.nnodes, o.master_addr.c_str(), o.master_port,
               o.port_note.empty() ? "" : (" (" + o.port_note + ")").c_str());
  std::optional<NodeWatch> watch;
  if (o.nnodes > 1) {
    auto met = meet_other_nodes(o, supervisor.signal_fd());
    if (met.exit_code != 0) return met.exit_code;
    watch = std::move(met.watch);
  }
  supervisor.start_ranks();
  int result = supervisor.run(watch ? &*watch : nullptr);
  for (int restart = 1; result != 0 && supervisor.a_rank_failed() && restart <= o.max_restarts; ++restart) {
    std::fprintf(stderr, "dlready launch: starting the %d local rank(s) again: restart %d of %d "
                 "(TORCHELASTIC_RESTART_COUNT=%d; dlready train resumes from its checkpoint)\n",
                 o.nproc_per_node, restart, o.max_restarts, restart);
    supervisor.restart();
    result = supervisor.run(nullptr);
  }
  if (result != 0 && supervisor.a_rank_failed() && o.max_restarts > 0)
    std::fprintf(stderr, "dlready launch: no restart left (--max-restarts %d)\n", o.max_restarts);
  if (watch) watch->finished(result);
  if (result == 0) std::fprintf(stderr, "dlready launch: all %d local rank(s) finished\n", o.nproc_per_node);
  return result;
}

}  // namespace dlready
