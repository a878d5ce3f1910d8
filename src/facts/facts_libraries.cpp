#include "facts/facts_libraries.hpp"

#include "facts/fact_json.hpp"

namespace dlready {

const FactTable<LibraryLocation>& library_location_fields() {
  using L = LibraryLocation;
  static const FactTable<L> kFields = {
      {"soname", &L::soname},
      {"path", &L::path},
      {"real_path", &L::real_path},
      {"version", &L::version},
      {"found_via", +[](const L& l) { return l.found() ? nlohmann::json(l.found_via) : nlohmann::json(nullptr); }},
      {"searched", &L::searched},
      {"stub", &L::stub},
      {"compat", &L::compat},
      {"wsl", &L::wsl},
  };
  return kFields;
}

const FactTable<CudaToolkit>& cuda_toolkit_fields() {
  static const FactTable<CudaToolkit> kFields = {
      {"path", &CudaToolkit::path},
      {"version", &CudaToolkit::version},
      {"nvcc", &CudaToolkit::has_nvcc},
  };
  return kFields;
}

const FactTable<BlasFacts>& blas_fields() {
  static const FactTable<BlasFacts> kFields = {
      {"library", +[](const BlasFacts& b) { return fact_group_json(b.library, library_location_fields()); }},
      {"implementation", &BlasFacts::implementation},
      {"consumers", +[](const BlasFacts& b) { return fact_list_json(b.consumers, blas_consumer_fields()); }},
  };
  return kFields;
}

const FactTable<BlasConsumer>& blas_consumer_fields() {
  using B = BlasConsumer;
  static const FactTable<B> kFields = {
      {"name", &B::name}, {"where", &B::where}, {"library", &B::library},
      {"blas", &B::blas}, {"system_blas", &B::system_blas},
  };
  return kFields;
}

}  // namespace dlready
