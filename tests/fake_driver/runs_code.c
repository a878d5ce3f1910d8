// A driver library from a stranger's capture: loading it runs its constructor, which leaves a mark
// in the file DLREADY_TEST_MARK names (hostile_input_round3_test: nothing under --root is loaded).
#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor)) static void leave_mark(void) {
  const char* mark = getenv("DLREADY_TEST_MARK");
  FILE* f = mark ? fopen(mark, "a") : NULL;
  if (f) {
    fputs("ran\n", f);
    fclose(f);
  }
}

int cuInit(unsigned flags) { return (int)flags; }
int nvmlInit_v2(void) { return 0; }
