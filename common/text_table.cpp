#include "common/text_table.h"

#include <algorithm>
#include <cctype>

namespace kb {
namespace {
bool looks_numeric(const std::string& s) {
  if (s.empty()) return false;
  char c = s[0];
  return std::isdigit(static_cast<unsigned char>(c)) || ((c == '-' || c == '+' || c == '.') && s.size() > 1);
}
}  // namespace

std::string TextTable::render() const {
  std::vector<size_t> width(header_.size(), 0);
  for (size_t i = 0; i < header_.size(); ++i) width[i] = header_[i].size();
  for (const auto& row : rows_)
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], row[i].size());
  auto line = [&](const std::vector<std::string>& cells, bool is_header) {
    std::string out;
    for (size_t i = 0; i < width.size(); ++i) {
      std::string cell = i < cells.size() ? cells[i] : "";
      std::string pad(width[i] - std::min(width[i], cell.size()), ' ');
      bool right = !is_header && looks_numeric(cell);
      out += right ? pad + cell : cell + pad;
      if (i + 1 < width.size()) out += "  ";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header_, true);
  std::string rule;
  for (size_t i = 0; i < width.size(); ++i) rule += std::string(width[i], '-') + (i + 1 < width.size() ? "  " : "");
  out += rule + "\n";
  for (const auto& row : rows_) out += line(row, false);
  return out;
}

}  // namespace kb
