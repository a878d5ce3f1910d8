// Writes a fixture machine to a directory for benchmarks that run the real CLI on it
// (bench/doctor.sh): the test suite's healthy GPU machine (fake driver libraries, an H100 at sm_90,
// a PyTorch venv at /home/alice/venv), or the same machine without the GPU and its driver.
// usage: dlready_fixture_root gpu|no-gpu DIR [--libtorch-cuda FILE]
//   --libtorch-cuda: the venv's torch/lib/libtorch_cuda.so becomes FILE (hard link, else a copy),
//   e.g. the pinned wheel's, so the doctor scans real GPU code.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "fixture.hpp"

int main(int argc, char** argv) {
  using namespace dlready::test;
  if (argc != 3 && !(argc == 5 && std::string(argv[3]) == "--libtorch-cuda")) {
    std::fprintf(stderr, "usage: %s gpu|no-gpu DIR [--libtorch-cuda FILE]\n", argv[0]);
    return 2;
  }
  std::string kind = argv[1], dir = argv[2];
  Fixture f;
  if (kind == "gpu") {
    healthy_gpu_machine(f);
  } else {
    add_base_system(f);
    add_torch_venv(f, "/home/alice/venv", TorchSpec{});
  }
  if (argc == 5) {
    std::string lib = f.host("/home/alice/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so");
    ::unlink(lib.c_str());
    if (::link(argv[4], lib.c_str()) != 0) f.copy(argv[4], "/home/alice/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so");
  }
  if (std::rename(f.root.c_str(), dir.c_str()) != 0) {
    std::perror(("rename " + f.root + " -> " + dir).c_str());
    return 1;
  }
  f.root = "/nonexistent";  // moved: nothing left for the destructor to remove
  std::printf("%s\n", dir.c_str());
  return 0;
}
