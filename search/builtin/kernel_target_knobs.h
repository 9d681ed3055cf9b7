// The builtin tuner's knobs of a kernel target (config/kernel_target.h), whose kernel the harness
// launches itself. The block it launches with follows the launch site in the text compiled
// (profiler/evaluate/compile/global_launch.h), so:
//   - where the kernel's one launch site writes its block as literal knobs, those knobs are
//     tuned as a launcher's are (the PR edits them there, and the PR's text is measured with the
//     block it writes);
//   - otherwise (a parameter, a computed block, several launch sites) the block is probed
//     through a `#define KB_BLOCK_X v` appended to the text, marked as an advisory probe: never
//     published, reported with the launch site (file:line) where a person can change it.
// Either way only when the target's grid follows the block (reads block_x, block_y): a block
// changed under a fixed grid would cover a different range, not the same work faster.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/config.h"
#include "cuda_source/knobs/literal_knobs.h"

namespace kb::search {

// One block dimension of the launch, probed by a #define the shim reads.
struct LaunchProbe {
  int axis = 0;              // 0, 1, 2: KB_BLOCK_X, _Y, _Z
  int64_t config_value = 0;  // the config's block component
  std::string subject;       // "the block x of gelu_kernel's launch at ext.cu:41"
  // The #define appended to `text`, with the advisory marker (cuda_source/knobs/literal_knobs.h).
  cuda_source::TextEdit probe(const std::string& text, int64_t value) const;
};

struct KernelTargetKnobs {
  std::vector<cuda_source::LiteralKnob> literals;
  std::vector<LaunchProbe> probes;
  std::vector<std::string> not_offered;  // for a debug log
};

KernelTargetKnobs kernel_target_knobs(const std::string& source, const config::KernelSpec& spec);

}  // namespace kb::search
