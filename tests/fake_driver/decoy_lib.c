/* A "system" copy of a CUDA library with the wheel's soname (set by the link line) but nothing
   else of it: if the dynamic loader ever picks it for dlready, its constructor says so on stderr.
   The library-loading tests register these in an ld.so.cache of their own or put them on
   LD_LIBRARY_PATH. */
#include <stdio.h>
#include <unistd.h>

__attribute__((constructor)) static void announce(void) {
  static const char line[] = "DECOY LIBRARY LOADED\n";
  ssize_t ignored = write(2, line, sizeof line - 1);
  (void)ignored;
}

int dlready_decoy_library(void) { return 1; }
