/* LD_PRELOADed into `dlready` by the crash-containment tests: the function named by
   DLREADY_TEST_CRASH_IN faults (a real SIGSEGV, as a CUDA library's would); every other call goes
   to the real function. listen: Gloo's all-reduce in `dlready verify`; inflateInit2_: the data
   loading of `dlready train`. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Read at run time, so the compiler cannot see (and warn about) the store through it. */
static volatile uintptr_t nowhere = 16;

static void maybe_crash(const char* fn) {
  const char* wanted = getenv("DLREADY_TEST_CRASH_IN");
  if (wanted && strcmp(wanted, fn) == 0) *(volatile int*)nowhere = 1;
}

int listen(int fd, int backlog) {
  maybe_crash("listen");
  int (*real)(int, int) = (int (*)(int, int))dlsym(RTLD_NEXT, "listen");
  return real(fd, backlog);
}

typedef void* z_stream_ptr;
int inflateInit2_(z_stream_ptr strm, int window_bits, const char* version, int stream_size) {
  maybe_crash("inflateInit2_");
  int (*real)(z_stream_ptr, int, const char*, int) =
      (int (*)(z_stream_ptr, int, const char*, int))dlsym(RTLD_NEXT, "inflateInit2_");
  return real(strm, window_bits, version, stream_size);
}
