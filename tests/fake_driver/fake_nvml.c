/* A fake libnvidia-ml.so.1 for the doctor's tests (see fake_conf.h). */
#include "fake_conf.h"

typedef int nvmlReturn_t;
typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef void* nvmlDevice_t;

static long idx(nvmlDevice_t d) { return (long)(size_t)d - 1; }

nvmlReturn_t nvmlInit_v2(void) {
  fake_conf_behave("nvml.behaviour");
  return (nvmlReturn_t)fake_conf_int("nvml.init", 0);
}
nvmlReturn_t nvmlShutdown(void) { return 0; }

nvmlReturn_t nvmlSystemGetDriverVersion(char* v, unsigned len) {
  char buf[64];
  const char* d = fake_conf_get("nvml.driver", buf, sizeof buf);
  snprintf(v, len, "%s", d ? d : "580.65.06");
  return 0;
}
nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* v) {
  *v = (int)fake_conf_int("cuda.driver_version", 13000);
  return 0;
}
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned* n) {
  *n = (unsigned)fake_conf_int("devices", 1);  /* NVML ignores CUDA_VISIBLE_DEVICES */
  return 0;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t* d) {
  *d = (nvmlDevice_t)(size_t)(i + 1);
  return 0;
}
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char* name, unsigned len) {
  char key[64], buf[256];
  snprintf(key, sizeof key, "dev%ld.name", idx(d));
  const char* v = fake_conf_get(key, buf, sizeof buf);
  snprintf(name, len, "%s", v ? v : "NVIDIA Fake GPU");
  return 0;
}
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char* uuid, unsigned len) {
  long i = idx(d);
  unsigned char b[16];
  for (int k = 0; k < 16; ++k) b[k] = (unsigned char)(0x10 * i + k);
  snprintf(uuid, len, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
           b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return 0;
}
nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t d, int* mode) {
  char key[64];
  snprintf(key, sizeof key, "dev%ld.compute_mode", idx(d));
  *mode = (int)fake_conf_int(key, 0);
  return 0;
}
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned* cur, unsigned* pending) {
  char key[64];
  snprintf(key, sizeof key, "dev%ld.mig", idx(d));
  *cur = (unsigned)fake_conf_int(key, 0);
  snprintf(key, sizeof key, "dev%ld.mig_pending", idx(d));
  *pending = (unsigned)fake_conf_int(key, (long)*cur);
  return 0;
}
nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned* n) {
  (void)d;
  *n = 7;
  return 0;
}
nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned i, nvmlDevice_t* mig) {
  char key[64];
  snprintf(key, sizeof key, "dev%ld.mig_instances", idx(d));
  if ((long)i >= fake_conf_int(key, 0)) return 6; /* NVML_ERROR_NOT_FOUND */
  *mig = d;
  return 0;
}
nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t d, int* on) {
  (void)d;
  *on = 1;
  return 0;
}
/* dev<i>.nvml_memory_unsupported=1: NVML_ERROR_NOT_SUPPORTED (3), as on GB10. */
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t* m) {
  char key[64];
  snprintf(key, sizeof key, "dev%ld.nvml_memory_unsupported", idx(d));
  if (fake_conf_int(key, 0)) return 3;
  snprintf(key, sizeof key, "dev%ld.memory_mib", idx(d));
  m->total = (unsigned long long)fake_conf_int(key, 81920) << 20;
  snprintf(key, sizeof key, "dev%ld.memory_used_mib", idx(d));
  m->used = (unsigned long long)fake_conf_int(key, 0) << 20;
  m->free = m->total - m->used;
  return 0;
}

typedef struct {
  unsigned long long bar1Total, bar1Free, bar1Used;
} nvmlBAR1Memory_t;
/* dev<i>.bar1_mib: the BAR1 the driver mapped; without it, NVML_ERROR_NOT_SUPPORTED (3). */
nvmlReturn_t nvmlDeviceGetBAR1MemoryInfo(nvmlDevice_t d, nvmlBAR1Memory_t* b) {
  char key[64];
  snprintf(key, sizeof key, "dev%ld.bar1_mib", idx(d));
  long mib = fake_conf_int(key, -1);
  if (mib < 0) return 3;
  b->bar1Total = (unsigned long long)mib << 20;
  b->bar1Used = 0;
  b->bar1Free = b->bar1Total;
  return 0;
}

/* dev<i>.clocks_event_reasons: the bit mask (default 0x1: idle, as a GPU nothing runs on). */
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d, unsigned long long* reasons) {
  char key[64];
  snprintf(key, sizeof key, "dev%ld.clocks_event_reasons", idx(d));
  *reasons = (unsigned long long)fake_conf_int(key, 1);
  return 0;
}

typedef struct {
  char busIdLegacy[16];
  unsigned domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
} nvmlPciInfo_t;
/* The same bus id the fake libcuda reports for the device. */
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t* pci) {
  long i = idx(d);
  memset(pci, 0, sizeof *pci);
  pci->bus = (unsigned)(i + 1);
  snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "0000:%02lX:00.0", i + 1);
  snprintf(pci->busId, sizeof pci->busId, "00000000:%02lX:00.0", i + 1);
  return 0;
}

/* dev<i>.driver_model: Windows' driver model (0 WDDM, 1 TCC, 2 MCDM); without it
 * NVML_ERROR_NOT_SUPPORTED (3), as on Linux. */
nvmlReturn_t nvmlDeviceGetDriverModel_v2(nvmlDevice_t d, int* current, int* pending) {
  char key[64];
  snprintf(key, sizeof key, "dev%ld.driver_model", idx(d));
  long model = fake_conf_int(key, -1);
  if (model < 0) return 3;
  *current = *pending = (int)model;
  return 0;
}
