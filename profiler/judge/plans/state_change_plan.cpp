#include "profiler/judge/plans/state_change_plan.h"

#include <algorithm>

#include "profiler/judge/inputs/input_distribution.h"

namespace kb::judge {
namespace {

// Uniform in [0, n), n > 0, the `k`th draw of `seed`.
size_t draw(uint64_t seed, uint64_t k, size_t n) {
  return static_cast<size_t>(splitmix64(splitmix64(seed) + k) % static_cast<uint64_t>(n));
}

}  // namespace

size_t kept_prefix(size_t count) {
  if (count < 2) return count;
  return std::max<size_t>(1, std::min<size_t>(count / 2, 256));
}

std::vector<size_t> pick_change_positions(size_t count, size_t how_many, uint64_t seed) {
  const size_t first = kept_prefix(count);
  const size_t span = count - first;
  std::vector<size_t> positions;
  if (span <= how_many) {
    for (size_t p = first; p < count; ++p) positions.push_back(p);
    return positions;
  }
  for (uint64_t k = 0; positions.size() < how_many; ++k) {
    const size_t p = first + draw(seed, k, span);
    if (std::find(positions.begin(), positions.end(), p) == positions.end()) positions.push_back(p);
  }
  std::sort(positions.begin(), positions.end());
  return positions;
}

size_t pick_source_position(size_t count, size_t position, uint64_t seed, int attempt) {
  // One of the other count - 1 elements: skip over `position`.
  const size_t k = draw(seed ^ 0xC0DEC0DEC0DEull,
                        (static_cast<uint64_t>(position) << 8) + static_cast<uint64_t>(attempt), count - 1);
  return k < position ? k : k + 1;
}

std::string describe_changed_elements(const std::string& role, const std::string& name,
                                      const std::vector<size_t>& positions) {
  std::string s = std::to_string(positions.size()) + (positions.size() == 1 ? " element of " : " elements of ") + role +
                  " " + name + " changed (at ";
  constexpr size_t kListed = 8;
  for (size_t k = 0; k < positions.size() && k < kListed; ++k) s += (k ? ", " : "") + std::to_string(positions[k]);
  if (positions.size() > kListed) s += ", ...";
  return s + ")";
}

std::string describe_sequence_call(int call, int calls, const std::string& size_label) {
  return "call " + std::to_string(call) + " of " + std::to_string(calls) + " on the same buffers at size " + size_label;
}

}  // namespace kb::judge
