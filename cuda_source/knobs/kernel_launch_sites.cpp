#include "cuda_source/knobs/kernel_launch_sites.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace kb::cuda_source {

std::vector<KernelLaunchSite> kernel_launch_sites(const ScanResult& scan, const std::string& kernel) {
  std::vector<KernelLaunchSite> out;
  const std::string wanted = unqualified_name(kernel);
  for (const auto& l : scan.launchers)
    for (const auto& launch : l.launches)
      // A launch through a helper is the helper's site, listed with the helper.
      if (launch.via.empty() && unqualified_name(launch.kernel) == wanted)
        out.push_back({l.name, launch.file, launch.line, launch});
  std::sort(out.begin(), out.end(), [](const KernelLaunchSite& a, const KernelLaunchSite& b) {
    return a.file != b.file ? a.file < b.file : a.line < b.line;
  });
  return out;
}

KernelKnobs find_kernel_knobs(const std::string& text, const std::string& kernel, const std::string& file) {
  KernelKnobs out;
  ScanResult scan;
  scan_source(text, file, scan);
  auto sites = kernel_launch_sites(scan, kernel);
  if (sites.size() != 1) {
    out.not_offered.push_back(sites.empty() ? kernel + " is not launched in " + file
                                            : kernel + " is launched at " + std::to_string(sites.size()) +
                                                  " places in " + file + ": no one of them is the launch measured");
    return out;
  }
  out.site = sites.front();
  if (!out.site->launch.edits_in_place()) {
    // Editing the site would change the launch of every kernel the pointer can hold, or text the
    // tuner cannot read (an API launch's config struct).
    out.not_offered.push_back(fmt::format("{}: {} is launched {}: no launch knob there", out.site->where(), kernel,
                                          out.site->launch.api.empty()
                                              ? "through the function pointer `" + out.site->launch.variable + "`"
                                              : "through " + out.site->launch.api + "()"));
    return out;
  }
  LauncherKnobs knobs = find_launcher_knobs(text, scan, out.site->function, file);
  out.not_offered = std::move(knobs.not_offered);
  for (const auto& [launched, args] : knobs.template_args)
    if (unqualified_name(launched) == unqualified_name(kernel)) out.template_args = args;
  const std::string name = unqualified_name(kernel);
  std::map<int, int64_t> dims;
  int axes = 0;
  bool whole = true;
  for (auto& k : knobs.literals) {
    const bool block_knob = shapes_block(k.kind);
    const bool kernel_knob = k.kind == KnobKind::pragma_unroll || k.kind == KnobKind::min_blocks_per_sm;
    if (block_knob && unqualified_name(k.kernel) != name) continue;  // another kernel's launch, or shared
    if (kernel_knob && unqualified_name(k.function) != name) continue;
    if (block_knob && !k.block_powers.empty()) {  // a tied knob: the whole block, value^power per dimension
      std::vector<int64_t> tied;
      for (int p : k.block_powers) {
        int64_t component = 1;
        for (int i = 0; i < p; ++i) component *= k.value;
        tied.push_back(component);
      }
      out.block = tied;
      whole = false;  // the tied block stands; no other knob completes it
    } else if (block_knob && k.axis >= 0) {
      whole = whole && (axes == 0 || axes == k.axes) && !dims.count(k.axis);
      axes = k.axes;
      dims[k.axis] = k.value;
    }
    out.literals.push_back(std::move(k));
  }
  if (whole && axes > 0 && static_cast<int>(dims.size()) == axes) {
    std::vector<int64_t> block;
    for (const auto& [axis, value] : dims) block.push_back(value);
    out.block = block;
  }
  return out;
}

}  // namespace kb::cuda_source
