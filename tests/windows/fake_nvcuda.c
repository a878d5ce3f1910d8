/* A fake nvcuda.dll for the Windows doctor's scenarios under wine: the CUDA driver's entry points
 * the doctor calls, answering from nvcuda.conf beside the DLL (key=value lines, as the Linux fakes'
 * fake_driver.conf: behaviour=hang|crash, init, driver_version, devices, dev0.name, dev0.cc_major,
 * dev0.cc_minor, dev0.sm_count, dev0.memory_mib), and a version resource like NVIDIA's
 * (fake_nvcuda.rc). Test code only. */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fake_driver/fake_conf_lookup.h"

static char conf[8192];
static int conf_loaded;

static void load_conf(void) {
  if (conf_loaded) return;
  conf_loaded = 1;
  HMODULE self = NULL;
  char path[MAX_PATH];
  if (!GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                          (LPCSTR)&load_conf, &self) ||
      !GetModuleFileNameA(self, path, sizeof path))
    return;
  char* slash = strrchr(path, '\\');
  if (!slash) return;
  strcpy(slash + 1, "nvcuda.conf");
  FILE* f = fopen(path, "rb");
  if (!f) return;
  size_t n = fread(conf, 1, sizeof conf - 1, f);
  conf[n] = 0;
  fclose(f);
}

static const char* get(const char* key, char* buf, size_t len) {
  load_conf();
  return fake_conf_lookup(conf, key, buf, len);
}

static long get_int(const char* key, long def) {
  char buf[64];
  const char* v = get(key, buf, sizeof buf);
  return v ? strtol(v, NULL, 10) : def;
}

__declspec(dllexport) int cuDriverGetVersion(int* version) {
  *version = (int)get_int("driver_version", 12060);
  return 0;
}
__declspec(dllexport) int cuInit(unsigned flags) {
  char buf[32];
  const char* b = get("behaviour", buf, sizeof buf);
  (void)flags;
  if (b && strcmp(b, "hang") == 0) Sleep(INFINITE);
  if (b && strcmp(b, "crash") == 0) *(volatile int*)0 = 1;
  return (int)get_int("init", 0);
}
__declspec(dllexport) int cuDeviceGetCount(int* count) {
  *count = (int)get_int("devices", 1);
  return 0;
}
__declspec(dllexport) int cuDeviceGet(int* device, int ordinal) {
  *device = ordinal;
  return 0;
}
__declspec(dllexport) int cuDeviceGetName(char* name, int len, int device) {
  char key[32], buf[128];
  snprintf(key, sizeof key, "dev%d.name", device);
  const char* v = get(key, buf, sizeof buf);
  snprintf(name, (size_t)len, "%s", v ? v : "NVIDIA GeForce RTX 4090");
  return 0;
}
__declspec(dllexport) int cuDeviceGetAttribute(int* value, int attribute, int device) {
  char key[32];
  const char* field = attribute == 75 ? "cc_major" : attribute == 76 ? "cc_minor" : attribute == 16 ? "sm_count" : NULL;
  if (!field) return 1; /* CUDA_ERROR_INVALID_VALUE */
  snprintf(key, sizeof key, "dev%d.%s", device, field);
  *value = (int)get_int(key, attribute == 75 ? 8 : attribute == 76 ? 9 : 128);
  return 0;
}
__declspec(dllexport) int cuDeviceTotalMem_v2(size_t* bytes, int device) {
  char key[32];
  snprintf(key, sizeof key, "dev%d.memory_mib", device);
  *bytes = (size_t)get_int(key, 24564) << 20;
  return 0;
}
