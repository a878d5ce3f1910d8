/* A fake nvcuda.dll for the Windows doctor's scenarios under wine: a DLL with the CUDA driver's
 * first entry points and a version resource like NVIDIA's (fake_nvcuda.rc). Test code only. */
#include <windows.h>

__declspec(dllexport) int cuInit(unsigned flags) {
  (void)flags;
  return 0;
}
__declspec(dllexport) int cuDriverGetVersion(int* version) {
  *version = 12060;
  return 0;
}
__declspec(dllexport) int cuDeviceGetCount(int* count) {
  *count = 1;
  return 0;
}
