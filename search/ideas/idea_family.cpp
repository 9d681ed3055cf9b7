#include "search/ideas/idea_family.h"

#include <algorithm>
#include <cctype>
#include <utility>
#include <vector>

#include "common/text.h"

namespace kb::search {
namespace {

struct FamilyInfo {
  const char* name;
  const char* description;
  std::vector<const char*> words;  // substrings that identify it in a free-form label
};

const std::vector<FamilyInfo>& family_table() {
  static const std::vector<FamilyInfo> table = {
      {"memory_access",
       "coalescing, vectorized 16-byte loads/stores, shared-memory tiling, fewer passes over memory, caching",
       {"memory", "coalesc", "vector", "tiling", "tile", "shared", "cache", "load", "bandwidth", "pass"}},
      {"async_latency",
       "asynchrony and latency hiding: cp.async/TMA pipelines, prefetching, double buffering, more bytes in flight",
       {"async", "latency", "prefetch", "pipelin", "double buffer", "overlap"}},
      {"precision",
       "lower or mixed precision, fast math intrinsics, where the tolerance allows",
       {"precision", "fp16", "half", "bf16", "intrinsic", "fast math", "fast_math", "tensor core"}},
      {"control_flow",
       "control flow and index arithmetic: fewer branches, divergence, cheaper indexing, loop unrolling",
       {"control", "branch", "diverg", "index", "arithmetic", "unroll", "loop"}},
      {"parallelism",
       "parallelism and occupancy: block shape, work per thread, grid-stride loops, launch bounds, reductions",
       {"parallel", "occupancy", "block", "thread", "grid", "launch", "warp", "reduction", "atomic"}},
      {"fusion",
       "fusing launches or passes into one kernel, removing memsets and intermediate buffers",
       {"fusion", "fuse", "merge kernel", "single kernel"}},
      {"compile_flags",
       "compiler options: fast math, ptxas optimization, register limits",
       {"compile", "flag", "nvcc", "ptxas", "register"}},
      {"crossover", "a merge of two good candidates", {"crossover", "combin"}},
      {"original", "the original code", {}},
  };
  return table;
}

}  // namespace

std::string describe_idea_families() {
  std::string out;
  for (const auto& f : family_table()) {
    if (std::string(f.name) == "crossover" || std::string(f.name) == "original") continue;
    out += std::string("- ") + f.name + ": " + f.description + "\n";
  }
  return out;
}

std::string normalize_family(const std::string& text) {
  std::string t = lower(text);
  std::replace(t.begin(), t.end(), '-', '_');
  std::replace(t.begin(), t.end(), ' ', '_');
  for (const auto& f : family_table())
    if (t == f.name) return f.name;
  std::string spaced = lower(text);
  std::replace(spaced.begin(), spaced.end(), '_', ' ');
  for (const auto& f : family_table())
    for (const char* w : f.words)
      if (spaced.find(w) != std::string::npos) return f.name;
  return "other";
}

}  // namespace kb::search
