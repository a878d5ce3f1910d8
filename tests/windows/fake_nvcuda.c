/* A fake nvcuda.dll for the Windows doctor's scenarios under wine: the CUDA driver's entry points
 * the doctor calls, answering from nvcuda.conf beside the DLL (key=value lines, as the Linux fakes'
 * fake_driver.conf: behaviour=hang|crash, init, driver_version, devices, dev0.name, dev0.cc_major,
 * dev0.cc_minor, dev0.sm_count, dev0.memory_mib), and a version resource like NVIDIA's
 * (fake_nvcuda.rc). Test code only. */
#define FAKE_CONF_FILE "nvcuda.conf"
#include "../fake_driver/fake_conf.h"

__declspec(dllexport) int cuDriverGetVersion(int* version) {
  *version = (int)fake_conf_int("driver_version", 12060);
  return 0;
}
__declspec(dllexport) int cuInit(unsigned flags) {
  (void)flags;
  fake_conf_behave("behaviour");
  return (int)fake_conf_int("init", 0);
}
__declspec(dllexport) int cuDeviceGetCount(int* count) {
  *count = (int)fake_conf_int("devices", 1);
  return 0;
}
__declspec(dllexport) int cuDeviceGet(int* device, int ordinal) {
  *device = ordinal;
  return 0;
}
__declspec(dllexport) int cuDeviceGetName(char* name, int len, int device) {
  char key[32], buf[128];
  snprintf(key, sizeof key, "dev%d.name", device);
  const char* v = fake_conf_get(key, buf, sizeof buf);
  snprintf(name, (size_t)len, "%s", v ? v : "NVIDIA GeForce RTX 4090");
  return 0;
}
__declspec(dllexport) int cuDeviceGetAttribute(int* value, int attribute, int device) {
  char key[32];
  const char* field = attribute == 75 ? "cc_major" : attribute == 76 ? "cc_minor" : attribute == 16 ? "sm_count" : NULL;
  if (!field) return 1; /* CUDA_ERROR_INVALID_VALUE */
  snprintf(key, sizeof key, "dev%d.%s", device, field);
  *value = (int)fake_conf_int(key, attribute == 75 ? 8 : attribute == 76 ? 9 : 128);
  return 0;
}
__declspec(dllexport) int cuDeviceTotalMem_v2(size_t* bytes, int device) {
  char key[32];
  snprintf(key, sizeof key, "dev%d.memory_mib", device);
  *bytes = (size_t)fake_conf_int(key, 24564) << 20;
  return 0;
}
