#include "search/builtin/kernel_target_knobs.h"

#include <fmt/format.h>

#include <algorithm>

#include "config/kernel_target.h"
#include "cuda_source/knobs/kernel_launch_sites.h"
#include "cuda_source/tokens/preprocessor_directives.h"

namespace kb::search {
namespace {

const char* const kBlockNames[] = {"block_x", "block_y", "block_z"};

}  // namespace

cuda_source::TextEdit LaunchProbe::probe(const std::string& text, int64_t value) const {
  return {text.size(), text.size(),
          fmt::format("\n#define KB_BLOCK_{} {}  {}{} ({} in this config)\n", static_cast<char>('X' + axis), value,
                      cuda_source::kAdvisoryProbeMarker, subject, config_value)};
}

KernelTargetKnobs kernel_target_knobs(const std::string& source, const config::KernelSpec& spec) {
  KernelTargetKnobs out;
  if (!spec.is_global()) return out;
  auto found = cuda_source::find_kernel_knobs(source, spec.global, spec.source);
  out.not_offered = found.not_offered;
  const auto block = config::launch_components(spec.block);
  auto grid_follows = [&](int axis) {
    return axis >= 0 && axis < 3 && config::expression_reads(spec.grid, kBlockNames[axis]);
  };
  // The site's block knobs are what the shim launches only when the site's block is whole (a knob
  // per dimension: found.block); the kernel's own knobs (unroll, min blocks) are tuned either way.
  for (auto& k : found.literals) {
    if (cuda_source::shapes_block(k.kind)) {
      if (!found.block) continue;
      // A tied knob (cuda_source/knobs/literal_knobs.h) moves every block dimension it writes.
      int unfollowed = grid_follows(k.axis) ? -1 : std::max(k.axis, 0);
      if (!k.block_powers.empty()) {
        unfollowed = -1;
        for (size_t axis = 0; axis < k.block_powers.size(); ++axis)
          if (k.block_powers[axis] > 0 && !grid_follows(static_cast<int>(axis)) && unfollowed < 0)
            unfollowed = static_cast<int>(axis);
      }
      if (unfollowed >= 0) {
        out.not_offered.push_back(fmt::format("{}: the grid `{}` of kernel target {} does not read {}", k.where,
                                              spec.grid, spec.name, kBlockNames[unfollowed]));
        continue;
      }
    }
    out.literals.push_back(std::move(k));
  }
  if (found.block) return out;
  const std::string where = found.site ? fmt::format("{}'s launch at {}", spec.global, found.site->where())
                                       : fmt::format("{}'s launches", spec.global);
  for (size_t axis = 0; axis < block.size(); ++axis) {
    auto value = cuda_source::integer_value(block[axis]);
    if (!value) {
      out.not_offered.push_back(
          fmt::format("the block `{}` of kernel target {} is not integers", spec.block, spec.name));
      break;
    }
    if (!grid_follows(static_cast<int>(axis))) {
      out.not_offered.push_back(
          fmt::format("the grid `{}` of kernel target {} does not read {}: the block is not probed", spec.grid,
                      spec.name, kBlockNames[axis]));
      continue;
    }
    out.probes.push_back({static_cast<int>(axis), *value,
                          block.size() == 1 ? "the block of " + where
                                            : fmt::format("block {} of {}", static_cast<char>('x' + axis), where)});
  }
  return out;
}

}  // namespace kb::search
