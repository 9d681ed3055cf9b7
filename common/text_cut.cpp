#include "common/text_cut.h"

namespace kb {
namespace {

std::string cut_note(size_t cut) { return "[... " + std::to_string(cut) + " characters cut ...]"; }

}  // namespace

std::string keep_head(const std::string& text, size_t max) {
  if (text.size() <= max) return text;
  return text.substr(0, max) + "\n" + cut_note(text.size() - max);
}

std::string keep_tail(const std::string& text, size_t max) {
  if (text.size() <= max) return text;
  return cut_note(text.size() - max) + "\n" + text.substr(text.size() - max);
}

}  // namespace kb
