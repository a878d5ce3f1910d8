// A runtime DLL a torch DLL imports (built as vcruntime140_1.dll, libomp140.x86_64.dll and
// cudnn64_9.dll): the
// Windows scenarios leave it out of every folder to make `import torch` fail with WinError 126.
__declspec(dllexport) int fake_runtime_entry(void) { return 1; }
