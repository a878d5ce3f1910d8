// libblas.so.3 (Debian's alternatives) and, for each PyTorch, LibTorch and numpy found, the BLAS
// it really uses: the x86-64 PyTorch wheels carry MKL inside libtorch_cpu.so and numpy's wheels
// bundle OpenBLAS, so a slow libblas.so.3 matters only to what links it (issue 15, item 4).
#include "core/text.hpp"
#include "binfmt/elf_reader.hpp"
#include "probe/linux/probes.hpp"

namespace dlready {
namespace {

std::optional<std::string> implementation_of(const std::string& real_path) {
  // Debian's alternatives put each implementation in its own directory:
  // .../blas/libblas.so.3 (reference netlib), .../openblas-pthread/, .../blis-openmp/, ...
  std::string p = to_lower(real_path);
  if (contains(p, "openblas")) return "openblas";
  if (contains(p, "blis")) return "blis";
  if (contains(p, "mkl")) return "mkl";
  if (contains(p, "atlas")) return "atlas";
  if (contains(p, "/blas/") || contains(p, "netlib")) return "reference";
  return std::nullopt;
}

// What the ELF file's DT_NEEDED says about its BLAS; nullopt when it cannot be read.
std::optional<BlasConsumer> consumer_of(const RootFs& fs, const std::string& name, const std::string& where,
                                        const std::string& library) {
  auto elf = read_elf(fs, library);
  if (!elf.info) return std::nullopt;
  BlasConsumer c{name, where, library, "linked in", false};
  for (const auto& n : elf.info->needed) {
    std::string l = to_lower(n);
    if (starts_with(l, "libblas.so") || starts_with(l, "libcblas.so")) {
      c.blas = n, c.system_blas = true;
      break;
    }
    if (contains(l, "openblas") || contains(l, "mkl") || contains(l, "blis")) c.blas = n;
  }
  return c;
}

// numpy: a wheel bundles its BLAS in numpy.libs/; Debian's python3-numpy links libblas.so.3.
void add_numpy(const RootFs& fs, const std::string& sp, std::vector<BlasConsumer>& out) {
  if (!fs.is_dir(sp + "/numpy")) return;
  for (const auto& f : fs.list(sp + "/numpy.libs"))
    if (contains(to_lower(f), "openblas")) {
      out.push_back({"numpy", sp, sp + "/numpy.libs/" + f, "bundled: numpy.libs/" + f, false});
      return;
    }
  for (const char* core : {"/numpy/_core", "/numpy/core"})
    for (const auto& f : fs.list(sp + core))
      if (starts_with(f, "_multiarray_umath") && contains(f, ".so"))
        if (auto c = consumer_of(fs, "numpy", sp, sp + core + "/" + f)) {
          out.push_back(*c);
          return;
        }
}

}  // namespace

BlasFacts probe_blas(const RootFs& fs, const LibraryLocator& loc, const PythonFacts& py, const LibtorchFacts& lt) {
  BlasFacts f;
  f.library = loc.locate("libblas.so.3");
  if (f.library.found()) f.implementation = implementation_of(f.library.real_path.value_or(*f.library.path));
  for (const auto& env : py.envs) {
    for (const auto& t : env.torch)
      if (auto c = consumer_of(fs, "torch " + t.version.value_or("?"), t.site_packages,
                               t.site_packages + "/torch/lib/libtorch_cpu.so"))
        f.consumers.push_back(*c);
    for (const auto& sp : env.site_packages) add_numpy(fs, sp, f.consumers);
  }
  for (const auto& i : lt.installs)
    if (auto c = consumer_of(fs, i.build_version ? "LibTorch " + *i.build_version : "LibTorch", i.path,
                             i.path + "/lib/libtorch_cpu.so"))
      f.consumers.push_back(*c);
  return f;
}

}  // namespace dlready
