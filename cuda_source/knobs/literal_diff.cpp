#include "cuda_source/knobs/literal_diff.h"

#include <fmt/format.h>

#include <set>

#include "cuda_source/knobs/literal_knobs.h"
#include "cuda_source/tokens/code_tokens.h"

namespace kb::cuda_source {

std::optional<std::vector<std::string>> describe_literal_changes(const std::string& original,
                                                                 const std::string& updated,
                                                                 const std::string& launcher, const std::string& file) {
  const auto a = tokenize_code(original, true);
  const auto b = tokenize_code(updated, true);
  if (a.size() != b.size()) return std::nullopt;
  std::vector<size_t> changed;
  std::vector<TextEdit> edits;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].text == b[i].text) continue;
    if (!integer_literal(a[i]) || !integer_literal(b[i])) return std::nullopt;
    changed.push_back(i);
    edits.push_back({a[i].begin, a[i].end, b[i].text});
  }
  // Tokens alone miss comments and spacing: the literals must be the only difference.
  if (changed.empty() || apply_text_edits(original, edits) != updated) return std::nullopt;

  std::vector<std::string> out;
  std::set<size_t> described;
  for (const auto& knob : find_launcher_knobs(original, launcher, file).literals) {
    std::optional<std::string> line;
    for (size_t i : changed)
      for (size_t o = 0; o < knob.occurrences.size(); ++o) {
        if (knob.occurrences[o].begin != a[i].begin || !knob.occurrences[o].wrapped.empty()) continue;
        described.insert(i);
        if (o == 0)
          line = fmt::format("{}: {} -> {}", knob.edit_name(), knob.value,
                             *integer_literal(b[i]) - knob.occurrences[o].offset);
      }
    if (line) out.push_back(*line);
  }
  for (size_t i : changed)
    if (!described.count(i))
      out.push_back(
          fmt::format("the literal at {}:{}: {} -> {}", file, line_of(original, a[i].begin), a[i].text, b[i].text));
  return out;
}

}  // namespace kb::cuda_source
