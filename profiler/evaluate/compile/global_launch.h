// The entry shim of a kernel target (config/kernel_target.h): kb_launch binds every argument by
// its [[kernel.arg]] name, evaluates the target's grid, block and shared-memory expressions with
// them, launches the __global__ function on the harness's stream (the last pointer it is given:
// harness_job_builder.h adds it) and returns non-zero when the launch failed.
//
// The block launched is the config's `block`, unless the text compiled launches the kernel from
// one place with a block written as integer knobs (a literal, a const local, a dim3 of literals)
// and the config's block is integer literals too: then it is the launch site's, so a variant that
// edits the launch site (the tuner's literal knobs, a PR's text) is measured with the block it
// writes. Likewise its template arguments: where the site's block is the one launched and the
// site writes template arguments the shim can see (literals, built-in types, the file's #defines),
// as many as the config's, the site's are instantiated, so that a tuned tile (`gemm<16>` with
// `dim3(16, 16)`, one tied knob: cuda_source/knobs/literal_knobs.h) is launched as its text writes it.
// KB_BLOCK_X/Y/Z, defined by the tuner's advisory probe (a source never published:
// cuda_source/knobs/literal_knobs.h), win over both, in a probe only: a candidate that defines them
// itself would be measured with a block its PR text never launches.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"

namespace kb::profiler {

// The block the shim launches `spec` with when compiled from `source_text` instead of the
// config's: the launch site's, per the rule above; nullopt: the config's expressions.
std::optional<std::vector<int64_t>> launch_site_block(const config::KernelSpec& spec, const std::string& source_text);

// The template arguments the shim instantiates `spec`'s kernel with when compiled from
// `source_text` instead of the config's, per the rule above; nullopt: the config's.
std::optional<std::string> launch_site_template_args(const config::KernelSpec& spec, const std::string& source_text);

// The shim's text after the variant's #include: helpers, the launch, and kb_launch itself.
// `site_block` and `site_template_args` are the answers above for the variant compiled;
// `advisory_probe`: the variant is an advisory probe, whose KB_BLOCK_X/Y/Z are honoured.
std::string global_launch_entry(const config::KernelSpec& spec, const std::optional<std::vector<int64_t>>& site_block,
                                bool advisory_probe = false,
                                const std::optional<std::string>& site_template_args = std::nullopt);

}  // namespace kb::profiler
