/* A LibTorch module from another build, for the module-boundary tests. Without STALE_MODULE_ABI it
   is one from before the boundary was versioned: it exports only the old entry point, which took a
   C++ struct. With it, it reports an ABI version no dlready speaks. Neither may ever be called. */
#include <stdlib.h>

#ifdef STALE_MODULE_ABI
unsigned dlready_module_abi(void) { return 999u; }
int dlready_module_run(const char* command, const char* options_json) {
  (void)command, (void)options_json;
  abort(); /* the binary must refuse the module before calling it */
}
#else
int dlready_train_main(const void* options) {
  (void)options;
  abort();
}
#endif
