#include "search/archive/content_hash.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/sha256.h"

namespace kb::search {

std::string variant_hash(const Variant& variant) {
  std::vector<std::string> defines = variant.defines;
  std::sort(defines.begin(), defines.end());
  nlohmann::json j{{"source", variant.source}, {"defines", defines}, {"nvcc_flags", variant.nvcc_flags}};
  return sha256_hex(j.dump());
}

std::string spec_hash(const config::Config& config, const config::KernelSpec& spec) {
  nlohmann::json args = nlohmann::json::array();
  for (const auto& a : spec.args) {
    args.push_back({a.name, to_string(a.role), to_string(a.dtype), a.count, a.value, a.distribution});
    // Only when given, so the hashes of specs without a range (the archive's keys) stay as they were.
    if (!a.range.empty()) args.back().push_back(a.range);
    if (role_is_buffer(a.role) && a.role != ArgRole::input) {
      auto tol = config.tolerance_for(spec, a.dtype);
      args.back().push_back(tol.rtol);
      args.back().push_back(tol.atol);
    }
  }
  nlohmann::json sizes = nlohmann::json::array();
  for (const auto& s : spec.sizes) sizes.push_back(s.values);
  nlohmann::json j{{"launcher", spec.launcher},
                   {"args", args},
                   {"sizes", sizes},
                   {"flops", spec.flops},
                   {"bytes", spec.bytes},
                   {"defines", spec.defines},
                   {"nvcc_flags", spec.nvcc_flags},
                   {"include_dirs", spec.include_dirs},
                   {"extra_sources", spec.extra_sources},
                   {"link_libs", spec.link_libs},
                   {"project_defines", config.project.defines},
                   {"project_flags", config.project.nvcc_flags},
                   {"project_include_dirs", config.project.include_dirs},
                   {"cuda_arch", config.project.cuda_arch}};
  // A kernel target's launch is part of what is measured; absent for launchers, whose hashes stay.
  if (spec.is_global())
    j["kernel_target"] = {spec.global, spec.grid, spec.block, spec.shared_bytes, spec.template_args};
  return sha256_hex(j.dump());
}

}  // namespace kb::search
