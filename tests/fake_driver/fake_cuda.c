/* A fake libcuda.so.1 for the doctor's tests (see fake_conf.h). */
#include "fake_conf.h"

typedef int CUresult;
typedef struct { unsigned char bytes[16]; } CUuuid;

CUresult cuDriverGetVersion(int* v) {
  *v = (int)fake_conf_int("cuda.driver_version", 13000);
  return 0;
}

CUresult cuInit(unsigned flags) {
  (void)flags;
  fake_conf_behave("cuda.behaviour");
  return (CUresult)fake_conf_int("cuda.init", 0);
}

CUresult cuDeviceGetCount(int* n) {
  *n = fake_visible_count((int)fake_conf_int("devices", 1));
  return 0;
}

#ifndef FAKE_CUDA_PARTIAL
static int physical(int ordinal) { return ordinal; }

CUresult cuDeviceGet(int* dev, int ordinal) {
  *dev = physical(ordinal);
  return 0;
}

CUresult cuDeviceGetName(char* name, int len, int dev) {
  char key[64], buf[256];
  snprintf(key, sizeof key, "dev%d.name", dev);
  const char* v = fake_conf_get(key, buf, sizeof buf);
  snprintf(name, (size_t)len, "%s", v ? v : "NVIDIA Fake GPU");
  return 0;
}

CUresult cuDeviceGetAttribute(int* out, int attr, int dev) {
  char key[64], buf[64];
  snprintf(key, sizeof key, "dev%d.cc", dev);
  const char* cc = fake_conf_get(key, buf, sizeof buf);
  int major = cc ? atoi(cc) : 9, minor = cc && strchr(cc, '.') ? atoi(strchr(cc, '.') + 1) : 0;
  switch (attr) {
    case 75: *out = major; return 0;
    case 76: *out = minor; return 0;
    case 16: snprintf(key, sizeof key, "dev%d.sms", dev); *out = (int)fake_conf_int(key, 132); return 0;
    case 20: snprintf(key, sizeof key, "dev%d.compute_mode", dev); *out = (int)fake_conf_int(key, 0); return 0;
    default: return 1;
  }
}

CUresult cuDeviceTotalMem_v2(size_t* bytes, int dev) {
  char key[64];
  snprintf(key, sizeof key, "dev%d.memory_mib", dev);
  *bytes = (size_t)fake_conf_int(key, 81920) << 20;
  return 0;
}

CUresult cuDeviceGetPCIBusId(char* bus, int len, int dev) {
  snprintf(bus, (size_t)len, "0000:%02X:00.0", dev + 1);
  return 0;
}

CUresult cuDeviceGetUuid_v2(CUuuid* uuid, int dev) {
  for (int i = 0; i < 16; ++i) uuid->bytes[i] = (unsigned char)(0x10 * dev + i);
  return 0;
}

CUresult cuGetErrorName(CUresult rc, const char** name) {
  (void)rc;
  *name = NULL;
  return 1;  /* let the doctor use its own table */
}
#endif
