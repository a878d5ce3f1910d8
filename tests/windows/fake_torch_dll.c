// A DLL of torch\lib (built as c10.dll, fbgemm.dll and torch_cuda.dll) whose import table names a runtime DLL
// (tests/windows/fake_runtime.c), as torch's own name the Visual C++ runtime and OpenMP.
__declspec(dllimport) int fake_runtime_entry(void);
__declspec(dllexport) int fake_torch_entry(void) { return fake_runtime_entry(); }
