#include "compat/gpu_peaks.hpp"

#include <stdexcept>

#include "core/text.hpp"

namespace dlready {

extern const char* const kGpuPeaksTsv;

namespace {

std::optional<double> number(const std::string& s) {
  if (s == "-") return std::nullopt;
  size_t used = 0;
  double v = std::stod(s, &used);
  if (used != s.size() || v <= 0) throw std::runtime_error("bad number " + s);
  return v;
}

std::vector<GpuPeak> parse() {
  std::vector<GpuPeak> rows;
  for (const auto& line : lines(kGpuPeaksTsv)) {
    if (line.empty() || line[0] == '#') continue;
    auto c = split(line, '\t', true);
    // A malformed row is a bug in data/gpu_peaks.tsv, caught by the table test.
    if (c.size() != 6) throw std::runtime_error("data/gpu_peaks.tsv: expected 6 columns: " + line);
    rows.push_back({c[0], number(c[1]), number(c[2]), number(c[3]), number(c[4]), c[5]});
  }
  return rows;
}

}  // namespace

const std::vector<GpuPeak>& gpu_peaks() {
  static const std::vector<GpuPeak> rows = parse();  // immutable after first use
  return rows;
}

std::optional<GpuPeak> gpu_peak_for(const std::string& name) {
  for (const auto& p : gpu_peaks())
    if (name.find(p.match) != std::string::npos) return p;
  return std::nullopt;
}

std::optional<double> peak_of(const GpuPeak& p, const std::string& dtype) {
  if (dtype == "fp32") return p.fp32;
  if (dtype == "tf32") return p.tf32;
  if (dtype == "fp16") return p.fp16;
  if (dtype == "bf16") return p.bf16;
  return std::nullopt;
}

}  // namespace dlready
