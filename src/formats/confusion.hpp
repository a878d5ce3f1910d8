// The confusion matrix as people read it: the classes by name (Fashion-MNIST's T-shirt/top,
// Trouser, ... — the tutorials' dataset — else the digits), as text and as an SVG heat map.
// Torch-free: counts in, text out.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.hpp"

namespace dlready {

using ClassNames = std::array<std::string, 10>;

// Fashion-MNIST's names when the data directory is Fashion-MNIST's (Debian's dataset-fashion-mnist
// installs /usr/share/datasets/fashion-mnist), else "0".."9".
ClassNames class_names_for(const std::string& data_directory);

// "confusion matrix (rows: true class, columns: predicted)", a header of column numbers, and ten
// rows "  0 T-shirt/top   |   850 ...". `confusion`: 100 counts, row-major.
std::string confusion_text(const std::vector<int64_t>& confusion, const ClassNames& names);

// The same as an SVG: one cell per count, shaded by its share of the true class's row.
std::string render_confusion_svg(const std::vector<int64_t>& confusion, const ClassNames& names, const std::string& title);
Status write_confusion_svg(const std::string& path, const std::vector<int64_t>& confusion, const ClassNames& names,
                           const std::string& title);

}  // namespace dlready
