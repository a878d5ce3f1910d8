#include "distributed/data_parallel.hpp"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>

#include "core/text.hpp"
#include "torch_runtime/process_group.hpp"

namespace dlready {

struct DataParallelSession::Impl {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::Backend> group;
  std::chrono::milliseconds timeout{};
  int rank = 0, world = 1;

  // Waits for a collective; a peer that died or hung becomes an error naming the cause.
  void wait(const c10::intrusive_ptr<c10d::Work>& work, const char* what) const {
    bool done = false;
    try {
      done = work->wait(timeout);
    } catch (const std::exception& e) {
      std::string m = first_line(e.what());
      bool timed_out = contains(m, "timed out") || contains(m, "Timed out");
      throw std::runtime_error(std::string(what) + " failed on rank " + std::to_string(rank) + ": " + m +
                               (timed_out ? " (another rank hung or stopped for longer than the " +
                                                std::to_string(timeout.count() / 1000) + " s --dist-timeout)"
                                          : " (another rank died or was stopped; its own output says why)"));
    }
    if (!done)
      throw std::runtime_error(std::string(what) + " did not finish within " +
                               std::to_string(timeout.count() / 1000) + " s on rank " + std::to_string(rank) +
                               ": another rank hung or died (--dist-timeout sets the limit)");
  }
};

std::vector<std::pair<size_t, size_t>> bucket_ranges(const std::vector<torch::Tensor>& tensors, int64_t cap) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t first = 0;
  int64_t bytes = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    int64_t b = tensors[i].numel() * static_cast<int64_t>(tensors[i].element_size());
    if (i > first && bytes + b > cap) {
      out.emplace_back(first, i);
      first = i, bytes = 0;
    }
    bytes += b;
  }
  if (first < tensors.size()) out.emplace_back(first, tensors.size());
  return out;
}

namespace {

std::string explain_rendezvous_failure(const DistConfig& c, std::chrono::seconds timeout, const std::string& what) {
  std::string where = c.master_addr + ":" + std::to_string(c.master_port);
  if (contains(what, "already in use") || contains(what, "EADDRINUSE"))
    return "rank 0 cannot listen on " + where + ": the port is already in use (another job, or an earlier run still "
           "exiting); choose another with --master-port or MASTER_PORT";
  if (c.rank == 0)
    return "rank 0 could not set up the rendezvous on " + where + ": " + what +
           (contains(what, "imeout") || contains(what, "imed out")
                ? " (not every rank joined within " + std::to_string(timeout.count()) + " s: are all " +
                      std::to_string(c.world) + " ranks started?)"
                : "");
  return "rank " + std::to_string(c.rank) + " could not reach the master at " + where + " within " +
         std::to_string(timeout.count()) + " s: " + what +
         " (is rank 0 running there, the address right and the port open?)";
}

// This machine's address on the route to `master` (a UDP socket "connected" there sends nothing but
// is given the source address the kernel would use), none when there is no route.
std::optional<std::string> local_address_towards(const std::string& master) {
  addrinfo hints{}, *res = nullptr;
  hints.ai_socktype = SOCK_DGRAM;
  if (::getaddrinfo(master.c_str(), "9", &hints, &res) != 0) return std::nullopt;
  std::string out;
  for (addrinfo* a = res; a && out.empty(); a = a->ai_next) {
    int fd = ::socket(a->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    sockaddr_storage self{};
    socklen_t len = sizeof self;
    char host[NI_MAXHOST] = "";
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&self), &len) == 0 &&
        ::getnameinfo(reinterpret_cast<sockaddr*>(&self), len, host, sizeof host, nullptr, 0, NI_NUMERICHOST) == 0)
      out = host;
    ::close(fd);
  }
  ::freeaddrinfo(res);
  if (out.empty()) return std::nullopt;
  return out;
}

// Where this rank's Gloo listens: GLOO_SOCKET_IFNAME's (first) interface when set, as PyTorch does;
// loopback for a job on one machine; else the address on the network that reaches node 0, which
// the other nodes reach too (the host name may resolve to an address they cannot reach, or, in a
// container or network namespace, to none of its own).
GlooEndpoint gloo_endpoint(const std::string& master) {
  GlooEndpoint e;
  if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname && *ifname) {
    e.interface = std::string(ifname).substr(0, std::string(ifname).find(','));
    return e;
  }
  if (master == "127.0.0.1" || master == "localhost") return e;
  if (auto towards = local_address_towards(master)) {
    e.address = *towards;
  } else {
    char name[256] = {};
    e.address = ::gethostname(name, sizeof name - 1) == 0 ? name : "127.0.0.1";
  }
  return e;
}

}  // namespace

DataParallelSession::Started DataParallelSession::start(const DistConfig& cfg, const torch::Device& device,
                                                        std::chrono::seconds timeout) {
  std::unique_ptr<DataParallelSession> s(new DataParallelSession());
  s->impl_ = std::make_unique<Impl>();
  auto& im = *s->impl_;
  im.timeout = timeout;
  im.rank = cfg.rank, im.world = cfg.world;
  try {
    c10d::TCPStoreOptions so;
    so.port = static_cast<uint16_t>(cfg.master_port);
    so.isServer = cfg.rank == 0;
    so.numWorkers = static_cast<size_t>(cfg.world);
    so.waitWorkers = true;
    so.timeout = timeout;
    im.store = c10::make_intrusive<c10d::TCPStore>(cfg.master_addr, so);
  } catch (const std::exception& e) {
    return {nullptr, explain_rendezvous_failure(cfg, timeout, first_line(e.what()))};
  }
  try {
    auto store = c10::make_intrusive<c10d::PrefixStore>("dlready/train", im.store);
    if (device.is_cuda()) {
      s->backend_ = "nccl";
      im.group = make_nccl_group(store, cfg.rank, cfg.world, device.index(), timeout);
    } else {
      s->backend_ = "gloo";
      im.group = make_gloo_group(store, cfg.rank, cfg.world, timeout, gloo_endpoint(cfg.master_addr));
    }
  } catch (const std::exception& e) {
    return {nullptr, "rank " + std::to_string(cfg.rank) + ": cannot create the " + s->backend_ +
                         " process group: " + first_line(e.what())};
  }

  Impl* p = s->impl_.get();
  s->hooks_.rank = cfg.rank;
  s->hooks_.world = cfg.world;
  s->hooks_.broadcast = [p](std::vector<torch::Tensor>& ts) {
    for (auto& t : ts) {
      std::vector<torch::Tensor> one{t};
      p->wait(p->group->broadcast(one), "broadcast of the parameters from rank 0");
    }
  };
  s->hooks_.average = [p](std::vector<torch::Tensor>& grads) {
    for (auto [first, last] : bucket_ranges(grads, kBucketBytes)) {
      std::vector<torch::Tensor> flat;
      for (size_t i = first; i < last; ++i) flat.push_back(grads[i].reshape(-1));
      std::vector<torch::Tensor> bucket{torch::cat(flat)};
      p->wait(p->group->allreduce(bucket), "gradient all-reduce");
      bucket[0].div_(p->world);
      int64_t off = 0;
      for (size_t i = first; i < last; ++i) {
        int64_t n = grads[i].numel();
        grads[i] = bucket[0].narrow(0, off, n).view(grads[i].sizes());
        off += n;
      }
    }
  };
  s->hooks_.sum = [p](std::vector<torch::Tensor>& ts) {
    std::vector<torch::Tensor> flat;
    for (auto& t : ts) flat.push_back(t.reshape(-1).to(torch::kDouble));
    std::vector<torch::Tensor> one{torch::cat(flat)};
    p->wait(p->group->allreduce(one), "metric all-reduce");
    int64_t off = 0;
    for (auto& t : ts) {
      t.copy_(one[0].narrow(0, off, t.numel()).view(t.sizes()));
      off += t.numel();
    }
  };
  return {std::move(s), ""};
}

DataParallelSession::~DataParallelSession() {
  if (impl_ && impl_->group) {
    try {
      shutdown_group(impl_->group);
    } catch (...) {
      // Shutting down after a failed peer may throw; nothing is left to save.
    }
  }
}

}  // namespace dlready
