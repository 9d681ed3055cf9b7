#include "common/text_template.h"

#include <stdexcept>

#include "core/errors.h"

namespace kb {

std::string fill_template(const std::string& text, const std::map<std::string, std::string>& values) {
  std::string out;
  std::string missing;
  size_t pos = 0;
  for (;;) {
    size_t open = text.find("{{", pos);
    if (open == std::string::npos) break;
    size_t close = text.find("}}", open + 2);
    if (close == std::string::npos) break;
    std::string name = text.substr(open + 2, close - open - 2);
    out += text.substr(pos, open - pos);
    auto it = values.find(name);
    if (it == values.end()) {
      missing += (missing.empty() ? "" : ", ") + name;
      out += text.substr(open, close + 2 - open);
    } else {
      out += it->second;
    }
    pos = close + 2;
  }
  out += text.substr(pos);
  if (!missing.empty()) throw Error("prompt placeholders without a value: " + missing);
  return out;
}

}  // namespace kb
