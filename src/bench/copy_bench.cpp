#include "bench/copy_bench.hpp"

#include "torch_runtime/cuda_support.hpp"

namespace dlready {
namespace {

CopyRow copy_row(const std::string& kind, torch::Tensor dst, const torch::Tensor& src, const torch::Device& d,
                 const Recipe& recipe) {
  CopyRow row{kind, src.numel() * static_cast<int64_t>(src.element_size())};
  bool async = src.is_pinned() || dst.is_pinned();
  row.timing = measure([&] { dst.copy_(src, async); }, [&] { synchronize(d); }, recipe);
  row.gb_per_s = static_cast<double>(row.bytes) / row.timing.median_s / 1e9;
  row.verified = torch::equal(dst.cpu(), src.cpu());
  return row;
}

}  // namespace

std::vector<CopyRow> bench_copy(const torch::Device& d, int64_t bytes, const Recipe& recipe) {
  auto n = bytes / 4;
  auto host = torch::randint(0, 1 << 30, {n}, torch::TensorOptions().dtype(torch::kInt));
  std::vector<CopyRow> rows;
  if (!d.is_cuda()) {
    rows.push_back(copy_row("host", torch::empty_like(host), host, d, recipe));
    return rows;
  }
  auto pinned = host.pin_memory();
  auto dev = torch::empty({n}, host.options().device(d));
  rows.push_back(copy_row("h2d-pageable", dev, host, d, recipe));
  rows.push_back(copy_row("h2d-pinned", dev, pinned, d, recipe));
  rows.push_back(copy_row("d2h-pageable", torch::empty_like(host), dev, d, recipe));
  rows.push_back(copy_row("d2h-pinned", torch::empty_like(host).pin_memory(), dev, d, recipe));
  rows.push_back(copy_row("d2d", torch::empty_like(dev), dev, d, recipe));
  return rows;
}

}  // namespace dlready
