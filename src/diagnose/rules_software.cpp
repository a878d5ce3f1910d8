// Rules about the software stack beside the Python environments' PyTorch (rules_python): dlready's
// own module, the CUDA toolkit, LibTorch, BLAS.
#include "core/text.hpp"
#include "diagnose/catalogue.hpp"
#include "compat/compat.hpp"
#include "diagnose/rules.hpp"

namespace dlready {

// On both platforms (Windows: rules_windows.cpp): a CUDA build of PyTorch and only toolkits of
// another CUDA major, whose nvcc builds extensions that do not load.
void toolkit_rules(const Facts& f, std::vector<Finding>& out) {
  const TorchInstall* t = primary_torch(f);
  if (!t || !t->cuda) return;
  for (const auto& tk : f.cuda_libs.toolkits) {
    if (!tk.has_nvcc || !tk.version) continue;
    auto tk_major = split(*tk.version, '.')[0];
    auto torch_major = split(*t->cuda, '.')[0];
    if (tk_major == torch_major) return;  // one matching toolkit is enough
  }
  for (const auto& tk : f.cuda_libs.toolkits) {
    if (!tk.has_nvcc || !tk.version) continue;
    auto x = make_finding("cuda-toolkit-torch-mismatch");
    x.evidence.push_back("nvcc " + *tk.version + " in " + tk.path);
    x.evidence.push_back(torch_label(*t) + " uses CUDA " + *t->cuda);
    x.fix = {"install the CUDA " + *t->cuda + " toolkit and point CUDA_HOME at it before building extensions"};
    out.push_back(x);
    return;
  }
}

// Only where the doctor looked for its own module (the machine it runs on, not another --root).
void own_module_rules(const Facts& f, std::vector<Finding>& out) {
  const auto& m = f.own_module;
  if (m.error.empty() || m.libtorch_dir) return;
  auto x = make_finding("dlready-module-missing");
  x.evidence.push_back(m.error);
  if (m.built_by)
    x.fix = {*m.built_by + "  (compiles it once against the active torch with your C++ compiler, a few minutes; "
                           "dlready train does it on first use)"};
  else
    x.fix = {"build it beside the binary: scripts/setup.sh (or cmake --build build/release)",
             "an installed dlready: cmake --install build/release --prefix ~/.local puts it in ~/.local/lib/dlready"};
  out.push_back(x);
}

void rules_software(const Facts& f, const Derived&, std::vector<Finding>& out) {
  own_module_rules(f, out);
  toolkit_rules(f, out);
  for (const auto& li : f.libtorch.installs) {
    if (li.cxx11_abi != false) continue;
    auto x = make_finding("libtorch-abi-mismatch");
    x.evidence.push_back(li.path + " (" + li.build_version.value_or("?") + ") sets _GLIBCXX_USE_CXX11_ABI=0");
    x.evidence.push_back("g++ 5 and newer default to _GLIBCXX_USE_CXX11_ABI=1");
    x.fix = {"download the cxx11-abi LibTorch archive (libtorch-cxx11-abi-shared-with-deps-*.zip)",
             "or build your code with add_compile_definitions(_GLIBCXX_USE_CXX11_ABI=0)"};
    out.push_back(x);
  }
  // Only where the slow BLAS is on someone's path: the PyTorch wheels and numpy's wheels carry
  // their own, so apt-get would change nothing for them (issue 15, item 4).
  std::vector<std::string> users;
  for (const auto& c : f.blas.consumers)
    if (c.system_blas) users.push_back(c.name + " (" + c.library + ")");
  if (f.blas.implementation == std::string("reference") && !users.empty()) {
    auto x = make_finding("blas-reference");
    x.evidence.push_back("libblas.so.3 resolves to " + f.blas.library.real_path.value_or(f.blas.library.path.value_or("?")) +
                         " (netlib reference BLAS)");
    x.evidence.push_back("it does the matrix math of: " + join(users, ", "));
    for (const auto& c : f.blas.consumers)
      if (!c.system_blas) x.evidence.push_back("not of " + c.name + ": its BLAS is " + c.blas);
    x.fix = {"sudo apt-get install -y libopenblas0-pthread (Debian/Ubuntu switch libblas.so.3 to OpenBLAS through "
             "update-alternatives)",
             "check: update-alternatives --display libblas.so.3-$(gcc -dumpmachine)"};
    out.push_back(x);
  }
}

}  // namespace dlready
