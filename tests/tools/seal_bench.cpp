// bench/checkpoint.sh's throughput side: writes and reads a file of N MiB (a checkpoint's bytes)
// plain and sealed (secure/sealed_file.hpp), alternating, and prints the median MB/s of each and
// the sealed/plain ratio. Both sides go through the same atomic writer (fsync included).
// usage: dlready_seal_bench DIR [MiB] [runs]
#include <sodium.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "secure/sealed_file.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [MiB] [runs]\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const size_t mib = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 64;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 7;
  if (sodium_init() < 0) return 1;
  std::string content(mib << 20, '\0');
  randombytes_buf(content.data(), content.size());  // weights do not compress either
  unsigned char raw[32];
  randombytes_buf(raw, sizeof raw);
  auto key = dlready::SealingKey::from_raw_key(raw, "the bench key");
  std::vector<double> t[2][2];  // [sealed][write/read]
  for (int i = 0; i < runs; ++i)
    for (int sealed = 0; sealed < 2; ++sealed) {
      dlready::SealingKey* k = sealed ? key.get() : nullptr;
      const std::string path = dir + (sealed ? "/sealed.bin" : "/plain.bin");
      auto t0 = Clock::now();
      if (!dlready::write_protected_file(path, content, k)) return 1;
      auto t1 = Clock::now();
      auto back = dlready::read_protected_file(path, k, uint64_t{1} << 40, "a bench file");
      auto t2 = Clock::now();
      if (!back.bytes || *back.bytes != content) return 1;
      t[sealed][0].push_back(std::chrono::duration<double>(t1 - t0).count());
      t[sealed][1].push_back(std::chrono::duration<double>(t2 - t1).count());
    }
  const double mb = static_cast<double>(content.size()) / 1e6;
  const char* what[2] = {"save", "load"};
  std::printf("%zu MiB, %d runs each, alternating; medians\n", mib, runs);
  for (int op = 0; op < 2; ++op) {
    double plain = median(t[0][op]), sealed = median(t[1][op]);
    std::printf("%s: plain %8.1f MB/s   sealed %8.1f MB/s   sealed/plain time %.2fx\n", what[op], mb / plain,
                mb / sealed, sealed / plain);
  }
  return 0;
}
