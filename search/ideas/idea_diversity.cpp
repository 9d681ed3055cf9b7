#include "search/ideas/idea_diversity.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>

#include "common/edit_distance.h"

namespace kb::search {
namespace {

std::string normalized(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    const char k = std::isalnum(c) ? static_cast<char>(std::tolower(c)) : ' ';
    if (k == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += k;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// Words that carry the idea: short words ("a", "in", "to") say little about which idea it is.
std::set<std::string> content_words(const std::string& normalized_text) {
  std::set<std::string> words;
  std::istringstream in(normalized_text);
  for (std::string w; in >> w;)
    if (w.size() >= 3) words.insert(w);
  return words;
}

}  // namespace

double idea_similarity(const std::string& a, const std::string& b) {
  const std::string x = normalized(a), y = normalized(b);
  if (x.empty() || y.empty()) return x == y ? 1.0 : 0.0;
  const double longest = static_cast<double>(std::max(x.size(), y.size()));
  const double edit = 1.0 - static_cast<double>(edit_distance(x, y)) / longest;
  const auto wx = content_words(x), wy = content_words(y);
  double overlap = 0;
  if (!wx.empty() && !wy.empty()) {
    size_t shared = 0;
    for (const auto& w : wx) shared += wy.count(w);
    overlap = static_cast<double>(shared) / static_cast<double>(wx.size() + wy.size() - shared);
  }
  return std::max(edit, overlap);
}

IdeaSelection diversify_ideas(const std::vector<ProposedIdea>& ideas, size_t slots) {
  IdeaSelection out;
  std::vector<size_t> distinct;  // indices into `ideas`
  for (size_t i = 0; i < ideas.size(); ++i) {
    bool merged = false;
    for (size_t kept : distinct) {
      const double alike = idea_similarity(ideas[i].idea.text, ideas[kept].idea.text);
      if (alike >= kNearDuplicate) {
        out.notes.push_back(fmt::format("idea {} (\"{}\") merged into idea {} ({:.0f}% alike)", i + 1,
                                        ideas[i].idea.text, kept + 1, alike * 100));
        merged = true;
        break;
      }
    }
    if (!merged) distinct.push_back(i);
  }
  std::vector<size_t> chosen = distinct;
  if (distinct.size() > slots) {
    // Round-robin over the families in order of first appearance.
    std::vector<std::string> families;
    std::map<std::string, std::vector<size_t>> by_family;
    for (size_t i : distinct) {
      const std::string& f = ideas[i].idea.family;
      if (!by_family.count(f)) families.push_back(f);
      by_family[f].push_back(i);
    }
    chosen.clear();
    for (size_t pass = 0; chosen.size() < slots; ++pass)
      for (const auto& f : families)
        if (pass < by_family[f].size() && chosen.size() < slots) chosen.push_back(by_family[f][pass]);
    std::sort(chosen.begin(), chosen.end());
    for (size_t i : distinct)
      if (!std::binary_search(chosen.begin(), chosen.end(), i))
        out.notes.push_back(fmt::format("idea {} (\"{}\") left out: {} slots, kept for other families' ideas", i + 1,
                                        ideas[i].idea.text, slots));
  }
  for (size_t i : chosen) out.ideas.push_back(ideas[i]);
  return out;
}

}  // namespace kb::search
