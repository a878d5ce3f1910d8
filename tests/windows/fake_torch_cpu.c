// torch_cpu.dll: imports c10.dll, as the real one does, so a missing DLL two steps down is followed.
__declspec(dllimport) int fake_torch_entry(void);
__declspec(dllexport) int fake_torch_cpu_entry(void) { return fake_torch_entry(); }
