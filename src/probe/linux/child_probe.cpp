#include "probe/linux/child_probe.hpp"

#include "os/posix_fs.hpp"
#include "os/process_runner.hpp"

namespace dlready {

ChildResult run_child_probe(const ChildBody& body, int timeout_ms) {
  ChildResult r;
  std::string buf;
  ForkOptions o;
  o.timeout_ms = timeout_ms;
  o.own_group = false;
  o.on_output = [&buf](std::string_view chunk) {
    buf.append(chunk);
    return buf.size() <= (1u << 20);  // a child that floods us is only waited for
  };
  auto in_child = [&body](int out) {
    auto emit = [out](const std::string& k, const std::string& v) { (void)write_fully(out, wire_line(k, v)); };
    return body(emit);
  };
  ChildEnd end = run_forked(in_child, o);
  using How = ChildEnd::How;
  r.end = end.how == How::timed_out   ? ChildResult::End::timed_out
          : end.how == How::signalled ? ChildResult::End::signalled
          : end.how == How::exited    ? ChildResult::End::exited
                                      : ChildResult::End::fork_failed;
  r.code = end.code;
  read_wire(buf, r);
  r.elapsed_ms = end.elapsed_ms;
  return r;
}

}  // namespace dlready
