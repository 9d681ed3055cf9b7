#include "bot/onboarding/starter_table_text.h"

#include <cstdint>

namespace kb::bot {

std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return out + "\"";
}

std::string starter_sizes_line(const std::vector<std::string>& size_names) {
  if (size_names.empty()) return "";
  const size_t n = size_names.size();
  const int64_t each = n == 1 ? 1048576 : n == 2 ? 1024 : n == 3 ? 256 : 64;
  std::string out = "sizes = [{ ";
  for (size_t i = 0; i < n; ++i) out += (i ? ", " : "") + size_names[i] + " = " + std::to_string(each);
  return out + " }]   # check: realistic sizes; add more size sets\n";
}

}  // namespace kb::bot
