/* Shared by the fake libcuda.so.1 and libnvidia-ml.so.1 the test suite builds. Their behaviour
 * comes from fake_driver.conf next to the library file (key=value lines), so a fixture root
 * describes a whole driver in one small text file. Test code only; never shipped. */
#ifndef DLREADY_FAKE_CONF_H
#define DLREADY_FAKE_CONF_H
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_conf_lookup.h"

static char fake_conf_text[65536];
static int fake_conf_loaded;

static void fake_conf_load(void) {
  if (fake_conf_loaded) return;
  fake_conf_loaded = 1;
  Dl_info info;
  if (!dladdr((void*)&fake_conf_load, &info) || !info.dli_fname) return;
  char path[4096];
  snprintf(path, sizeof path, "%s", info.dli_fname);
  char* slash = strrchr(path, '/');
  if (!slash) return;
  snprintf(slash + 1, sizeof path - (size_t)(slash + 1 - path), "fake_driver.conf");
  FILE* f = fopen(path, "r");
  if (!f) return;
  size_t n = fread(fake_conf_text, 1, sizeof fake_conf_text - 1, f);
  fake_conf_text[n] = 0;
  fclose(f);
}

/* Value of `key` (copied into buf) or NULL. */
static const char* fake_conf_get(const char* key, char* buf, size_t len) {
  fake_conf_load();
  return fake_conf_lookup(fake_conf_text, key, buf, len);
}

static long fake_conf_int(const char* key, long def) {
  char buf[64];
  const char* v = fake_conf_get(key, buf, sizeof buf);
  return v ? strtol(v, NULL, 10) : def;
}

/* "hang" sleeps forever, "crash" raises SIGSEGV: what a broken driver does. */
static void fake_conf_behave(const char* key) {
  char buf[32];
  const char* v = fake_conf_get(key, buf, sizeof buf);
  if (!v) return;
  if (strcmp(v, "hang") == 0)
    for (;;) pause();
  if (strcmp(v, "crash") == 0) raise(SIGSEGV);
}

/* Device count after CUDA_VISIBLE_DEVICES, as CUDA parses it: indexes until the first bad one. */
__attribute__((unused)) static int fake_visible_count(int physical) {
  const char* cvd = getenv("CUDA_VISIBLE_DEVICES");
  if (!cvd) return physical;
  int count = 0;
  const char* p = cvd;
  while (*p) {
    char* end;
    long idx = strtol(p, &end, 10);
    if (end == p || idx < 0 || idx >= physical) break;
    ++count;
    p = end;
    if (*p == ',') ++p;
    else if (*p) break;
  }
  return count;
}
#endif
