/* Shared by the fake libcuda.so.1 and libnvidia-ml.so.1 the test suite builds (and by the fake
 * nvml.dll the Windows scenarios build from the same source with mingw-w64). Their behaviour
 * comes from fake_driver.conf next to the library file (key=value lines), so a fixture root
 * describes a whole driver in one small text file. Test code only; never shipped. */
#ifndef DLREADY_FAKE_CONF_H
#define DLREADY_FAKE_CONF_H
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>
#endif

#include "fake_conf_lookup.h"

/* The conf's file name beside the library (the Windows nvcuda.dll fake reads nvcuda.conf). */
#ifndef FAKE_CONF_FILE
#define FAKE_CONF_FILE "fake_driver.conf"
#endif

static char fake_conf_text[65536];
static int fake_conf_loaded;

/* The library's own file name, whose folder holds fake_driver.conf. */
static int fake_conf_own_path(char* path, size_t len) {
#ifdef _WIN32
  HMODULE self = NULL;
  return GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                            (LPCSTR)&fake_conf_own_path, &self) &&
         GetModuleFileNameA(self, path, (DWORD)len) > 0;
#else
  Dl_info info;
  if (!dladdr((void*)&fake_conf_own_path, &info) || !info.dli_fname) return 0;
  snprintf(path, len, "%s", info.dli_fname);
  return 1;
#endif
}

static void fake_conf_load(void) {
  if (fake_conf_loaded) return;
  fake_conf_loaded = 1;
  char path[4096];
  if (!fake_conf_own_path(path, sizeof path)) return;
  char* slash = strrchr(path, '/');
  char* backslash = strrchr(path, '\\');
  if (backslash > slash) slash = backslash;
  if (!slash) return;
  snprintf(slash + 1, sizeof path - (size_t)(slash + 1 - path), "%s", FAKE_CONF_FILE);
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
#ifdef _WIN32
  if (strcmp(v, "hang") == 0) Sleep(INFINITE);
  if (strcmp(v, "crash") == 0) *(volatile int*)0 = 1;
#else
  if (strcmp(v, "hang") == 0)
    for (;;) pause();
  if (strcmp(v, "crash") == 0) raise(SIGSEGV);
#endif
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
