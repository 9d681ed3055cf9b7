#include "bot/change/kernel_target_splice.h"

#include <stdexcept>

#include "core/errors.h"
#include "cuda_source/knobs/kernel_launch_sites.h"

namespace kb::bot {

std::string splice_function(const config::KernelSpec& spec, const std::string& original_text) {
  if (!spec.is_global()) return spec.launcher;
  cuda_source::ScanResult scan;
  cuda_source::scan_source(original_text, spec.source, scan);
  const auto sites = cuda_source::kernel_launch_sites(scan, spec.global);
  if (sites.empty())
    throw Error(spec.source + " does not launch the kernel target's " + spec.global +
                ": there is no launch site to splice the winner at");
  for (const auto& s : sites)
    if (s.function != sites.front().function)
      throw Error(spec.source + " launches " + spec.global + " from several functions (" + sites.front().function +
                  ", " + s.function + "): the winner is not spliced where one of them would not be the code measured");
  return sites.front().function;
}

std::string edited_function(const config::KernelSpec& spec, const std::string& original_text) noexcept {
  try {
    return splice_function(spec, original_text);
  } catch (const std::exception&) {
    return spec.is_global() ? spec.global : spec.launcher;
  }
}

}  // namespace kb::bot
