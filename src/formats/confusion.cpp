#include "formats/confusion.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "os/atomic_file.hpp"
#include "core/text.hpp"

namespace dlready {

ClassNames class_names_for(const std::string& data_directory) {
  if (to_lower(data_directory).find("fashion") != std::string::npos)
    return {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"};
  return {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
}

std::string confusion_text(const std::vector<int64_t>& confusion, const ClassNames& names) {
  std::string out = "confusion matrix (rows: true class, columns: predicted)\n";
  if (confusion.size() < 100) return out;
  size_t width = 0;
  for (const auto& n : names) width = std::max(width, n.size());
  const bool numbered = names[0] != "0";  // digits are their own numbers
  char cell[64];
  out += std::string(numbered ? width + 6 : 5, ' ');
  for (int j = 0; j < 10; ++j) {
    std::snprintf(cell, sizeof cell, " %5d", j);
    out += cell;
  }
  out += "\n";
  for (size_t i = 0; i < 10; ++i) {
    if (numbered) std::snprintf(cell, sizeof cell, "  %zu %-*s |", i, static_cast<int>(width), names[i].c_str());
    else std::snprintf(cell, sizeof cell, "  %zu |", i);
    out += cell;
    for (size_t j = 0; j < 10; ++j) {
      std::snprintf(cell, sizeof cell, " %5lld", static_cast<long long>(confusion[i * 10 + j]));
      out += cell;
    }
    out += "\n";
  }
  return out;
}

std::string render_confusion_svg(const std::vector<int64_t>& confusion, const ClassNames& names, const std::string& title) {
  constexpr int kCell = 44, kLeft = 130, kTop = 120;
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kLeft + 10 * kCell + 30 << "\" height=\""
    << kTop + 10 * kCell + 50 << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"16\" y=\"20\" font-size=\"14\" font-weight=\"bold\">" << escape_xml(title) << "</text>\n"
    << "<text x=\"16\" y=\"38\">rows: true class; columns: predicted; shade: share of the true class's images</text>\n";
  for (int j = 0; j < 10; ++j)  // column names, turned so that long ones fit
    s << "<text transform=\"translate(" << kLeft + j * kCell + kCell / 2 + 4 << "," << kTop - 6
      << ") rotate(-50)\">" << escape_xml(names[static_cast<size_t>(j)]) << "</text>\n";
  for (int i = 0; i < 10 && confusion.size() >= 100; ++i) {
    int64_t row = 0;
    for (int j = 0; j < 10; ++j) row += confusion[static_cast<size_t>(i * 10 + j)];
    s << "<text x=\"" << kLeft - 8 << "\" y=\"" << kTop + i * kCell + kCell / 2 + 4 << "\" text-anchor=\"end\">"
      << escape_xml(names[static_cast<size_t>(i)]) << "</text>\n";
    for (int j = 0; j < 10; ++j) {
      int64_t n = confusion[static_cast<size_t>(i * 10 + j)];
      double share = row > 0 ? static_cast<double>(n) / static_cast<double>(row) : 0.0;
      // Right answers in blue, mistakes in red, white at zero.
      int fade = static_cast<int>(255 - 200 * std::min(1.0, i == j ? share : 4 * share));
      char fill[16];
      std::snprintf(fill, sizeof fill, i == j ? "#%02x%02xff" : "#ff%02x%02x", fade, fade);
      s << "<rect x=\"" << kLeft + j * kCell << "\" y=\"" << kTop + i * kCell << "\" width=\"" << kCell
        << "\" height=\"" << kCell << "\" fill=\"" << fill << "\" stroke=\"#d0d0d0\"/>\n"
        << "<text x=\"" << kLeft + j * kCell + kCell / 2 << "\" y=\"" << kTop + i * kCell + kCell / 2 + 4
        << "\" text-anchor=\"middle\">" << n << "</text>\n";
    }
  }
  s << "</svg>\n";
  return s.str();
}

Status write_confusion_svg(const std::string& path, const std::vector<int64_t>& confusion, const ClassNames& names,
                           const std::string& title) {
  return write_file_atomically(path, render_confusion_svg(confusion, names, title));
}

}  // namespace dlready
